package discover

import (
	"fmt"
	"hash/fnv"
	"path"
	"strconv"
	"strings"
)

// Shard selects a deterministic subset of the discovered files, so that N
// tasks on N machines (--shard 1/N … N/N) cover a tree exactly once.
type Shard struct {
	Index, Count int    // 1 ≤ Index ≤ Count; Count 0 means every file
	Salt         string // varies the split (tests); empty for the documented one
}

// ParseShard reads "I/N".
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(s, "/")
	a, errA := strconv.Atoi(i)
	b, errB := strconv.Atoi(n)
	if !ok || errA != nil || errB != nil || b < 1 || a < 1 || a > b {
		return Shard{}, fmt.Errorf("--shard %q: want I/N with 1 ≤ I ≤ N, such as 2/8", s)
	}
	return Shard{Index: a, Count: b}, nil
}

func (s Shard) String() string {
	if s.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// has reports whether the file at source (relative, '/'-separated) is in the shard.
func (s Shard) has(source string) bool {
	if s.Count <= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(s.Salt))
	h.Write([]byte(ShardKey(source)))
	return int(h.Sum64()%uint64(s.Count)) == s.Index-1
}

// ShardKey is what decides a file's shard: its relative path, except for
// files that are joined with others into one run, which go by their
// directory so that every file of a run lands in the same shard:
// planagent records (one plan's ExecutionPlan, BatchResults, PlanProgress
// and ExecutionMetrics files sit in one store directory) and JSONL
// transcripts and traces (a Claude Code session continues in other files of
// its project directory, and its subagents in <session>/subagents/).
func ShardKey(source string) string {
	dir, base := path.Split(source)
	name := strings.ToLower(strings.TrimSuffix(strings.ToLower(base), ".gz"))
	joined := strings.HasSuffix(name, ".jsonl")
	for _, p := range []string{"plan_agent-", "execution-result-", "execution-log-", "execution-metrics", "execution_metrics"} {
		joined = joined || strings.HasPrefix(name, p)
	}
	if !joined {
		return source
	}
	dir = strings.TrimSuffix(dir, "/")
	if strings.HasSuffix(dir, "/subagents") {
		dir = path.Dir(path.Dir(dir)) // <project>/<session>/subagents → <project>
	}
	return dir + "/"
}

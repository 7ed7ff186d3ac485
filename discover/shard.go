package discover

import (
	"fmt"
	"hash/fnv"
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

// has reports whether the file at source (relative, '/'-separated) is in
// the shard: by a hash of the path alone, which spreads a tree's files
// evenly. Records of one run may land in different shards; merge joins
// them.
func (s Shard) has(source string) bool {
	if s.Count <= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(s.Salt))
	h.Write([]byte(source))
	return int(h.Sum64()%uint64(s.Count)) == s.Index-1
}

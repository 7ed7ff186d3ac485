package main

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The map/reduce recipe of the README: shards written as partials and
// merged in any order give the same report, byte for byte, as one pass.
func TestShardedMergeEqualsReport(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767225600")
	dir := t.TempDir()
	single := filepath.Join(dir, "single")
	if code, _, stderr := runCLI(t, "report", "--tz", "Asia/Shanghai", "-q", "-o", single, logs); code != exitOK {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	const n = 3
	var partials []string
	for i := 1; i <= n; i++ {
		p := filepath.Join(dir, fmt.Sprintf("shard-%d.partial", i))
		if code, _, stderr := runCLI(t, "report", "--tz", "Asia/Shanghai", "--shard", fmt.Sprintf("%d/%d", i, n), "--partial", p, "-q", logs); code != exitOK {
			t.Fatalf("shard %d: exit %d: %s", i, code, stderr)
		}
		partials = append(partials, p)
	}
	slices.Reverse(partials)
	merged := filepath.Join(dir, "merged")
	if code, _, stderr := runCLI(t, append([]string{"merge", "-q", "-o", merged}, partials...)...); code != exitOK {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	want, got := treeHash(t, single), treeHash(t, merged)
	if len(want) < 10 {
		t.Fatalf("single pass wrote only %d files", len(want))
	}
	for name, h := range want {
		if got[name] != h {
			t.Errorf("%s differs between the single pass and the merge", name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("merge wrote %s, the single pass did not", name)
		}
	}

	// Partials of partials: merge two, then that with the third.
	two := filepath.Join(dir, "two.partial")
	if code, _, stderr := runCLI(t, "merge", "-q", "--partial", two, partials[0], partials[1]); code != exitOK {
		t.Fatalf("merge --partial: exit %d: %s", code, stderr)
	}
	again := filepath.Join(dir, "again")
	if code, _, stderr := runCLI(t, "merge", "-q", "-f", "json", "-o", again, two, partials[2]); code != exitOK {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	a, _ := os.ReadFile(filepath.Join(single, "summary.json"))
	b, _ := os.ReadFile(filepath.Join(again, "summary.json"))
	if !bytes.Equal(a, b) {
		t.Error("summary.json of a merge in two rounds differs from the single pass")
	}

	// The tables of the shards, joined by merge, are export's.
	exported, joined := filepath.Join(dir, "exported"), filepath.Join(dir, "joined")
	if code, _, stderr := runCLI(t, "export", "--tz", "Asia/Shanghai", "-q", "-o", exported, logs); code != exitOK {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, append([]string{"merge", "-q", "--tables", joined}, partials...)...); code != exitOK {
		t.Fatalf("merge --tables: exit %d: %s", code, stderr)
	}
	want, got = treeHash(t, exported), treeHash(t, joined)
	if len(want) < 5 || !maps.Equal(want, got) {
		t.Errorf("merge --tables wrote other tables than export (%d files, %d)", len(got), len(want))
	}
}

// A PlanAgent store named otherwise than the seed (plan-api-tests/plan.json,
// results/2/result.json): shards split a plan's records wherever the hash
// puts them, and merge still joins them as one pass does.
func TestShardsSplitAPlan(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767225600")
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	for _, f := range []struct{ from, to string }{
		{"plan_agent-plan-plan-api-tests.json", "plan-api-tests/plan.json"},
		{"plan_agent-progress-plan-api-tests.json", "plan-api-tests/progress.json"},
		{"execution-result-batch-1.json", "plan-api-tests/result-batch-1.json"},
		{"execution-result-batch-2.json", "results/2/result.json"},
		{"execution-result-batch-x.json", "results/x/result.json"},
		{"execution-log-sess-42.json", "metrics/sess-42.json"},
		{"plan_agent-progress-plan-nobody.json", "plan-nobody/progress.json"},
	} {
		b, err := os.ReadFile(filepath.Join(logs, "planagent", f.from))
		if err != nil {
			t.Fatal(err)
		}
		to := filepath.Join(store, filepath.FromSlash(f.to))
		os.MkdirAll(filepath.Dir(to), 0o755)
		if err := os.WriteFile(to, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	single := filepath.Join(dir, "single")
	if code, _, stderr := runCLI(t, "report", "-q", "-f", "json,md", "-o", single, store); code != exitOK {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	for _, n := range []int{2, 3, 7} {
		var partials []string
		for i := 1; i <= n; i++ {
			p := filepath.Join(dir, fmt.Sprintf("%d-of-%d.partial", i, n))
			if code, _, stderr := runCLI(t, "report", "--shard", fmt.Sprintf("%d/%d", i, n), "--partial", p, "-q", store); code != exitOK {
				t.Fatalf("shard %d/%d: exit %d: %s", i, n, code, stderr)
			}
			partials = append(partials, p)
		}
		merged := filepath.Join(dir, fmt.Sprintf("merged-%d", n))
		if code, _, stderr := runCLI(t, append([]string{"merge", "-q", "-f", "json,md", "-o", merged}, partials...)...); code != exitOK {
			t.Fatalf("merge: exit %d: %s", code, stderr)
		}
		for _, name := range []string{"summary.json", "report.md"} {
			a, _ := os.ReadFile(filepath.Join(single, name))
			b, _ := os.ReadFile(filepath.Join(merged, name))
			if len(a) == 0 || !bytes.Equal(a, b) {
				t.Errorf("%d shards: %s differs from the single pass", n, name)
			}
		}
	}
}

func TestMergeAndExportErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.partial")
	if code, _, stderr := runCLI(t, "report", "--partial", good, "-q", logs); code != exitOK {
		t.Fatalf("report --partial: exit %d: %s", code, stderr)
	}
	if st, err := os.Stat(good); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("partial file mode %v (%v), want -rw-r--r--", st.Mode(), err)
	}
	data, _ := os.ReadFile(good)
	corrupt := filepath.Join(dir, "corrupt.partial")
	os.WriteFile(corrupt, data[:len(data)/2], 0o644)
	foreign := filepath.Join(dir, "foreign")
	os.MkdirAll(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "keep.txt"), []byte("mine"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		code int
		in   string
	}{
		{"merge nothing", []string{"merge"}, exitUsage, "name at least one partial file"},
		{"merge corrupt", []string{"merge", "-o", filepath.Join(dir, "m"), good, corrupt}, exitNoInput, "corrupt"},
		{"merge a log", []string{"merge", "-o", filepath.Join(dir, "m"), filepath.Join(logs, "session", "seed-simple.json")}, exitNoInput, "no agentstat.partial/v6 header"},
		{"merge --tz", []string{"merge", "--tz", "UTC", good}, exitUsage, "--tz is set when the partials are made"},
		{"bad shard", []string{"report", "--shard", "4/3", logs}, exitUsage, "1 ≤ I ≤ N"},
		{"summary --partial", []string{"summary", "--partial", good, logs}, exitUsage, "--partial is not a flag of summary"},
		{"thresholds with --partial", []string{"report", "--partial", good, "--max-error-rate", "0.1", logs}, exitUsage, "give them to merge"},
		{"merge checks thresholds", []string{"merge", "-f", "json", "-o", filepath.Join(dir, "checked"), "--max-error-rate", "1%", good}, exitViolation, "VIOLATED"},
		{"empty shard is fine", []string{"report", "--shard", "1/1000", "--partial", filepath.Join(dir, "tiny.partial"), "-q", filepath.Join(logs, "planexec")}, exitOK, ""},
		{"export", []string{"export", "-q", "-o", filepath.Join(dir, "tables"), logs}, exitOK, ""},
		{"export --shard", []string{"export", "--shard", "1/2", "-o", filepath.Join(dir, "t"), logs}, exitUsage, "merge --tables"},
		{"--partial and --tables", []string{"merge", "--partial", filepath.Join(dir, "p"), "--tables", filepath.Join(dir, "t"), good}, exitUsage, "one or the other"},
		{"export over foreign files", []string{"export", "-o", foreign, logs}, exitNoInput, "not an agentstat report"},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(stdout+stderr, tc.in) {
			t.Errorf("%s: exit %d (want %d)\nstdout: %.300s\nstderr: %.300s", tc.name, code, tc.code, stdout, stderr)
		}
	}
	for _, table := range []string{"runs", "steps", "tool_calls", "tokens", "evaluations"} {
		if m, _ := filepath.Glob(filepath.Join(dir, "tables", table, "date=*", "part-0.parquet")); len(m) == 0 {
			t.Errorf("export wrote no %s table", table)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(foreign, "keep.txt")); string(b) != "mine" {
		t.Error("export replaced a directory it did not write")
	}
}

func TestProgressText(t *testing.T) {
	for _, tc := range []struct {
		done, found, bytes int64
		elapsed            time.Duration
		want               string
	}{
		{0, 0, 0, 0, "agentstat: reading 0 of 0 files · 0 B"},
		{1234, 7416, 512e6, 2 * time.Second, "agentstat: reading 1,234 of 7,416 files · 512 MB · 256 MB/s"},
	} {
		if got := progressText(tc.done, tc.found, tc.bytes, tc.elapsed); got != tc.want {
			t.Errorf("progressText = %q, want %q", got, tc.want)
		}
	}
	// Not a terminal: no progress, and stop is harmless.
	p, stop := startProgress(&bytes.Buffer{}, false)
	stop()
	if p != nil {
		t.Error("progress on a buffer")
	}
}

package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite golden files")

func lines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func TestHistory(t *testing.T) {
	out := filepath.Join(t.TempDir(), "site")
	for i, epoch := range []string{"1767225600", "1767312000"} {
		t.Setenv("SOURCE_DATE_EPOCH", epoch)
		if code, _, stderr := runCLI(t, "report", logs, "-o", out, "-q"); code != exitOK {
			t.Fatalf("run %d: exit %d %s", i, code, stderr)
		}
	}
	if h := lines(t, filepath.Join(out, "history.jsonl")); len(h) != 2 || !strings.Contains(h[0], "2026-01-01T00:00:00Z") {
		t.Fatalf("history = %v", h)
	}
	index, _ := os.ReadFile(filepath.Join(out, "index.html"))
	if !bytes.Contains(index, []byte(`id="chart-trend-rates"`)) {
		t.Errorf("no trend charts after two report runs")
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	if !strings.Contains(string(md), "| +0 | +0.0 pp | +0 | +0.0 pp | +0.0% | +0.0% | +0.0% | +0.00 | +0 |") {
		t.Errorf("no change row in the headline:\n%.900s", md)
	}

	// --history FILE with a limit, and a corrupt line in it: skipped with a warning, the rest kept.
	hist := filepath.Join(t.TempDir(), "history.jsonl")
	good := lines(t, filepath.Join(out, "history.jsonl"))
	os.WriteFile(hist, []byte(good[0]+"\n{not json at all\n"+good[1]+"\n"), 0o644)
	t.Setenv("SOURCE_DATE_EPOCH", "1767398400")
	code, _, stderr := runCLI(t, "report", logs, "-o", filepath.Join(t.TempDir(), "o"), "-q", "--history", hist, "--history-limit", "2")
	if code != exitOK || !strings.Contains(stderr, "1 corrupt lines") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	h := lines(t, hist)
	if len(h) != 2 || !strings.Contains(h[0], "2026-01-02") || !strings.Contains(h[1], "2026-01-03") {
		t.Errorf("history after the limit trimmed the oldest = %v", h)
	}
}

func TestDiff(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767225600")
	dir := t.TempDir()
	// OLD has no structmsg runs, NEW no planagent runs: tools appear and disappear.
	for name, exclude := range map[string]string{"old": "structmsg", "new": "planagent"} {
		if code, _, stderr := runCLI(t, "report", logs, "-o", filepath.Join(dir, name), "-q", "-f", "json", "--exclude", exclude); code != exitOK {
			t.Fatalf("%s: %s", name, stderr)
		}
	}
	oldS, newS := filepath.Join(dir, "old", "summary.json"), filepath.Join(dir, "new", "summary.json")
	code, stdout, stderr := runCLI(t, "diff", oldS, newS)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden := filepath.Join("..", "..", "testdata", "golden", "diff.md")
	if *update {
		os.WriteFile(golden, []byte(stdout), 0o644)
	}
	want, _ := os.ReadFile(golden)
	if stdout != string(want) {
		os.WriteFile(golden+".got", []byte(stdout), 0o644)
		t.Errorf("diff differs from %s (see .got)", golden)
	}
	for _, s := range []string{"| run_terminal | none → 1 | none → 100% | none → n/a | appeared |", "| DELETE /orders | 1 → none | 100% → none | 1.0 s → none | disappeared |",
		"7 of 13 headline figures changed", "8 of 28 tools changed", "`agentstat diff --all` shows them"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("diff lacks %q", s)
		}
	}
	// From NEW back to OLD the tool-call error rate rises by 3–4 points: over a 2-point limit,
	// within a 5-point one; it is the worst regression, so the first row.
	code, stdout, _ = runCLI(t, "diff", "--fail-on-regression", "error_rate=2%", newS, oldS)
	first := stdout[strings.Index(stdout, "|---|"):]
	first = first[strings.Index(first, "\n")+1:]
	if code != exitViolation || !strings.Contains(stdout, "Regressions over the limits (1)") ||
		!strings.HasPrefix(first, "| Tool-call error rate |") || !strings.Contains(first[:strings.Index(first, "\n")], "| worse |") ||
		!strings.Contains(stdout, "- Tool-call error rate got worse by +2.9 pp (limit error_rate=2%)") {
		t.Errorf("a regression over the limit: exit %d\n%s", code, stdout)
	}
	// --all shows every figure and tool, changed or not.
	if _, stdout, _ := runCLI(t, "diff", "--all", oldS, newS); !strings.Contains(stdout, "| Runs |") || !strings.Contains(stdout, "| Bash | 8 | 28.6% | 30.0 s |  |") || strings.Contains(stdout, "--all") {
		t.Errorf("diff --all:\n%s", stdout)
	}
	if code, _, _ := runCLI(t, "diff", "--fail-on-regression", "error_rate=0.05", newS, oldS); code != exitOK {
		t.Errorf("within the limit: exit %d", code)
	}
	if code, _, _ := runCLI(t, "diff", "--fail-on-regression", "speed=1", oldS, newS); code != exitUsage {
		t.Errorf("unknown limit name: exit %d", code)
	}
	for _, limit := range []string{"error_rate=NaN", "run_p95=-1", "quality=+Inf"} {
		if code, _, _ := runCLI(t, "diff", "--fail-on-regression", limit, oldS, newS); code != exitUsage {
			t.Errorf("%s: exit %d", limit, code)
		}
	}
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"schema":"other/v9"}`), 0o644)
	if code, _, stderr := runCLI(t, "diff", oldS, filepath.Join(dir, "bad.json")); code != exitNoInput || !strings.Contains(stderr, "schema") {
		t.Errorf("another schema: exit %d %s", code, stderr)
	}
}

func TestGitHubActions(t *testing.T) {
	summary := filepath.Join(t.TempDir(), "step-summary.md")
	os.WriteFile(summary, []byte("earlier step\n"), 0o644)
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	code, stdout, _ := runCLI(t, "check", logs, "--max-error-rate", "0.1")
	if code != exitViolation {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(stdout, "::error::agentstat threshold violated: tool_calls.error_rate") {
		t.Errorf("no error annotation:\n%s", stdout)
	}
	if n := strings.Count(stdout, "::warning::agentstat skipped "); n != 9 { // testdata skips exactly nine files
		t.Errorf("%d skipped-file warnings", n)
	}
	b, _ := os.ReadFile(summary)
	if !strings.HasPrefix(string(b), "earlier step\n# agentstat report") || !strings.Contains(string(b), "## Thresholds") {
		t.Errorf("job summary = %.300s", b)
	}
	// A file name from a log cannot forge a workflow command.
	var out bytes.Buffer
	annotate(&out, "warning", "x.json\n::error::forged")
	if strings.Count(out.String(), "\n") != 1 || !strings.Contains(out.String(), "%0A::error::forged") {
		t.Errorf("annotation not escaped: %q", out.String())
	}
	// Nor reach the terminal of whoever reads the log.
	out.Reset()
	annotate(&out, "warning", "a\x1b[31mred\x07\x9b2Jb\xff.json")
	if got := out.String(); strings.ContainsAny(got, "\x1b\x07\u009b") || !utf8.ValidString(got) {
		t.Errorf("control characters kept: %q", got)
	}
}

package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/agentstat/agentstat/metrics"
)

const logs = "../../testdata/logs"

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestExitCodes(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767225600")
	dir := t.TempDir()
	out := filepath.Join(dir, "r")
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	notes := filepath.Join(dir, "notes.md")
	os.WriteFile(notes, []byte("# notes\n\n- keep me\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		code int
		in   string // substring expected in stdout or stderr
	}{
		{"report", []string{"report", logs, "-o", out, "-q"}, exitOK, ""},
		{"default command", []string{logs, "-o", out, "-q", "-f", "json"}, exitOK, ""},
		{"summary", []string{"summary", logs}, exitOK, "# agentstat report"},
		{"no roots", []string{"report"}, exitUsage, "name at least one"},
		{"bad flag", []string{"report", "--nope", logs}, exitUsage, "unknown flag"},
		{"bad tz", []string{"summary", "--tz", "Mars/Olympus", logs}, exitUsage, "--tz"},
		{"bad since", []string{"summary", "--since", "yesterday-ish", logs}, exitUsage, "--since"},
		{"bad format", []string{"report", "-f", "pdf", logs, "-o", out}, exitUsage, "unknown output format"},
		{"bad threshold", []string{"check", "--max-error-rate", "2", logs}, exitUsage, "between 0 and 1"},
		{"check without thresholds", []string{"check", logs}, exitUsage, "at least one threshold"},
		{"empty root", []string{"summary", t.TempDir()}, exitNoInput, "no log files"},
		{"missing root", []string{"summary", filepath.Join(dir, "missing")}, exitNoInput, "missing"},
		{"check passes", []string{"check", "--max-error-rate", "0.5", "--min-quality", "7", logs}, exitOK, "check passed"},
		{"check fails", []string{"check", "--max-error-rate", "10%", logs}, exitViolation, "VIOLATED tool_calls.error_rate"},
		{"check per tool", []string{"check", "--max-p95", "Bash=1s", logs}, exitViolation, "tools.duration_ms.p95[Bash]"},
		{"check success rate", []string{"check", "--min-success-rate", "0.9", logs}, exitViolation, "runs.success_rate"},
		{"check completion", []string{"check", "--min-completion-rate", "0.9", logs}, exitViolation, "steps.completion_rate"},
		{"check run p95", []string{"check", "--max-run-p95", "1h", logs}, exitOK, "check passed"},
		{"check no data", []string{"check", "--max-error-rate", "Nope=0.1", logs}, exitOK, "no data"},
		{"strict", []string{"report", "--strict", logs, "-o", out, "-f", "json"}, exitViolation, "--strict"},
		{"version", []string{"version"}, exitOK, "agentstat"},
		{"formats", []string{"formats"}, exitOK, "planagent"},
		{"help", []string{"--help"}, exitOK, "Exit codes"},
		{"formats with an argument", []string{"formats", "planagent"}, exitUsage, "takes no arguments"},
		{"empty -o", []string{"report", logs, "-o", ""}, exitUsage, "-o: name a path"},
		{"empty -f", []string{"report", logs, "-o", out, "-f", ""}, exitUsage, "name at least one output"},
		{"-j too many", []string{"report", logs, "-o", out, "-j", "100000"}, exitUsage, "between 1 and 1024"},
		{"-j negative", []string{"summary", logs, "-j", "-1"}, exitUsage, "between 1 and 1024"},
		{"NaN rate", []string{"check", "--max-error-rate", "NaN", logs}, exitUsage, "between 0 and 1"},
		{"NaN score", []string{"check", "--min-quality", "NaN", logs}, exitUsage, "between 0 and 10"},
		{"infinite p95", []string{"check", "--max-p95", "+Inf", logs}, exitUsage, "not a duration"},
		{"-o below a file", []string{"report", logs, "-o", filepath.Join(file, "r")}, exitUsage, "is a file, not a directory"},
		{"-o a file", []string{"report", logs, "-o", file}, exitUsage, "is a file, not a directory"},
		{"--history a directory", []string{"report", logs, "-o", out, "--history", dir}, exitUsage, "is a directory, not a file"},
		{"misspelled command", []string{"reprot", logs}, exitUsage, `unknown command "reprot" (did you mean report?)`},
		{"misspelled flag", []string{"report", "--sinec", "7d", logs}, exitUsage, "did you mean --since?"},
		{"flag of another command", []string{"summary", "-o", out, logs}, exitUsage, "--out is not a flag of summary"},
		{"no log among the files", []string{"summary", filepath.Join(logs, "broken", "unknown.json"), filepath.Join(logs, "broken", "empty.json")}, exitNoInput, "no log file among the 2 files seen (1 empty, 1 unknown format)"},
		{"window leaves no run", []string{"report", logs, "-o", out, "-f", "json", "--since", "2099-01-01"}, exitOK, "--since/--until left out every run read (29)"},
		{"version", []string{"version", "--help"}, exitOK, "Usage: agentstat version"},
		{"--history not a history", []string{"report", logs, "-o", out, "-f", "json", "--history", notes}, exitNoInput, "not an agentstat history"},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(stdout+stderr, tc.in) {
			t.Errorf("%s: exit %d (want %d)\nstdout: %.300s\nstderr: %.300s", tc.name, code, tc.code, stdout, stderr)
		}
	}
}

// summary prints summary.json with --json, and with --history the change
// since the history's last entry, leaving the history as it was.
func TestSummaryJSONAndHistory(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767225600")
	code, stdout, stderr := runCLI(t, "summary", "--json", logs)
	var s metrics.Summary
	if code != exitOK || json.Unmarshal([]byte(stdout), &s) != nil || s.Schema != metrics.SchemaVersion || s.Runs.Total != 29 {
		t.Fatalf("summary --json: exit %d, %.200s %s", code, stdout, stderr)
	}
	dir := t.TempDir()
	if code, _, stderr := runCLI(t, "report", filepath.Join(logs, "session"), "-q", "-f", "json", "-o", filepath.Join(dir, "r")); code != exitOK {
		t.Fatal(stderr)
	}
	hist := filepath.Join(dir, "r", "history.jsonl")
	before, _ := os.ReadFile(hist)
	code, stdout, _ = runCLI(t, "summary", "--history", hist, logs)
	if code != exitOK || !strings.Contains(stdout, "The second row is the change since the previous report") {
		t.Errorf("summary --history: exit %d\n%.600s", code, stdout)
	}
	if after, _ := os.ReadFile(hist); !bytes.Equal(before, after) {
		t.Error("summary wrote the history")
	}
}

// A file given as --history that holds no history is left as it was.
func TestHistoryNotReplaced(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.md")
	text := strings.Repeat("a line of someone's notes\n", 653)
	os.WriteFile(notes, []byte(text), 0o644)
	if code, _, _ := runCLI(t, "report", logs, "-q", "-f", "json", "-o", filepath.Join(dir, "r"), "--history", notes); code != exitNoInput {
		t.Errorf("exit %d", code)
	}
	if b, _ := os.ReadFile(notes); string(b) != text {
		t.Errorf("the file was replaced by %.200q", b)
	}
}

// The verdict of check is recorded in summary.json when a report is written.
func TestCheckRecorded(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r")
	if code, _, stderr := runCLI(t, "report", logs, "-o", out, "-q", "--max-error-rate", "0.1"); code != exitViolation {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s struct {
		Check struct {
			Passed     bool
			Thresholds []struct{ Violated bool }
		}
	}
	b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(b, &s); err != nil || s.Check.Passed || len(s.Check.Thresholds) != 1 || !s.Check.Thresholds[0].Violated {
		t.Errorf("check in summary.json = %+v (%v)", s.Check, err)
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	if !strings.Contains(string(md), "1 of 1 thresholds violated") {
		t.Errorf("report.md lacks the verdict")
	}
}

// Same input, same bytes: two runs with SOURCE_DATE_EPOCH set write identical files.
func TestReproducible(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767225600")
	dir := t.TempDir()
	for _, o := range []string{"a", "b"} {
		if code, _, stderr := runCLI(t, "report", logs, "-o", filepath.Join(dir, o), "-q", "--tz", "Asia/Shanghai"); code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
	files := 0
	filepath.WalkDir(filepath.Join(dir, "a"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(filepath.Join(dir, "a"), p)
		a, _ := os.ReadFile(p)
		b, err := os.ReadFile(filepath.Join(dir, "b", rel))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs", rel)
		}
		files++
		return nil
	})
	if files < 30 { // index, run list, 22 run pages, assets, report.md, summary.json
		t.Errorf("only %d files written", files)
	}
	var s struct {
		TZ string `json:"tz"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "a", "summary.json"))
	json.Unmarshal(b, &s)
	if !strings.HasPrefix(string(b), "{\n  \"schema\": \"agentstat.summary/v1\",\n  \"generated_at\": \"2026-01-01T08:00:00+08:00\"") || s.TZ != "Asia/Shanghai" {
		t.Errorf("generated_at/tz: %.120s", b)
	}
}

func TestRefusesForeignOutput(t *testing.T) {
	out := t.TempDir()
	os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644)
	if code, _, stderr := runCLI(t, "report", logs, "-o", out); code != exitNoInput || !strings.Contains(stderr, "--force") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// An output that is, holds or lies inside an input is refused, --force or
// not, and the input is left as it was.
func TestOutputApartFromInputs(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "logs")
	if err := os.CopyFS(in, os.DirFS(filepath.Join(logs, "session"))); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "dangling") // to a directory not made yet, inside the input
	if err := os.Symlink(filepath.Join(in, "new"), dangling); err != nil {
		t.Fatal(err)
	}
	before := treeHash(t, dir)
	for _, args := range [][]string{
		{"report", in, "-o", in, "--force"},
		{"report", in, "-o", link, "--force"},
		{"report", in, "-o", dangling},
		{"report", in, "-o", dir, "--force"},
		{"report", in, "-o", filepath.Join(in, "report"), "--force"},
		{"report", filepath.Join(in, "."), "-o", filepath.Join(link, "report")},
		{"export", in, "-o", in, "--force"},
		{"check", in, "--max-error-rate", "1", "-o", dir, "--force"},
		{"report", in, "--partial", filepath.Join(in, "p.json.gz")},
		{"report", in, "-o", filepath.Join(dir, "out"), "--history", filepath.Join(in, "h.jsonl")},
	} {
		code, _, stderr := runCLI(t, append(args, "-q")...)
		if code != exitUsage || !strings.Contains(stderr, "outside the inputs") {
			t.Errorf("%q: exit %d: %s", args, code, stderr)
		}
	}
	if after := treeHash(t, dir); len(after) != len(before) {
		t.Errorf("%d files before, %d after", len(before), len(after))
	}
	// Beside the input is fine.
	if code, _, stderr := runCLI(t, "report", in, "-q", "-f", "json", "-o", filepath.Join(dir, "out")); code != exitOK {
		t.Errorf("an output beside the input: exit %d: %s", code, stderr)
	}
}

// An output whose lock this run holds already (-o ., a history inside -o)
// is written, or refused, without waiting for itself.
func TestNoSelfDeadlock(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767225600")
	abs, err := filepath.Abs(logs)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "r")
	done := make(chan string)
	go func() {
		var msgs []string
		for _, args := range [][]string{
			{"report", abs, "-q", "-f", "json", "-o", out, "--history", filepath.Join(out, "history.jsonl")},
			{"report", abs, "-q", "-f", "json", "-o", out, "--history", filepath.Join(out, "history.jsonl")},
		} {
			if code, _, stderr := runCLI(t, args...); code != exitOK {
				msgs = append(msgs, fmt.Sprintf("%q: exit %d: %s", args, code, stderr))
			}
		}
		// -o the working directory: filled in place, not swapped away.
		t.Chdir(t.TempDir())
		for range 2 {
			if code, _, stderr := runCLI(t, "report", abs, "-q", "-f", "json", "-o", "."); code != exitOK {
				msgs = append(msgs, fmt.Sprintf("-o .: exit %d: %s", code, stderr))
			}
		}
		if _, err := os.Stat("summary.json"); err != nil {
			msgs = append(msgs, "-o .: "+err.Error())
		}
		done <- strings.Join(msgs, "\n")
	}()
	select {
	case msg := <-done:
		if msg != "" {
			t.Error(msg)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("a run waited for its own lock")
	}
	b, err := os.ReadFile(filepath.Join(out, "history.jsonl"))
	if err != nil || bytes.Count(b, []byte("\n")) != 2 {
		t.Errorf("history after two runs: %v\n%s", err, b)
	}
}

// An -o or --history that is a link is written through: the link stays,
// its target gets the new report or history.
func TestOutputThroughLinks(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767225600")
	dir := t.TempDir()
	target, hist := filepath.Join(dir, "site"), filepath.Join(dir, "h.jsonl")
	outLink, histLink := filepath.Join(dir, "out"), filepath.Join(dir, "hist")
	os.Symlink(target, outLink)
	os.Symlink(hist, histLink)
	os.MkdirAll(target, 0o755)
	for range 2 {
		if code, _, stderr := runCLI(t, "report", logs, "-q", "-f", "json", "-o", outLink, "--history", histLink); code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
	for _, l := range []string{outLink, histLink} {
		if info, err := os.Lstat(l); err != nil || info.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link (%v)", l, err)
		}
	}
	if _, err := os.Stat(filepath.Join(target, "summary.json")); err != nil {
		t.Errorf("the link's target has no report: %v", err)
	}
	if b, err := os.ReadFile(hist); err != nil || bytes.Count(b, []byte("\n")) != 2 {
		t.Errorf("the history behind the link: %v\n%s", err, b)
	}
}

// An -o that is a mount point (a container volume) cannot be renamed: it is
// filled in place.
func TestOutputMountPoint(t *testing.T) {
	mnt := t.TempDir()
	if err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", mnt).Run(); err != nil {
		t.Skip("cannot mount a tmpfs here:", err)
	}
	t.Cleanup(func() { exec.Command("umount", mnt).Run() })
	os.WriteFile(filepath.Join(mnt, "stale.txt"), nil, 0o644)
	for i, args := range [][]string{{"--force"}, nil} {
		if code, _, stderr := runCLI(t, append([]string{"report", logs, "-q", "-f", "json,md", "-o", mnt}, args...)...); code != exitOK {
			t.Fatalf("run %d: exit %d: %s", i, code, stderr)
		}
	}
	entries, _ := os.ReadDir(mnt)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != ".agentstat-report history.jsonl report.md summary.json" {
		t.Errorf("the mount point holds %s", got)
	}
}

// The run index is built only where a run list is written (the dashboard,
// the workbook, and a partial merged into either later), run details only
// for run pages, the workbook, a partial and export: check writes a report
// only with --out.
func TestRunIndexWhereListed(t *testing.T) {
	all := []string{"md", "html", "json", "xlsx"}
	for _, tc := range []struct {
		cmd, partial   string
		formats        []string
		out            bool
		index, details bool
	}{
		{"report", "", []string{"json"}, false, false, false},
		{"report", "", []string{"json", "md"}, true, false, false},
		{"report", "", []string{"html"}, false, true, true},
		{"report", "", []string{"xlsx"}, false, true, true},
		{"report", "", all, false, true, true},
		{"report", "p.gob", []string{"json"}, false, true, true},
		{"check", "", all, false, false, false},
		{"check", "", all, true, true, true},
		{"check", "", []string{"json"}, true, false, false},
		{"summary", "", all, false, false, false},
		{"export", "", all, false, false, true},
		{"merge", "", all, false, true, true},
	} {
		c := config{cmd: tc.cmd, formats: tc.formats, partial: tc.partial, outSet: tc.out, tz: "UTC", maxSize: "1MB", out: t.TempDir(), thresholds: map[string]*[]string{}}
		for _, f := range metrics.ThresholdFlags {
			c.thresholds[f.Flag] = new([]string)
		}
		if tc.cmd == "check" {
			*c.thresholds["max-error-rate"] = []string{"0.5"}
		}
		opt, _, err := c.options([]string{logs})
		if err != nil {
			t.Fatal(err)
		}
		if opt.NoIndex == tc.index || opt.KeepDetails != tc.details {
			t.Errorf("%s -f %v partial %q out %v: NoIndex %v, KeepDetails %v", tc.cmd, tc.formats, tc.partial, tc.out, opt.NoIndex, opt.KeepDetails)
		}
	}
}

// --no-text: no prompt, title from a prompt, step name, task or error text of
// the test logs reaches any output, the workbook unzipped, the tables read
// back, a merged partial's report too.
func TestNoText(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767225600")
	dir := t.TempDir()
	out, tables, part := filepath.Join(dir, "r"), filepath.Join(dir, "t"), filepath.Join(dir, "p.agentstat")
	for _, args := range [][]string{
		{"report", logs, "-o", out, "--no-text", "-q"},
		{"export", logs, "-o", tables, "--no-text", "-q"},
		{"report", logs, "--partial", part, "--no-text", "-q"},
		{"merge", part, "-o", filepath.Join(dir, "m"), "-q"},
	} {
		if code, _, stderr := runCLI(t, args...); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	// Texts the logs hold: prompts, a summary, step names, judged tasks, error texts.
	secrets := []string{"Fix the failing test", "Clean up the build", "the checkout flow", "old_string not found",
		"permission denied for relation", "pytest exited", "subagent gave up", "Run the tests and fix them", "npm test failed", "src/checkout.ts"}
	var texts []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".agentstat") {
			return err
		}
		switch {
		case strings.HasSuffix(p, ".xlsx"):
			zr, err := zip.OpenReader(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range zr.File {
				rc, _ := f.Open()
				b, _ := io.ReadAll(rc)
				rc.Close()
				texts = append(texts, p+"!"+f.Name+"\n"+string(b))
			}
			zr.Close()
		case strings.HasSuffix(p, ".parquet"):
			f, _ := os.Open(p)
			defer f.Close()
			st, _ := f.Stat()
			pf, err := parquet.OpenFile(f, st.Size())
			if err != nil {
				t.Fatal(err)
			}
			rows := make([]parquet.Row, 256)
			for _, rg := range pf.RowGroups() {
				rr := rg.Rows()
				for {
					n, err := rr.ReadRows(rows)
					for _, row := range rows[:n] {
						for _, v := range row {
							texts = append(texts, p+"\n"+v.String())
						}
					}
					if err != nil {
						break
					}
				}
				rr.Close()
			}
		default:
			b, _ := os.ReadFile(p)
			texts = append(texts, p+"\n"+string(b))
		}
		return nil
	})
	if len(texts) < 20 {
		t.Fatalf("only %d texts read", len(texts))
	}
	for _, text := range texts {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s holds %q", text[:strings.IndexByte(text, '\n')], s)
			}
		}
	}
	// The numbers stay: the same runs, errors and tokens as with the texts.
	var with, without metrics.Summary
	if code, stdout, _ := runCLI(t, "summary", "--json", logs); code != exitOK || json.Unmarshal([]byte(stdout), &with) != nil {
		t.Fatal("summary")
	}
	b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	json.Unmarshal(b, &without)
	if !without.Inputs.TextWithheld || without.Runs.Total != with.Runs.Total || without.ToolCalls.Errors != with.ToolCalls.Errors ||
		without.Context.Tokens != with.Context.Tokens || len(without.Errors) == 0 || without.Errors[0].Message != metrics.WithheldError {
		t.Errorf("--no-text changed the figures: %+v %+v, errors %+v", without.Runs, without.ToolCalls, without.Errors)
	}
}

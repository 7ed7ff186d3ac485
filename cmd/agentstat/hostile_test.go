//go:build unix

// The hostile-input and interruption tests need a Unix file system and
// signals (FIFOs, modes, SIGINT, rusage).

package main

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentstat/agentstat/render"
)

// TestHostileCorpus builds every kind of hostile input (in every format,
// every field) and runs the binary over it: it must exit 0, account for every file, stay
// within its memory bound, and write outputs free of log content that could
// run or leak.
func TestHostileCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 100 MB line")
	}
	bin := buildBinary(t)
	root := t.TempDir()
	w := func(name string, data []byte) {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w("empty.json", nil)
	w("truncated.json", []byte(`{"session_id": "t", "tool_calls": [{"call_id"`))
	w("binary.json", bytes.Repeat([]byte{0, 0xff, 0x13, 0x88}, 1000))
	w("invalid-utf8.json", []byte("{\"session_id\": \"\xff\xfe\", \"tool_calls\": []}"))
	w("bom.json", append([]byte{0xEF, 0xBB, 0xBF}, session("bom", "bom", "")...))
	w("deep.json", []byte(strings.Repeat(`{"a":`, 100000)+"1"+strings.Repeat("}", 100000)))
	w("deep-array.json", []byte(strings.Repeat("[", 100000)+strings.Repeat("]", 100000)))
	w("numbers.json", []byte(session("numbers", "big numbers", `, "summary": {"total_duration_ms": 1e999, "tool_calls_count": 99999999999999999999999}`)))
	w("nan.json", []byte(`{"session_id": "nan", "tool_calls": [], "summary": {"total_duration_ms": NaN}}`))
	w("infinity.json", []byte(`{"session_id": "inf", "tool_calls": [], "summary": {"total_duration_ms": Infinity}}`))
	w("duplicate-keys.json", []byte(`{"session_id": "dup", "session_id": "dup2", "status": "failed", "status": "success", "tool_calls": []}`))
	w("same-id-a.json", []byte(session("same-id", "first", "")))
	w("same-id-b.json", []byte(session("same-id", "second", "")))
	w("ids/traversal.json", []byte(session("../../etc/passwd", "traversal", "")))
	w("ids/con.json", []byte(session("CON", "reserved", "")))
	w("ids/long.json", []byte(session(strings.Repeat("x", 5000), "long", "")))
	w("ids/control.json", []byte(session("a\x00b\x1b[31mc\nd", "control", "")))
	w("secrets.json", []byte(session("secret-run", "deploy with sk-ant-api03-SECRETSECRETSECRET123", `, "user_prompt": "use ghp_SECRETSECRETSECRETSECRET0123456789"`)))
	w("names/new\nline.json", []byte(session("newline-name", "newline in file name", "")))
	w("names/bad-\xff\xfe.json", []byte(session("bad-utf8-name", "invalid UTF-8 in file name", "")))
	var bomb bytes.Buffer
	gz := gzip.NewWriter(&bomb)
	gz.Write([]byte(`{"session_id":"bomb","pad":"`))
	chunk := bytes.Repeat([]byte("A"), 1<<20)
	for i := 0; i < 1100; i++ { // 1.1 GB once decompressed, over the 1 GiB default
		gz.Write(chunk)
	}
	gz.Write([]byte(`"}`))
	gz.Close()
	w("bomb.json.gz", bomb.Bytes())

	// A 2 GB file (sparse: nothing is written) is over the default limit.
	huge, _ := os.Create(filepath.Join(root, "huge.json"))
	huge.Truncate(2 << 30)
	huge.Close()
	// A 100 MB single JSON line, as real ones are: tool outputs of a few MB each.
	line, _ := os.Create(filepath.Join(root, "long-line.jsonl"))
	fmt.Fprint(line, `{"session_id":"long-line","status":"success","tool_calls":[`)
	output := strings.Repeat("file body \\n 文件内容 ", 200000) // ~5 MB
	for i := 0; i < 20; i++ {
		if i > 0 {
			fmt.Fprint(line, ",")
		}
		fmt.Fprintf(line, `{"call_id":"c%d","tool_name":"Read","duration_ms":1,"output":{"status":"success","result":{"content":"%s"}}}`, i, output)
	}
	fmt.Fprint(line, "]}\n")
	line.Close()

	// Links are not followed: a loop, a link out of the root, a link to a file.
	os.Symlink(root, filepath.Join(root, "loop"))
	os.Symlink("/etc", filepath.Join(root, "etc-link"))
	os.Symlink("/etc/hostname", filepath.Join(root, "hostname.json"))
	// A FIFO would block a reader forever: it is never opened.
	if err := syscall.Mkfifo(filepath.Join(root, "fifo.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Unreadable to anyone but root.
	w("locked.json", []byte(session("locked", "locked", "")))
	os.Chmod(filepath.Join(root, "locked.json"), 0)
	os.MkdirAll(filepath.Join(root, "locked-dir"), 0o755)
	w("locked-dir/inside.json", []byte(session("inside", "inside", "")))
	os.Chmod(filepath.Join(root, "locked-dir"), 0)
	t.Cleanup(func() { os.Chmod(filepath.Join(root, "locked-dir"), 0o755) })

	out := filepath.Join(t.TempDir(), "report")
	cmd := exec.Command(bin, "report", root, "-o", out, "-q")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit: %v\n%s", err, stderr.String())
		}
	case <-time.After(3 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("still running after 3 minutes (a FIFO opened?)")
	}
	if strings.Contains(stderr.String(), "panic") {
		t.Fatalf("panic: %s", stderr.String())
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KB
	t.Logf("%s, peak RSS %d MB", time.Since(start).Round(time.Millisecond), rss>>10)
	if rss > 200<<10 {
		t.Errorf("peak RSS %d MB, over the 200 MB bound", rss>>10)
	}

	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Inputs struct {
			FilesSeen    int64 `json:"files_seen"`
			FilesParsed  int64 `json:"files_parsed"`
			FilesSkipped int64 `json:"files_skipped"`
			Redacted     int64 `json:"redacted"`
			Skipped      []struct{ Path, Reason string }
		}
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	in := s.Inputs
	reasons := map[string]string{}
	for _, f := range in.Skipped {
		reasons[f.Path] = f.Reason
	}
	want := map[string]string{
		"empty.json": "empty", "truncated.json": "truncated JSON", "binary.json": "invalid JSON", "invalid-utf8.json": "not UTF-8",
		"deep.json": "invalid JSON", "deep-array.json": "invalid JSON",
		"bomb.json.gz": "too large", "huge.json": "too large",
	}
	if os.Geteuid() != 0 {
		want["locked.json"] = "unreadable"
		want["locked-dir"] = "unreadable"
	}
	for _, parsed := range []string{"long-line.jsonl", "bom.json", "numbers.json", "nan.json", "infinity.json", "duplicate-keys.json", "secrets.json", "ids/control.json"} {
		if r, skipped := reasons[parsed]; skipped {
			t.Errorf("%s skipped (%s), want parsed", parsed, r)
		}
	}
	for p, r := range want {
		if reasons[p] != r {
			t.Errorf("%s: %q, want %q", p, reasons[p], r)
		}
	}
	if in.FilesSeen != in.FilesParsed+in.FilesSkipped {
		t.Errorf("seen %d != parsed %d + skipped %d", in.FilesSeen, in.FilesParsed, in.FilesSkipped)
	}
	// 25 regular log files; the FIFO and the links are not seen. Without root the locked
	// directory is one unreadable entry in place of the file inside it.
	if in.FilesSeen != 25 {
		t.Errorf("seen %d files, want 25: %v", in.FilesSeen, reasons)
	}
	if in.Redacted != 2 {
		t.Errorf("redacted %d values, want 2", in.Redacted)
	}

	// Outputs: no secret anywhere, run pages named safely inside runs/.
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".js") {
			return err
		}
		data, _ := os.ReadFile(p)
		for _, secret := range []string{"SECRETSECRET", "/etc/hostname"} {
			if bytes.Contains(data, []byte(secret)) {
				t.Errorf("%s holds %q", p, secret)
			}
		}
		rel, _ := filepath.Rel(out, p)
		if strings.HasPrefix(rel, "runs"+string(filepath.Separator)) {
			name := filepath.Base(p)
			if len(name) > 80 || strings.ContainsAny(name, "/\\\x00\n:") || strings.HasPrefix(name, ".") || strings.HasPrefix(strings.ToUpper(name), "CON.") {
				t.Errorf("unsafe run page name %q", name)
			}
		}
		return nil
	})
}

// TestInterrupted kills a report mid-way (SIGKILL, then SIGINT) and checks
// the previous report in the output directory is byte-for-byte intact and
// nothing is left in the temporary directory; the report the killed run
// left half-written beside it is removed by the next run.
// SIGTERM ends a run within its grace even where the run cannot stop by
// itself: here, a read from a pipe whose writer never writes.
func TestTerminatedWhileWaiting(t *testing.T) {
	bin := buildBinary(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cmd := exec.Command(bin, "summary", "/dev/stdin")
	cmd.Stdin = r
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	time.Sleep(500 * time.Millisecond)
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("ended %v after SIGTERM", d)
		}
		if code := cmd.ProcessState.ExitCode(); code != exitNoInput {
			t.Errorf("exit %d, want %d", code, exitNoInput)
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("SIGTERM did not end a run waiting on a pipe")
	}
}

func TestInterrupted(t *testing.T) {
	root, bin := manySessions(t), buildBinary(t)
	parent := t.TempDir()
	out := filepath.Join(parent, "report")
	if b, err := exec.Command(bin, "report", "../../testdata/logs", "-o", out, "-q").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, b)
	}
	before := treeHash(t, out)

	for _, sig := range []os.Signal{syscall.SIGKILL, os.Interrupt} {
		scratch := t.TempDir() // the run's TMPDIR: its spills must not outlive it, even killed
		cmd, _ := startWriting(t, bin, root, out, "TMPDIR="+scratch)
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		if err == nil {
			t.Fatalf("%v: the run finished before it could be interrupted", sig)
		}
		if left, _ := os.ReadDir(scratch); len(left) > 0 {
			t.Errorf("%v: left %d files in TMPDIR, %s first", sig, len(left), left[0].Name())
		}
		after := treeHash(t, out)
		if len(after) != len(before) {
			t.Fatalf("%v: %d files, had %d", sig, len(after), len(before))
		}
		for k, v := range before {
			if after[k] != v {
				t.Errorf("%v: %s changed", sig, k)
			}
		}
		left, _ := filepath.Glob(filepath.Join(parent, ".agentstat-tmp-*"))
		if sig == syscall.SIGKILL {
			if len(left) != 1 {
				t.Fatalf("SIGKILL left %v, want its temporary directory", left)
			}
			age(t, left[0]) // an hour later, the next run removes it: no process holds it
		}
		if sig == os.Interrupt {
			if len(left) > 0 {
				t.Errorf("left temporary directories after SIGINT: %v", left)
			}
			if code := cmd.ProcessState.ExitCode(); code != exitNoInput {
				t.Errorf("SIGINT: exit %d, want %d", code, exitNoInput)
			}
		}
	}
}

// A report being written is not taken for one a killed run left, however
// old its temporary directory looks: another run writing beside it (here a
// partial file) leaves it alone, and the report completes.
func TestLiveTempKept(t *testing.T) {
	root, bin := manySessions(t), buildBinary(t)
	parent := t.TempDir()
	out := filepath.Join(parent, "report")
	cmd, tmp := startWriting(t, bin, root, out)
	age(t, tmp)
	if b, err := exec.Command(bin, "report", "../../testdata/logs", "-q", "--partial", filepath.Join(parent, "p.partial")).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, b)
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Errorf("the running report's temporary directory was removed: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the running report failed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "index.html")); err != nil {
		t.Error(err)
	}
}

// manySessions is a directory of 6,000 small session files: enough for a
// report to take a while writing its run pages. -short skips the test.
func manySessions(t *testing.T) string {
	if testing.Short() {
		t.Skip("writes thousands of files")
	}
	root := t.TempDir()
	for i := range 6000 {
		os.WriteFile(filepath.Join(root, fmt.Sprintf("s%05d.json", i)), []byte(session(fmt.Sprintf("run-%05d", i), "t", "")), 0o644)
	}
	return root
}

// age makes path look older than render.StaleAge.
func age(t *testing.T, path string) {
	t.Helper()
	then := time.Now().Add(-render.StaleAge - time.Minute)
	if err := os.Chtimes(path, then, then); err != nil {
		t.Fatal(err)
	}
}

// startWriting starts a report of root into out (env added to its
// environment) and returns once it is writing run pages into a new
// temporary directory beside out, with that directory.
func startWriting(t *testing.T, bin, root, out string, env ...string) (*exec.Cmd, string) {
	t.Helper()
	pattern := filepath.Join(filepath.Dir(out), ".agentstat-tmp-*")
	old, _ := filepath.Glob(pattern)
	cmd := exec.Command(bin, "report", root, "-o", out, "-q")
	cmd.Env = append(os.Environ(), env...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		dirs, _ := filepath.Glob(pattern)
		for _, d := range dirs {
			if m, _ := filepath.Glob(filepath.Join(d, "runs", "*")); len(m) > 10 && !slices.Contains(old, d) {
				return cmd, d
			}
		}
	}
	t.Fatal("the report wrote no run pages in 30 s")
	return nil, ""
}

// TestLargeWorkbook writes a workbook of 1.2 million tool calls (set
// AGENTSTAT_LARGE=1; it takes a minute): the Tool calls sheet continues on
// "Tool calls (2)" past Excel's row limit, and peak memory is reported.
func TestLargeWorkbook(t *testing.T) {
	if os.Getenv("AGENTSTAT_LARGE") == "" {
		t.Skip("set AGENTSTAT_LARGE=1 to write a workbook of 1.2 million tool calls")
	}
	bin := buildBinary(t)
	root := t.TempDir()
	var call strings.Builder
	for j := 0; j < 100; j++ {
		if j > 0 {
			call.WriteString(",")
		}
		fmt.Fprintf(&call, `{"call_id":"c%d","tool_name":"Tool%d","started_at":"2026-03-01T10:%02d:%02dZ","duration_ms":%d,"output":{"status":"success"}}`, j, j%17, j/60, j%60, 10+j)
	}
	for i := 0; i < 12000; i++ {
		doc := fmt.Sprintf(`{"session_id":"s%05d","status":"success","created_at":"2026-03-01T10:00:00Z","tool_calls":[%s]}`, i, call.String())
		os.WriteFile(filepath.Join(root, fmt.Sprintf("s%05d.json", i)), []byte(doc), 0o644)
	}
	out := filepath.Join(t.TempDir(), "r")
	cmd := exec.Command(bin, "report", root, "-o", out, "-q", "-f", "xlsx")
	start := time.Now()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, b)
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss >> 10
	st, _ := os.Stat(filepath.Join(out, "report.xlsx"))
	t.Logf("1,200,000 tool calls: %s, report.xlsx %d MB, peak RSS %d MB", time.Since(start).Round(time.Second), st.Size()>>20, rss)
	zr, err := zip.OpenReader(filepath.Join(out, "report.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	wb, _ := zr.Open("xl/workbook.xml")
	b, _ := io.ReadAll(wb)
	if !bytes.Contains(b, []byte(`name="Tool calls (2)"`)) {
		t.Errorf("no second Tool calls sheet: %s", b)
	}
}

// A pipe named as a root (… | agentstat summary /dev/stdin) is read as its
// writer writes, however slowly, not failed as "temporarily unavailable".
func TestPipeRoot(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	log, err := os.ReadFile("../../testdata/logs/session/seed-annotated.json")
	if err != nil {
		t.Skip(err)
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		w.Write(log)
		w.Close()
	}()
	var out, errs bytes.Buffer
	code := run([]string{"summary", "--json", fmt.Sprintf("/proc/self/fd/%d", r.Fd())}, &out, &errs)
	if code != 0 || !strings.Contains(out.String(), `"files_parsed": 1`) {
		t.Fatalf("exit %d, stderr %s\n%.400s", code, errs.String(), out.String())
	}
}

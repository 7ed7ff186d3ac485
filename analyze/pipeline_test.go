package analyze

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentstat/agentstat/discover"
	"github.com/agentstat/agentstat/logformat"
	"github.com/agentstat/agentstat/model"
)

const testdataLogs = "../testdata/logs"

func analyzeOpt(t *testing.T, opt Options) *Report {
	t.Helper()
	if opt.Now.IsZero() {
		opt.Now = time.Unix(0, 0)
	}
	r, err := Analyze(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	in := r.Summary.Inputs
	if in.FilesSeen != in.FilesParsed+in.FilesSkipped+in.FilesFiltered {
		t.Errorf("files seen %d != parsed %d + skipped %d + filtered %d", in.FilesSeen, in.FilesParsed, in.FilesSkipped, in.FilesFiltered)
	}
	return r
}

func skippedMap(r *Report) map[string]string {
	m := map[string]string{}
	for _, s := range r.Summary.Inputs.Skipped {
		m[s.Path] = s.Reason
	}
	return m
}

// TestTestdata checks the accounting of testdata/logs, worked out by hand
// from its files (testdata/README.md lists them).
func TestTestdata(t *testing.T) {
	r := analyzeOpt(t, Options{Roots: []string{testdataLogs}})
	in := r.Summary.Inputs
	// 43 files, of which notes.txt is not a log name: 42 seen.
	if in.FilesSeen != 42 || in.FilesParsed != 33 || in.FilesSkipped != 9 {
		t.Errorf("seen %d parsed %d skipped %d", in.FilesSeen, in.FilesParsed, in.FilesSkipped)
	}
	want := map[string]string{
		"broken/binary.json": logformat.ReasonInvalidJSON, "broken/empty.json": logformat.ReasonEmpty,
		"broken/latin1.json": logformat.ReasonNotUTF8, "broken/nan.json": "", // NaN is read as null, with a warning
		"broken/truncated.json": logformat.ReasonTruncated, "broken/unknown.json": logformat.ReasonUnknown,
		"broken/whitespace.json": logformat.ReasonEmpty, "session/invalid-unescaped-quotes.json": logformat.ReasonInvalidJSON,
		"planagent/plan_agent-progress-plan-nobody.json": logformat.ReasonOrphan,
		"structmsg/conversation-without-structure.json":  logformat.ReasonNoRuns,
	}
	got := skippedMap(r)
	for p, reason := range want {
		if got[p] != reason {
			t.Errorf("%s: %q, want %q", p, got[p], reason)
		}
	}
	byFormat := map[string]int64{"planexec": 3, "session": 10, "debugbundle": 3, "planagent": 6, "structmsg": 3, "claudecode": 4, "codex": 2, "otel": 1, "gemini": 1}
	for f, n := range byFormat {
		if in.ByFormat[f] != n {
			t.Errorf("files parsed as %s = %d, want %d", f, in.ByFormat[f], n)
		}
	}
	// runs: planexec 3, session 11 (the .jsonl holds 2; broken/nan.json 1), debugbundle 3, planagent 2 (the plan, the lone batch),
	// structmsg 4, claudecode 2 (one session over three files, one 2.1 session), codex 2, otel 1, gemini 1
	runs := map[string]int64{"planexec": 3, "session": 11, "debugbundle": 3, "planagent": 2, "structmsg": 4, "claudecode": 2, "codex": 2, "otel": 1, "gemini": 1}
	for f, n := range runs {
		if r.Summary.Runs.ByFormat[f] != n {
			t.Errorf("runs of %s = %d, want %d", f, r.Summary.Runs.ByFormat[f], n)
		}
	}
	if r.Summary.Runs.Total != 29 || r.Runs.Len() != 29 {
		t.Errorf("runs = %d, index %d", r.Summary.Runs.Total, r.Runs.Len())
	}
}

func corpusDir(t *testing.T) string {
	dir := filepath.Join("..", "..", "shared", "corpus")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no corpus at %s: %v", dir, err)
	}
	return dir
}

// TestCorpus reads the real files other projects wrote: each is parsed or
// skipped with a reason; the formats not yet read count as unknown.
func TestCorpus(t *testing.T) {
	r := analyzeOpt(t, Options{Roots: []string{corpusDir(t)}})
	s := r.Summary
	skipped := skippedMap(r)
	for _, p := range []string{"not-a-log/myagent-legacy-data-conversations.json", "not-a-log/myagent-legacy-data-message_history.json"} {
		if skipped[p] != logformat.ReasonUnknown {
			t.Errorf("%s: %q, want unknown format", p, skipped[p])
		}
	}
	for p, reason := range skipped {
		dir := p[:strings.IndexByte(p, '/')]
		switch dir {
		case "not-a-log", "otel": // otel: the OTLP logs example is not a trace
			if reason != logformat.ReasonUnknown {
				t.Errorf("%s: %q", p, reason)
			}
		default:
			t.Errorf("a seed-format file was skipped: %s (%s)", p, reason)
		}
	}
	// 20 session files, 2 planexec, 1 debugbundle: one run each.
	if s.Runs.ByFormat["session"] != 20 || s.Runs.ByFormat["planexec"] != 2 || s.Runs.ByFormat["debugbundle"] != 1 {
		t.Errorf("runs by format = %v", s.Runs.ByFormat)
	}
	// tool_calls entries counted file by file, plus the five nested v2.x calls of 002-context-flow-chart.
	if got := s.Formats[len(s.Formats)-1]; got.Format != "session" || got.ToolCalls != 242 {
		t.Errorf("session tool calls = %+v", got)
	}
	// Claude Code: 7 files, 5 sessions; tool calls and errors counted independently (a
	// Python walk of the main chains); tokens per day as ccusage 20.0.24 reports them.
	if s.Runs.ByFormat["claudecode"] != 5 || s.Inputs.ByFormat["claudecode"] != 7 {
		t.Errorf("claudecode: %d runs from %d files", s.Runs.ByFormat["claudecode"], s.Inputs.ByFormat["claudecode"])
	}
	for _, f := range s.Formats {
		// Two of the 17 failed results are the user's rejections: cancelled, not errors.
		if f.Format == "claudecode" && (f.ToolCalls != 260 || f.Errors != 15) {
			t.Errorf("claudecode calls %d errors %d, want 260 and 15", f.ToolCalls, f.Errors)
		}
	}
	ccusage := map[string]TokenCounts{
		"2025-06-08": {Input: 205, Output: 19035, CacheRead: 4257841, CacheCreation: 190624},
		"2026-02-10": {Input: 3, Output: 13, CacheRead: 11515, CacheCreation: 13835},
		"2026-02-12": {Input: 2588, Output: 32613, CacheRead: 11969090, CacheCreation: 328450},
	}
	for _, d := range s.Daily {
		if want, ok := ccusage[d.Date]; ok {
			got := d.TokensByKind
			if got.Input != want.Input || got.Output != want.Output || got.CacheRead != want.CacheRead || got.CacheCreation != want.CacheCreation {
				t.Errorf("%s tokens %+v, ccusage %+v", d.Date, got, want)
			}
		}
	}
	// Codex: 3 rollouts, 4 sessions (the composite fixture holds two); tokens per day as
	// ccusage 20.0.24 (codex daily) reports them.
	if s.Inputs.ByFormat["codex"] != 3 || s.Runs.ByFormat["codex"] != 4 {
		t.Errorf("codex: %d files, %d runs", s.Inputs.ByFormat["codex"], s.Runs.ByFormat["codex"])
	}
	ccusage["2026-02-23"] = TokenCounts{Input: 130473, Output: 15031, CacheRead: 1655424}
	ccusage["2026-08-03"] = TokenCounts{Input: 12757, Output: 81, CacheRead: 3584}
	for _, d := range s.Daily {
		if want, ok := ccusage[d.Date]; ok && (d.Date == "2026-02-23" || d.Date == "2026-08-03") {
			if got := d.TokensByKind; got.Input != want.Input || got.Output != want.Output || got.CacheRead != want.CacheRead {
				t.Errorf("%s codex tokens %+v, ccusage %+v", d.Date, got, want)
			}
		}
	}
	// OpenTelemetry: three trace exports (the logs example is unknown); tokens of model-call
	// spans only: Strands' two chat spans (GenAI input includes the cache) and Claude Code's
	// three llm_request spans, worked out from the files by hand.
	if s.Inputs.ByFormat["otel"] != 3 || skipped["otel/otel-proto_examples_logs.json"] != logformat.ReasonUnknown {
		t.Errorf("otel files: %d", s.Inputs.ByFormat["otel"])
	}
	for _, f := range s.Formats {
		if f.Format == "otel" && (f.Runs != 3 || f.ToolCalls != 2 || f.Tokens != (TokenCounts{Total: 2288, Input: 250 + 477, Output: 95 + 166, CacheRead: 84 + 1216})) {
			t.Errorf("otel = %+v", f)
		}
	}
	// Gemini: a JSON session and a JSONL one; tokens per day as ccusage gemini reports them.
	if s.Inputs.ByFormat["gemini"] != 2 || s.Runs.ByFormat["gemini"] != 2 {
		t.Errorf("gemini: %d files, %d runs", s.Inputs.ByFormat["gemini"], s.Runs.ByFormat["gemini"])
	}
	for _, d := range s.Daily {
		want, ok := map[string]TokenCounts{"2026-01-16": {Input: 10, Output: 5}, "2026-04-29": {Input: 12422, Output: 228, CacheRead: 11502}}[d.Date]
		if got := d.TokensByKind; ok && (got.Input != want.Input || got.Output != want.Output || got.CacheRead != want.CacheRead) {
			t.Errorf("gemini %s tokens %+v, want %+v", d.Date, got, want)
		}
	}
	// The two jmanus documents describe the same plan.
	if s.Inputs.Warnings[logformat.WarnDuplicateRunID] != 1 {
		t.Errorf("duplicate run ids = %d", s.Inputs.Warnings[logformat.WarnDuplicateRunID])
	}
}

func TestWindow(t *testing.T) {
	// Only runs started on 2026-01-23 UTC: the two JSONL sessions and the gzipped one.
	r := analyzeOpt(t, Options{Roots: []string{testdataLogs}, Since: at("2026-01-23T00:00:00Z"), Until: at("2026-01-24T00:00:00Z")})
	s := r.Summary
	if s.Runs.Total != 3 || s.Runs.ByFormat["session"] != 3 {
		t.Errorf("runs in window = %d %v", s.Runs.Total, s.Runs.ByFormat)
	}
	if s.Inputs.RunsFiltered != 26 || s.Inputs.FilesParsed != 2 || s.Inputs.FilesFiltered != 31 {
		t.Errorf("filtered runs %d, parsed %d, filtered files %d", s.Inputs.RunsFiltered, s.Inputs.FilesParsed, s.Inputs.FilesFiltered)
	}
}

// A file whose one trace has two agents, of which the window keeps the
// later: the file is read (it fed a run kept), not filtered.
func TestWindowTraceOfTwoAgents(t *testing.T) {
	dir := t.TempDir()
	span := func(id, start string) string {
		return `{"traceId":"t","spanId":"` + id + `","name":"invoke_agent ` + id + `","startTimeUnixNano":"` + start + `","endTimeUnixNano":"` + start +
			`","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"invoke_agent"}}]}`
	}
	doc := `{"resourceSpans":[{"scopeSpans":[{"spans":[` + span("early", "1767225600000000000") + "," + span("late", "1767398400000000000") + `]}]}]}`
	if err := os.WriteFile(filepath.Join(dir, "trace.otlp.json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	s := analyzeOpt(t, Options{Roots: []string{dir}, Since: at("2026-01-02T00:00:00Z")}).Summary // 2026-01-01 and 2026-01-03
	if s.Runs.Total != 1 || s.Inputs.RunsFiltered != 1 || s.Inputs.FilesParsed != 1 || s.Inputs.FilesFiltered != 0 {
		t.Errorf("runs %d, filtered %d; files parsed %d, filtered %d", s.Runs.Total, s.Inputs.RunsFiltered, s.Inputs.FilesParsed, s.Inputs.FilesFiltered)
	}
}

// A trace split over two files, one agent's spans in each: a file counts
// by the runs it fed, not by every run of its trace.
func TestWindowTraceOverTwoFiles(t *testing.T) {
	dir := t.TempDir()
	span := func(id, start string) string {
		return `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"t","spanId":"` + id + `","name":"invoke_agent ` + id +
			`","startTimeUnixNano":"` + start + `","endTimeUnixNano":"` + start +
			`","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"invoke_agent"}}]}]}]}]}`
	}
	for name, doc := range map[string]string{"a.otlp.json": span("early", "1767225600000000000"), "b.otlp.json": span("late", "1767398400000000000")} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := analyzeOpt(t, Options{Roots: []string{dir}, Until: at("2026-01-02T00:00:00Z")}).Summary // keeps 2026-01-01's
	if s.Runs.Total != 1 || s.Inputs.RunsFiltered != 1 || s.Inputs.FilesParsed != 1 || s.Inputs.FilesFiltered != 1 {
		t.Errorf("runs %d, filtered %d; files parsed %d, filtered %d", s.Runs.Total, s.Inputs.RunsFiltered, s.Inputs.FilesParsed, s.Inputs.FilesFiltered)
	}
}

func TestSizeLimits(t *testing.T) {
	dir := t.TempDir()
	big := `{"session_id":"s","status":"success","tool_calls":[],"pad":"` + strings.Repeat("x", 70000) + `"}`
	os.WriteFile(filepath.Join(dir, "big.json"), []byte(big), 0o644)
	var bomb bytes.Buffer
	gz := gzip.NewWriter(&bomb)
	gz.Write([]byte(`{"session_id":"b","pad":"`))
	gz.Write(bytes.Repeat([]byte("0"), 10<<20))
	gz.Write([]byte(`"}`))
	gz.Close()
	os.WriteFile(filepath.Join(dir, "bomb.json.gz"), bomb.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "corrupt.json.gz"), []byte("not gzip at all"), 0o644)
	r := analyzeOpt(t, Options{Roots: []string{dir}, MaxFileSize: 64 << 10})
	got := skippedMap(r)
	if got["big.json"] != logformat.ReasonTooLarge || got["bomb.json.gz"] != logformat.ReasonTooLarge || got["corrupt.json.gz"] != logformat.ReasonUnreadable {
		t.Errorf("skipped = %v", got)
	}
	if bomb.Len() > 64<<10 {
		t.Fatalf("the bomb must be smaller than the limit compressed (%d bytes)", bomb.Len())
	}
}

// A gzipped file cut short (copied while written, a full disk): JSON Lines
// keep every line before the cut, with a warning; a document is truncated.
func TestTruncatedGzip(t *testing.T) {
	dir := t.TempDir()
	cut := func(name string, data []byte) {
		var b bytes.Buffer
		gz := gzip.NewWriter(&b)
		gz.Write(data)
		gz.Close()
		os.WriteFile(filepath.Join(dir, name), b.Bytes()[:b.Len()*2/3], 0o644)
	}
	rollout, err := os.ReadFile(filepath.Join("..", "testdata", "logs", "codex", "rollout-2026-03-06T09-00-00-rollout-one.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var lines bytes.Buffer
	for i := range 50 { // fifty sessions, so that the cut falls well after the first ones
		lines.Write(bytes.ReplaceAll(rollout, []byte(`"rollout-one"`), fmt.Appendf(nil, `"rollout-%d"`, i)))
	}
	cut("sessions.jsonl.gz", lines.Bytes())
	doc, err := os.ReadFile(filepath.Join("..", "testdata", "logs", "session", "v2-phases.json"))
	if err != nil {
		t.Fatal(err)
	}
	cut("session.json.gz", doc)
	r := analyzeOpt(t, Options{Roots: []string{dir}})
	if got := skippedMap(r); len(got) != 1 || got["session.json.gz"] != logformat.ReasonTruncated {
		t.Errorf("skipped = %v, want only the document, as truncated", got)
	}
	s := r.Summary
	if n := s.Runs.ByFormat["codex"]; n < 10 || n >= 50 {
		t.Errorf("%d Codex runs from the lines before the cut", n)
	}
	if s.Inputs.Warnings[logformat.WarnTruncatedStream] != 1 {
		t.Errorf("warnings %v", s.Inputs.Warnings)
	}
}

// A temporary output left beside the logs (by a killed run) is not read.
func TestTempOutputNotScanned(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{"session_id":"a","status":"success","tool_calls":[]}`), 0o644)
	os.MkdirAll(filepath.Join(dir, discover.TempPrefix+"tmp-123"), 0o755)
	os.WriteFile(filepath.Join(dir, discover.TempPrefix+"tmp-123", "summary.json"), []byte(`{}`), 0o644)
	r := analyzeOpt(t, Options{Roots: []string{dir}})
	if r.Summary.Inputs.FilesSeen != 1 {
		t.Errorf("seen %d files: the temporary output was scanned", r.Summary.Inputs.FilesSeen)
	}
}

// One file reached twice, through roots that overlap or a hard link, is
// read once; the second path is listed as a duplicate.
func TestDuplicateFiles(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "a.json"), []byte(`{"session_id":"a","status":"success","tool_calls":[]}`), 0o644)
	if err := os.Link(filepath.Join(sub, "a.json"), filepath.Join(dir, "z-hardlink.json")); err != nil {
		t.Skip("no hard links here:", err)
	}
	r := analyzeOpt(t, Options{Roots: []string{dir, sub}})
	in := r.Summary.Inputs
	if in.FilesSeen != 3 || in.FilesParsed != 1 || r.Runs.Len() != 1 {
		t.Errorf("seen %d, parsed %d, %d runs: want one file read once", in.FilesSeen, in.FilesParsed, r.Runs.Len())
	}
	got := skippedMap(r)
	if len(got) != 2 || got[filepath.ToSlash(dir)+"/z-hardlink.json"] != logformat.ReasonDuplicate {
		t.Errorf("skipped %v", got)
	}
}

// A root named on the command line is followed when it is a link (logs
// mounted elsewhere); a link met while walking is not.
func TestLinkedRoot(t *testing.T) {
	real := t.TempDir()
	os.WriteFile(filepath.Join(real, "a.json"), []byte(`{"session_id":"a","status":"success","tool_calls":[]}`), 0o644)
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "b.json"), []byte(`{"session_id":"b","status":"success","tool_calls":[]}`), 0o644)
	if err := os.Symlink(other, filepath.Join(real, "inner-link")); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "logs")
	if err := os.Symlink(real, root); err != nil {
		t.Fatal(err)
	}
	r := analyzeOpt(t, Options{Roots: []string{root}})
	if in := r.Summary.Inputs; in.FilesSeen != 1 || in.FilesParsed != 1 {
		t.Errorf("seen %d, parsed %d: want a.json only", in.FilesSeen, in.FilesParsed)
	}
	if r.Runs.Len() != 1 || r.Runs.At(0).Source != "a.json" {
		t.Errorf("runs %+v", r.Runs)
	}
}

func TestIncludeExclude(t *testing.T) {
	r := analyzeOpt(t, Options{Roots: []string{testdataLogs}, Include: []string{"session/**"}, Exclude: []string{"v2-*"}})
	// session/: 7 files, less v2-phases and v2-nested
	if r.Summary.Inputs.FilesSeen != 5 {
		t.Errorf("seen %d", r.Summary.Inputs.FilesSeen)
	}
}

func TestNoInput(t *testing.T) {
	_, err := Analyze(context.Background(), Options{Roots: []string{t.TempDir()}})
	if !errors.Is(err, ErrNoInput) {
		t.Errorf("empty root: %v", err)
	}
	_, err = Analyze(context.Background(), Options{Roots: []string{filepath.Join(t.TempDir(), "missing")}})
	if err == nil {
		t.Errorf("missing root accepted")
	}
}

// The same input gives the same summary whatever the number of workers.
func TestDeterministicAcrossJobs(t *testing.T) {
	var first []byte
	for _, jobs := range []int{1, 2, 7} {
		r := analyzeOpt(t, Options{Roots: []string{testdataLogs}, Jobs: jobs})
		var b bytes.Buffer
		enc := jsonEncoder(&b)
		enc.Encode(r.Summary)
		enc.Encode(r.Runs.Rows())
		if first == nil {
			first = b.Bytes()
		} else if !bytes.Equal(first, b.Bytes()) {
			t.Fatalf("jobs=%d gives other bytes", jobs)
		}
	}
}

// Joined runs are folded and spilled in chunks as the join completes them:
// however small the chunks, the summary, the run index and the run details
// (runs, calls and their order) are those of one chunk for the whole join,
// and without details (each run folded at once) the same summary and index.
func TestJoinedChunks(t *testing.T) {
	roots := []string{testdataLogs}
	if _, err := os.Stat(filepath.Join("..", "..", "shared", "corpus")); err == nil {
		roots = append(roots, filepath.Join("..", "..", "shared", "corpus"))
	}
	defer func(n int) { joinedChunk = n }(joinedChunk)
	var first []byte
	for _, size := range []int{1 << 30, 1, 40} {
		joinedChunk = size
		r := analyzeOpt(t, Options{Roots: roots, KeepDetails: true, Jobs: 2})
		var b bytes.Buffer
		enc := jsonEncoder(&b)
		enc.Encode(r.Summary)
		enc.Encode(r.Runs.Rows())
		// Without details, every run is folded as soon as it is joined.
		var lean bytes.Buffer
		nr := analyzeOpt(t, Options{Roots: roots, Jobs: 2})
		jsonEncoder(&lean).Encode(nr.Summary)
		jsonEncoder(&lean).Encode(nr.Runs.Rows())
		if !bytes.Equal(lean.Bytes(), b.Bytes()) {
			t.Fatalf("chunks of %d: other results without details", size)
		}
		n := 0
		for run, err := range r.Details.All() {
			if err != nil {
				t.Fatal(err)
			}
			enc.Encode(run)
			n++
		}
		files := len(r.Details.files)
		r.Details.Close()
		if int64(n) != r.Summary.Runs.Total || (size == 1 && files < 2) {
			t.Fatalf("chunks of %d: %d details for %d runs, in %d files", size, n, r.Summary.Runs.Total, files)
		}
		if first == nil {
			first = b.Bytes()
		} else if !bytes.Equal(first, b.Bytes()) {
			t.Fatalf("chunks of %d give other results", size)
		}
	}
}

func jsonEncoder(b *bytes.Buffer) *json.Encoder { return json.NewEncoder(b) }

// FuzzSafeName: a page name made from any run id is a portable, harmless file name.
// Page names are never a name Windows reads as a device, with or without
// an extension.
func TestSafeNameNotDevice(t *testing.T) {
	for in, want := range map[string]string{
		"nul.html": "run-nul.html", "LPT1.txt": "run-LPT1.txt", "con": "run-con", "Aux.tar.gz": "run-Aux.tar.gz",
		"com0": "run-com0", "lpt10": "lpt10", "console": "console", "nul-1": "nul-1", "COM": "COM",
	} {
		if got := SafeName(in, 48); got != want {
			t.Errorf("SafeName(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzSafeName(f *testing.F) {
	for _, s := range []string{"../../etc/passwd", "CON", "a\x00b\nc", strings.Repeat("x", 5000), "..", ".hidden", "日本語", "", "nul.html", "LPT1.txt", "com7." + strings.Repeat("y", 60)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := SafeName(s, 48)
		if n == "" || len(n) > 48 || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "-") || windowsDevice(n) {
			t.Fatalf("SafeName(%q) = %q", s, n)
		}
		for _, c := range n {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
				t.Fatalf("SafeName(%q) = %q has %q", s, n, c)
			}
		}
	})
}

// TestCcusageCrossCheck runs ccusage (npm, 20.0.24), the counter people trust,
// over the corpus's Claude Code transcripts and requires the same input,
// output and cache tokens per day. AGENTSTAT_CCUSAGE names its binary (CI sets
// it, with AGENTSTAT_REQUIRE_CCUSAGE); without it the test skips.
func TestCcusageCrossCheck(t *testing.T) {
	bin := os.Getenv("AGENTSTAT_CCUSAGE")
	if bin == "" {
		if os.Getenv("AGENTSTAT_REQUIRE_CCUSAGE") != "" {
			t.Fatal("AGENTSTAT_CCUSAGE is not set")
		}
		t.Skip("set AGENTSTAT_CCUSAGE to a ccusage 20.0.24 binary to cross-check token counts")
	}
	src := filepath.Join(corpusDir(t), "claudecode")
	cfg := t.TempDir()
	dst := filepath.Join(cfg, "projects", "corpus")
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, _ := os.ReadFile(p)
		os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755)
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	cmd := exec.Command(bin, "daily", "--offline", "--json", "--breakdown", "-z", "UTC")
	cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR="+cfg)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ccusage: %v", err)
	}
	type ccTokens struct {
		ModelName                                                       string
		InputTokens, OutputTokens, CacheReadTokens, CacheCreationTokens int64
		Cost                                                            float64
	}
	var cc struct {
		Daily []struct {
			Period string
			ccTokens
			ModelBreakdowns []ccTokens
		}
	}
	if err := json.Unmarshal(out, &cc); err != nil || len(cc.Daily) == 0 {
		t.Fatalf("ccusage output: %v\n%.500s", err, out)
	}
	// Codex rollouts, under $CODEX_HOME/sessions.
	codexHome := t.TempDir()
	codexSrc := filepath.Join(corpusDir(t), "codex")
	entries, _ := os.ReadDir(codexSrc)
	os.MkdirAll(filepath.Join(codexHome, "sessions", "2026", "01", "01"), 0o755)
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(codexSrc, e.Name()))
		name := e.Name()
		if i := strings.Index(name, "rollout-"); i >= 0 {
			name = name[i:]
		} else {
			name = "rollout-" + name
		}
		os.WriteFile(filepath.Join(codexHome, "sessions", "2026", "01", "01", name), b, 0o644)
	}
	cmd = exec.Command(bin, "codex", "daily", "--offline", "--json", "-z", "UTC")
	cmd.Env = append(os.Environ(), "CODEX_HOME="+codexHome)
	codexOut, err := cmd.Output()
	if err != nil {
		t.Fatalf("ccusage codex: %v", err)
	}
	var cx struct {
		Daily []struct {
			Date                                       string
			InputTokens, OutputTokens, CacheReadTokens int64
		}
	}
	if err := json.Unmarshal(codexOut, &cx); err != nil || len(cx.Daily) == 0 {
		t.Fatalf("ccusage codex output: %v\n%.500s", err, codexOut)
	}
	rc := analyzeOpt(t, Options{Roots: []string{codexSrc}})
	codexDays := map[string]TokenCounts{}
	for _, d := range rc.Summary.Daily {
		codexDays[d.Date] = d.TokensByKind
	}
	for _, d := range cx.Daily {
		if got := codexDays[d.Date]; got.Input != d.InputTokens || got.Output != d.OutputTokens || got.CacheRead != d.CacheReadTokens {
			t.Errorf("codex %s: agentstat %+v, ccusage %+v", d.Date, got, d)
		}
	}

	// Gemini CLI sessions, under $GEMINI_DATA_DIR/tmp/<project hash>/chats.
	gemSrc := filepath.Join(corpusDir(t), "gemini")
	gemDir := t.TempDir()
	chats := filepath.Join(gemDir, "tmp", "0b7dfb1274ee51b336813b17f2ddab1f56b6591f723e7314126bbd502c69e9c9", "chats")
	os.MkdirAll(chats, 0o755)
	gemEntries, _ := os.ReadDir(gemSrc)
	for _, e := range gemEntries {
		b, _ := os.ReadFile(filepath.Join(gemSrc, e.Name()))
		os.WriteFile(filepath.Join(chats, "session-"+e.Name()), b, 0o644)
	}
	cmd = exec.Command(bin, "gemini", "daily", "--offline", "--json", "-z", "UTC")
	cmd.Env = append(os.Environ(), "GEMINI_DATA_DIR="+gemDir)
	gemOut, err := cmd.Output()
	if err != nil {
		t.Fatalf("ccusage gemini: %v", err)
	}
	if err := json.Unmarshal(gemOut, &cx); err != nil || len(cx.Daily) == 0 {
		t.Fatalf("ccusage gemini output: %v\n%.500s", err, gemOut)
	}
	gemDays := map[string]TokenCounts{}
	for _, d := range analyzeOpt(t, Options{Roots: []string{gemSrc}}).Summary.Daily {
		gemDays[d.Date] = d.TokensByKind
	}
	for _, d := range cx.Daily {
		if got := gemDays[d.Date]; got.Input != d.InputTokens || got.Output != d.OutputTokens || got.CacheRead != d.CacheReadTokens {
			t.Errorf("gemini %s: agentstat %+v, ccusage %+v", d.Date, got, d)
		}
	}

	// Claude Code: tokens per day, and per model per day (requests dated by
	// their own time, each counted by the model that made it).
	acc, err := Accumulate(context.Background(), Options{Roots: []string{src}, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	r := acc.Report(Options{Location: time.UTC})
	days := map[string]TokenCounts{}
	for _, d := range r.Summary.Daily {
		days[d.Date] = d.TokensByKind
	}
	models := 0
	costs := map[string]map[string]float64{}
	for _, d := range r.Summary.Daily {
		costs[d.Date] = d.CostByModel
	}
	for _, d := range cc.Daily {
		got := days[d.Period]
		if got.Input != d.InputTokens || got.Output != d.OutputTokens || got.CacheRead != d.CacheReadTokens || got.CacheCreation != d.CacheCreationTokens {
			t.Errorf("%s: agentstat %+v, ccusage %+v", d.Period, got, d)
		}
		byModel := map[string]model.Tokens{}
		for k, u := range acc.days[d.Period].usage {
			v := byModel[k.Model]
			v.Add(u)
			byModel[k.Model] = v
		}
		for _, m := range d.ModelBreakdowns {
			models++
			got := byModel[m.ModelName]
			if got.Input != m.InputTokens || got.Output != m.OutputTokens || got.CacheRead != m.CacheReadTokens || got.CacheCreation != m.CacheCreationTokens {
				t.Errorf("%s %s: agentstat %+v, ccusage %+v", d.Period, m.ModelName, got, m)
			}
			// Both price 1-hour cache writes at twice the input price; they part
			// only above 200,000 prompt tokens (docs/metrics.md), which no request here reaches.
			if c := costs[d.Period][m.ModelName]; math.Abs(c-m.Cost) > 1e-6 {
				t.Errorf("%s %s: cost $%.7f, ccusage $%.7f", d.Period, m.ModelName, c, m.Cost)
			}
			delete(byModel, m.ModelName)
		}
		for name, got := range byModel {
			t.Errorf("%s %s: agentstat %+v, not in ccusage", d.Period, name, got)
		}
	}
	if models < 5 {
		t.Errorf("ccusage broke %d day-and-model pairs down, want 5 or more", models)
	}
}

// With no writable temporary directory (a read-only sandbox running
// /report), the summary still comes out: Claude Code records stay in memory.
func TestNoTempDir(t *testing.T) {
	want := analyzeOpt(t, Options{Roots: []string{filepath.Join("..", "testdata", "logs")}})
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	got := analyzeOpt(t, Options{Roots: []string{filepath.Join("..", "testdata", "logs")}})
	if !reflect.DeepEqual(got.Summary, want.Summary) || got.Runs.Len() == 0 {
		t.Errorf("without a temporary directory the summary differs (%d runs)", got.Runs.Len())
	}
}

// Each warning kind names the first file by path that raised it, whatever
// the number of workers; only checks across files (duplicate run ids)
// name none.
func TestWarningFiles(t *testing.T) {
	var first map[string]string
	for _, jobs := range []int{1, 2, 3} {
		in := analyzeOpt(t, Options{Roots: []string{testdataLogs}, Jobs: jobs}).Summary.Inputs
		if first == nil {
			first = in.WarningFiles
		} else if !maps.Equal(first, in.WarningFiles) {
			t.Errorf("%d workers: %v, with one %v", jobs, in.WarningFiles, first)
		}
		for kind := range in.Warnings {
			if _, ok := in.WarningFiles[kind]; !ok && kind != logformat.WarnDuplicateRunID {
				t.Errorf("%s: no file", kind)
			}
		}
	}
	// invalid_line and unknown_line both come from broken/sessions.jsonl, the only file with either.
	for kind, want := range map[string]string{logformat.WarnBadNumber: "broken/nan.json", logformat.WarnInvalidLine: "broken/sessions.jsonl"} {
		if first[kind] != want {
			t.Errorf("%s: %q, want %q", kind, first[kind], want)
		}
	}
}

// A session long enough to be folded a part of its calls at a time has
// its calls' texts redacted all the same, and its calls in order: with
// chunks of 1 its parts (two: more calls than a part holds) are made on a
// goroutine of their own while the one before is folded (partsAhead; -race
// sees a part overwritten while it is folded).
func TestLongSessionRedacted(t *testing.T) {
	const secret = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
	const n = 4100
	var b strings.Builder
	line := func(uuid string, at int, msg, extra string) {
		fmt.Fprintf(&b, `{"sessionId":"s-long","type":"x","uuid":%q,"timestamp":"2026-03-05T%02d:%02d:%02dZ","message":%s%s}`+"\n", uuid, 10+at/3600, at/60%60, at%60, msg, extra)
	}
	line("u0", 0, `{"role":"user","content":"go"}`, "")
	for i := range n {
		line(fmt.Sprint("a", i), 1+2*i, fmt.Sprintf(`{"role":"assistant","content":[{"type":"tool_use","id":"t%d","name":"Bash","input":{}}]}`, i), "")
		line(fmt.Sprint("r", i), 2+2*i, fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","is_error":true,"content":"x"}]}`, i),
			fmt.Sprintf(`,"toolUseResult":"Error: token `+secret+` rejected in call %d"`, i))
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s-long.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func(n int) { joinedChunk = n }(joinedChunk)
	for _, size := range []int{1 << 30, 1} {
		joinedChunk = size
		r := analyzeOpt(t, Options{Roots: []string{dir}, KeepDetails: true})
		if got := r.Summary.Inputs.Redacted; got != n {
			t.Errorf("chunks of %d: %d values redacted, want %d", size, got, n)
		}
		calls := 0
		for run, err := range r.Details.All() {
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range run.ToolCalls {
				if strings.Contains(c.Error, secret) || !strings.Contains(c.Error, "[redacted]") || !strings.HasSuffix(c.Error, fmt.Sprint(" call ", calls)) {
					t.Fatalf("chunks of %d: call %d error %q", size, calls, c.Error)
				}
				calls++
			}
		}
		r.Details.Close()
		if calls != n {
			t.Errorf("chunks of %d: %d calls in the details, want %d", size, calls, n)
		}
		if got := analyzeOpt(t, Options{Roots: []string{dir}}).Summary.Inputs.Redacted; got != n {
			t.Errorf("chunks of %d, no details: %d values redacted, want %d", size, got, n)
		}
	}
}

// A bundle's calls are made as they are folded; a run the window leaves
// out, or a file skipped whole, still counts the warnings its calls raise.
func TestUnfoldedCallsWarn(t *testing.T) {
	bundle := func(tail string) string {
		return `{"state":{"id":"b","createdAt":"2026-03-05T10:00:00Z"},"events":{"events":[
{"id":"e1","timestamp":1772704800000,"type":"tool_call","nodeId":"n","status":"info","metadata":{"toolName":"sh"}},
{"id":"e2","timestamp":1772704700000,"type":"tool_result","nodeId":"n","status":"success","metadata":{"toolName":"sh"}}]}}` + tail
	}
	// Expanded past --max-file-size only after the bundle was read: the file is skipped.
	var big bytes.Buffer
	zw := gzip.NewWriter(&big)
	zw.Write([]byte(bundle(strings.Repeat(" ", 8000))))
	zw.Close()
	dir := t.TempDir()
	for name, content := range map[string]string{"kept/b.json": bundle(""), "cut/b.json.gz": big.String()} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		root  string
		since time.Time
		runs  int64
	}{
		{"kept", time.Time{}, 1},
		{"kept", time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), 0}, // the run is left out
		{"cut", time.Time{}, 0},                                  // the file is skipped
	} {
		r, err := Analyze(context.Background(), Options{Roots: []string{filepath.Join(dir, tc.root)}, Since: tc.since, Now: time.Unix(0, 0), MaxFileSize: 4000})
		if err != nil {
			t.Fatal(err)
		}
		in := r.Summary.Inputs
		if got := in.Warnings[logformat.WarnNegativeDuration]; r.Summary.Runs.Total != tc.runs || got != 1 || (tc.root == "cut") != (in.FilesSkipped == 1) {
			t.Errorf("%s since %v: %d runs, %d negative durations, %d files skipped; want %d, 1", tc.root, tc.since, r.Summary.Runs.Total, got, in.FilesSkipped, tc.runs)
		}
	}
}

// Pages gives All's runs whether a run's calls come whole or are read in
// chunks, read only in part, or not read at all.
func TestDetailPages(t *testing.T) {
	defer func(n int) { callChunk = n }(callChunk)
	callChunk = 2 // runs of several chunks
	r := analyzeOpt(t, Options{Roots: []string{testdataLogs}, KeepDetails: true, Jobs: 2})
	defer r.Details.Close()
	var want []*model.Run
	for run, err := range r.Details.All() {
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, run)
	}
	for _, mode := range []string{"whole", "read", "first chunk", "skipped"} {
		whole := 0
		if mode == "whole" {
			whole = 1 << 30
		}
		i, long := 0, 0
		for pr, err := range r.Details.Pages(whole) {
			if err != nil {
				t.Fatal(err)
			}
			w := want[i]
			i++
			if pr.Calls != len(w.ToolCalls) || (pr.Read == nil) != (pr.Calls <= whole) {
				t.Fatalf("%s: run %s: %d calls, read %v", mode, w.ID, pr.Calls, pr.Read != nil)
			}
			got := pr.Run
			if pr.Read != nil {
				long++
				switch mode {
				case "read":
					err = pr.Read(func(chunk []model.ToolCall) bool { got.ToolCalls = append(got.ToolCalls, chunk...); return true })
				case "first chunk":
					err = pr.Read(func(chunk []model.ToolCall) bool { got.ToolCalls = append(got.ToolCalls, chunk[:1]...); return false })
					w = &model.Run{}
					*w = *want[i-1]
					w.ToolCalls = w.ToolCalls[:1]
				case "skipped":
					w = &model.Run{}
					*w = *want[i-1]
					w.ToolCalls = nil
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if !reflect.DeepEqual(got, w) {
				t.Fatalf("%s: run %s differs", mode, w.ID)
			}
		}
		if i != len(want) || (mode != "whole" && long == 0) {
			t.Fatalf("%s: %d runs of %d, %d long", mode, i, len(want), long)
		}
	}
}

// A run-details spill cut short gives Pages' caller an error, however it
// stops (on Read's error, or at its first long run), and never a yield
// after it stopped.
func TestDetailPagesCut(t *testing.T) {
	defer func(n int) { callChunk = n }(callChunk)
	callChunk = 2
	size := int64(0)
	for cut := int64(1); size == 0 || cut < size; cut += max(size/60, 1) {
		for _, stop := range []string{"on error", "at the first long run"} {
			r := analyzeOpt(t, Options{Roots: []string{testdataLogs}, KeepDetails: true, Jobs: 1})
			f := r.Details.files[0] // the worker's: its runs come first
			if fi, err := f.Stat(); err != nil {
				t.Fatal(err)
			} else {
				size = fi.Size()
			}
			f.Truncate(cut)
			var failed error
			for pr, err := range r.Details.Pages(0) {
				if err != nil {
					failed = err
					break
				}
				if pr.Read == nil {
					continue
				}
				if stop == "at the first long run" {
					break
				}
				if err := pr.Read(func([]model.ToolCall) bool { return true }); err != nil {
					failed = err
					break
				}
			}
			r.Details.Close()
			if stop == "on error" && failed == nil {
				t.Errorf("cut at %d of %d: no error", cut, size)
			}
		}
	}
}

// The raw document path, taken for every document, gives the report the
// token path gives: on the test data (whose broken files it gives up on and
// reads again), a bundle with a surrogate escape, and a file over the size
// limit.
func TestRawDocumentsReread(t *testing.T) {
	dir := t.TempDir()
	// Padded so that reading it twice would pass the 64 KiB limit below.
	bundle := `{"pad":"` + strings.Repeat("p", 40000) + `","state":{"id":"r1","status":"completed"},"events":[{"id":"e1","timestamp":1702886400000,"type":"tool_call","metadata":{"toolName":"t"}},` +
		`{"id":"e2","timestamp":1702886400500,"type":"tool_result","status":"success","summary":"\ud83d\ude80","metadata":{"toolName":"t"}}]}`
	os.WriteFile(filepath.Join(dir, "escaped.json"), []byte(bundle), 0o644)
	os.WriteFile(filepath.Join(dir, "big.json"), []byte(`{"session_id":"s","pad":"`+strings.Repeat("x", 70000)+`"}`), 0o644)
	report := func(from int64, root string, limit int64) []byte {
		defer func(n int64) { rawDocumentsFrom = n }(rawDocumentsFrom)
		rawDocumentsFrom = from
		r := analyzeOpt(t, Options{Roots: []string{root}, MaxFileSize: limit})
		b, err := json.Marshal(r.Summary)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, root := range []string{testdataLogs, dir} {
		for _, limit := range []int64{0, 64 << 10} {
			raw, token := report(-1, root, limit), report(math.MaxInt64, root, limit)
			if !bytes.Equal(raw, token) {
				t.Errorf("%s, limit %d: the raw path's summary differs:\n%s\n%s", root, limit, raw, token)
			}
		}
	}
}

// Warnings the join raises (here a call whose result is stamped before its
// use) reach the summary, whether the session's calls come whole or in
// parts, with details or without: the join counts them on a goroutine of
// its own.
func TestJoinWarnings(t *testing.T) {
	var b strings.Builder
	line := func(uuid, at, msg string) {
		fmt.Fprintf(&b, `{"sessionId":"s-warn","type":"x","uuid":%q,"timestamp":"2026-03-05T10:00:%sZ","message":%s}`+"\n", uuid, at, msg)
	}
	line("u0", "00", `{"role":"user","content":"go"}`)
	line("r0", "01", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t0","content":"ok"}]}`)
	line("a0", "05", `{"role":"assistant","content":[{"type":"tool_use","id":"t0","name":"Bash","input":{}}]}`)
	line("a1", "06", `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}]}`)
	line("r1", "07", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}`)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s-warn.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func(n int) { joinedChunk = n }(joinedChunk)
	for _, size := range []int{1 << 30, 1} {
		joinedChunk = size
		for _, details := range []bool{true, false} {
			r := analyzeOpt(t, Options{Roots: []string{dir}, KeepDetails: details})
			if got := r.Summary.Inputs.Warnings[logformat.WarnNegativeDuration]; got != 1 {
				t.Errorf("chunks of %d, details %v: %d %s warnings, want 1", size, details, got, logformat.WarnNegativeDuration)
			}
			if r.Summary.Runs.Total != 1 || r.Summary.ToolCalls.Total != 2 {
				t.Errorf("chunks of %d, details %v: %d runs, %d calls; want 1, 2", size, details, r.Summary.Runs.Total, r.Summary.ToolCalls.Total)
			}
			if r.Details != nil {
				r.Details.Close()
			}
		}
	}
}

// The join hands over no more calls than a chunk holds before the fold
// takes them in, but a run larger than that alone.
func TestCallBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newCallBudget()
		b.take(joinedChunk - 1)
		took := make(chan struct{})
		go func() {
			b.take(5)
			close(took)
		}()
		synctest.Wait()
		select {
		case <-took:
			t.Fatal("took past the bound")
		default:
		}
		b.give(joinedChunk - 1)
		synctest.Wait()
		select {
		case <-took:
		default:
			t.Fatal("not woken when the calls were taken in")
		}
		b.give(5)
		b.take(3 * joinedChunk) // alone: nothing else is out
		b.give(3 * joinedChunk)
	})
}

// A log whose times are one to two minutes west of UTC (an offset Go's
// binary form of a time reserves) is kept in the run details like any
// other, not a failure of the whole report. Such a time comes from a zone
// written in the log ("-00:01"), or from a zone-less time read in --tz
// where it has such an offset (Europe/London's local mean time before
// 1847, -00:01:15; a fixed zone stands for it here, tzdata or not).
func TestDetailsKeepEveryZone(t *testing.T) {
	const log = `{"session_id": "z", "status": "success", "created_at": "2026-03-01T10:00:00%[1]s", "completed_at": "2026-03-01T10:00:05+23:59",
	 "tool_calls": [{"call_id": "1", "tool_name": "Read", "started_at": "2026-03-01T10:00:01%[1]s", "duration_ms": 100, "output": {"status": "success"}}]}`
	for _, tc := range []struct {
		zone string
		tz   *time.Location
		west time.Duration
	}{
		{"-00:01", time.UTC, time.Minute},
		{"", time.FixedZone("LMT", -75), 75 * time.Second},
		{"", time.FixedZone("", -119), 119 * time.Second},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "z.json"), fmt.Appendf(nil, log, tc.zone), 0o644); err != nil {
			t.Fatal(err)
		}
		r := analyzeOpt(t, Options{Roots: []string{dir}, KeepDetails: true, Location: tc.tz})
		runs := 0
		for run, err := range r.Details.All() {
			if err != nil {
				t.Fatal(err)
			}
			runs++
			if want := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC).Add(tc.west); !run.Started.Equal(want) {
				t.Errorf("%q in %v: started %v, want %v", tc.zone, tc.tz, run.Started, want)
			}
			if len(run.ToolCalls) != 1 || !run.ToolCalls[0].Started.Equal(time.Date(2026, 3, 1, 10, 0, 1, 0, time.UTC).Add(tc.west)) {
				t.Errorf("%q in %v: calls %+v", tc.zone, tc.tz, run.ToolCalls)
			}
		}
		r.Details.Close()
		if runs != 1 {
			t.Errorf("%q in %v: %d runs in the details, want 1", tc.zone, tc.tz, runs)
		}
	}
}

// Without the run index the summary is the same, duplicate ids included
// (../shared/corpus repeats one), and no partial can be written from it.
func TestNoIndex(t *testing.T) {
	for _, root := range []string{testdataLogs, corpusDir(t)} {
		with := analyzeOpt(t, Options{Roots: []string{root}})
		without := analyzeOpt(t, Options{Roots: []string{root}, NoIndex: true})
		if with.Runs.Len() == 0 || without.Runs != nil {
			t.Fatalf("%s: %d runs indexed, %d without the index", root, with.Runs.Len(), without.Runs.Len())
		}
		a, b := summaryBytes(t, with), summaryBytes(t, without)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: the summary differs without the index", root)
		}
	}
	acc, err := Accumulate(context.Background(), Options{Roots: []string{testdataLogs}, NoIndex: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := acc.WritePartial(io.Discard, Options{}, PartialInfo{}); err == nil {
		t.Error("a partial written without the run index")
	}
}

func summaryBytes(t *testing.T, r *Report) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jsonEncoder(&b).Encode(r.Summary); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A file's runs past the first heldInMemory wait on a scratch file until
// the file ends: whatever the bound, the summary, the run index and the
// run details (runs, calls and their order) are the same. A file of many
// sessions, one a line, holds most of its runs there.
func TestHeldRunsOnFile(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, `{"session_id":"s%03d","status":"completed","created_at":"2026-03-01T10:%02d:00Z","tool_calls":[{"call_id":"1","tool_name":"T%d","duration_ms":%d,"output":{"status":"success"}}]}`+"\n", i, i%60, i%7, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "many.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	outcome := func() []byte {
		r := analyzeOpt(t, Options{Roots: []string{testdataLogs, dir}, Jobs: 2, KeepDetails: true})
		defer r.Details.Close()
		var out bytes.Buffer
		enc := jsonEncoder(&out)
		enc.Encode(r.Summary)
		enc.Encode(r.Runs.Rows())
		for run, err := range r.Details.All() {
			if err != nil {
				t.Fatal(err)
			}
			enc.Encode(run)
		}
		return out.Bytes()
	}
	want := outcome()
	defer func(n int) { heldInMemory = n }(heldInMemory)
	for _, n := range []int{0, 1, 7} {
		heldInMemory = n
		if got := outcome(); !bytes.Equal(got, want) {
			t.Fatalf("with %d runs of a file in memory, other outputs", n)
		}
	}
}

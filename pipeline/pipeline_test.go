package pipeline

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentstat/agentstat/discover"
	"github.com/agentstat/agentstat/internal/logsynth"
	"github.com/agentstat/agentstat/logformat"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/agentstat/agentstat/metrics"
)

const testdataLogs = "../testdata/logs"

func reportOf(t *testing.T, opt Options) *metrics.Report {
	t.Helper()
	if opt.Now.IsZero() {
		opt.Now = time.Unix(0, 0)
	}
	r, err := Report(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	in := r.Summary.Inputs
	if in.FilesSeen != in.FilesParsed+in.FilesSkipped+in.FilesFiltered {
		t.Errorf("files seen %d != parsed %d + skipped %d + filtered %d", in.FilesSeen, in.FilesParsed, in.FilesSkipped, in.FilesFiltered)
	}
	return r
}

func skippedMap(r *metrics.Report) map[string]string {
	m := map[string]string{}
	for _, s := range r.Summary.Inputs.Skipped {
		m[s.Path] = s.Reason
	}
	return m
}

// TestTestdata checks the accounting of testdata/logs, worked out by hand
// from its files (testdata/README.md lists them).
func TestTestdata(t *testing.T) {
	r := reportOf(t, Options{Roots: []string{testdataLogs}})
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
	r := reportOf(t, Options{Roots: []string{corpusDir(t)}})
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
	ccusage := map[string]metrics.TokenCounts{
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
	ccusage["2026-02-23"] = metrics.TokenCounts{Input: 130473, Output: 15031, CacheRead: 1655424}
	ccusage["2026-08-03"] = metrics.TokenCounts{Input: 12757, Output: 81, CacheRead: 3584}
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
		if f.Format == "otel" && (f.Runs != 3 || f.ToolCalls != 2 || f.Tokens != (metrics.TokenCounts{Total: 2288, Input: 250 + 477, Output: 95 + 166, CacheRead: 84 + 1216})) {
			t.Errorf("otel = %+v", f)
		}
	}
	// Gemini: a JSON session and a JSONL one; tokens per day as ccusage gemini reports them.
	if s.Inputs.ByFormat["gemini"] != 2 || s.Runs.ByFormat["gemini"] != 2 {
		t.Errorf("gemini: %d files, %d runs", s.Inputs.ByFormat["gemini"], s.Runs.ByFormat["gemini"])
	}
	for _, d := range s.Daily {
		want, ok := map[string]metrics.TokenCounts{"2026-01-16": {Input: 10, Output: 5}, "2026-04-29": {Input: 12422, Output: 228, CacheRead: 11502}}[d.Date]
		if got := d.TokensByKind; ok && (got.Input != want.Input || got.Output != want.Output || got.CacheRead != want.CacheRead) {
			t.Errorf("gemini %s tokens %+v, want %+v", d.Date, got, want)
		}
	}
	// The two jmanus documents describe the same plan.
	if s.Inputs.Warnings[reader.WarnDuplicateRunID] != 1 {
		t.Errorf("duplicate run ids = %d", s.Inputs.Warnings[reader.WarnDuplicateRunID])
	}
}

func TestWindow(t *testing.T) {
	// Only runs started on 2026-01-23 UTC: the two JSONL sessions and the gzipped one.
	r := reportOf(t, Options{Roots: []string{testdataLogs}, Settings: metrics.Settings{Scope: metrics.Scope{Since: at("2026-01-23T00:00:00Z"), Until: at("2026-01-24T00:00:00Z")}}})
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
	s := reportOf(t, Options{Roots: []string{dir}, Settings: metrics.Settings{Scope: metrics.Scope{Since: at("2026-01-02T00:00:00Z")}}}).Summary // 2026-01-01 and 2026-01-03
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
	s := reportOf(t, Options{Roots: []string{dir}, Settings: metrics.Settings{Scope: metrics.Scope{Until: at("2026-01-02T00:00:00Z")}}}).Summary // keeps 2026-01-01's
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
	r := reportOf(t, Options{Roots: []string{dir}, MaxFileSize: 64 << 10})
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
	r := reportOf(t, Options{Roots: []string{dir}})
	if got := skippedMap(r); len(got) != 1 || got["session.json.gz"] != logformat.ReasonTruncated {
		t.Errorf("skipped = %v, want only the document, as truncated", got)
	}
	s := r.Summary
	if n := s.Runs.ByFormat["codex"]; n < 10 || n >= 50 {
		t.Errorf("%d Codex runs from the lines before the cut", n)
	}
	if s.Inputs.Warnings[reader.WarnTruncatedStream] != 1 {
		t.Errorf("warnings %v", s.Inputs.Warnings)
	}
}

// A temporary output left beside the logs (by a killed run) is not read.
func TestTempOutputNotScanned(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{"session_id":"a","status":"success","tool_calls":[]}`), 0o644)
	os.MkdirAll(filepath.Join(dir, discover.TempPrefix+"tmp-123"), 0o755)
	os.WriteFile(filepath.Join(dir, discover.TempPrefix+"tmp-123", "summary.json"), []byte(`{}`), 0o644)
	r := reportOf(t, Options{Roots: []string{dir}})
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
	r := reportOf(t, Options{Roots: []string{dir, sub}})
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
	r := reportOf(t, Options{Roots: []string{root}})
	if in := r.Summary.Inputs; in.FilesSeen != 1 || in.FilesParsed != 1 {
		t.Errorf("seen %d, parsed %d: want a.json only", in.FilesSeen, in.FilesParsed)
	}
	if r.Runs.Len() != 1 || r.Runs.At(0).Source != "a.json" {
		t.Errorf("runs %+v", r.Runs)
	}
}

func TestIncludeExclude(t *testing.T) {
	r := reportOf(t, Options{Roots: []string{testdataLogs}, Include: []string{"session/**"}, Exclude: []string{"v2-*"}})
	// session/: 7 files, less v2-phases and v2-nested
	if r.Summary.Inputs.FilesSeen != 5 {
		t.Errorf("seen %d", r.Summary.Inputs.FilesSeen)
	}
}

func TestNoInput(t *testing.T) {
	_, err := Report(context.Background(), Options{Roots: []string{t.TempDir()}})
	if !errors.Is(err, ErrNoInput) {
		t.Errorf("empty root: %v", err)
	}
	_, err = Report(context.Background(), Options{Roots: []string{filepath.Join(t.TempDir(), "missing")}})
	if err == nil {
		t.Errorf("missing root accepted")
	}
}

// The same input gives the same summary whatever the number of workers.
func TestDeterministicAcrossJobs(t *testing.T) {
	var first []byte
	for _, jobs := range []int{1, 2, 7} {
		r := reportOf(t, Options{Roots: []string{testdataLogs}, Jobs: jobs})
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.Encode(r.Summary)
		enc.Encode(r.Runs.Rows())
		if first == nil {
			first = b.Bytes()
		} else if !bytes.Equal(first, b.Bytes()) {
			t.Fatalf("jobs=%d gives other bytes", jobs)
		}
	}
}

// With no writable temporary directory (a read-only sandbox running
// /report), the summary still comes out: Claude Code records stay in memory.
func TestNoTempDir(t *testing.T) {
	want := reportOf(t, Options{Roots: []string{filepath.Join("..", "testdata", "logs")}})
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	got := reportOf(t, Options{Roots: []string{filepath.Join("..", "testdata", "logs")}})
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
		in := reportOf(t, Options{Roots: []string{testdataLogs}, Jobs: jobs}).Summary.Inputs
		if first == nil {
			first = in.WarningFiles
		} else if !maps.Equal(first, in.WarningFiles) {
			t.Errorf("%d workers: %v, with one %v", jobs, in.WarningFiles, first)
		}
		for kind := range in.Warnings {
			if _, ok := in.WarningFiles[kind]; !ok && kind != reader.WarnDuplicateRunID {
				t.Errorf("%s: no file", kind)
			}
		}
	}
	// invalid_line and unknown_line both come from broken/sessions.jsonl, the only file with either.
	for kind, want := range map[string]string{reader.WarnBadNumber: "broken/nan.json", reader.WarnInvalidLine: "broken/sessions.jsonl"} {
		if first[kind] != want {
			t.Errorf("%s: %q, want %q", kind, first[kind], want)
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
		r, err := Report(context.Background(), Options{Roots: []string{filepath.Join(dir, tc.root)}, Now: time.Unix(0, 0), MaxFileSize: 4000, Settings: metrics.Settings{Scope: metrics.Scope{Since: tc.since}}})
		if err != nil {
			t.Fatal(err)
		}
		in := r.Summary.Inputs
		if got := in.Warnings[reader.WarnNegativeDuration]; r.Summary.Runs.Total != tc.runs || got != 1 || (tc.root == "cut") != (in.FilesSkipped == 1) {
			t.Errorf("%s since %v: %d runs, %d negative durations, %d files skipped; want %d, 1", tc.root, tc.since, r.Summary.Runs.Total, got, in.FilesSkipped, tc.runs)
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
		r := reportOf(t, Options{Roots: []string{root}, MaxFileSize: limit})
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
		r := reportOf(t, Options{Roots: []string{dir}, Settings: metrics.Settings{KeepDetails: true, Location: tc.tz}})
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
		with := reportOf(t, Options{Roots: []string{root}})
		without := reportOf(t, Options{Roots: []string{root}, Settings: metrics.Settings{NoIndex: true}})
		if with.Runs.Len() == 0 || without.Runs != nil {
			t.Fatalf("%s: %d runs indexed, %d without the index", root, with.Runs.Len(), without.Runs.Len())
		}
		a, b := summaryBytes(t, with), summaryBytes(t, without)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: the summary differs without the index", root)
		}
	}
	acc, err := Run(context.Background(), Options{Roots: []string{testdataLogs}, Settings: metrics.Settings{NoIndex: true}})
	if err != nil {
		t.Fatal(err)
	}
	if err := acc.WritePartial(io.Discard, metrics.PartialInfo{}); err == nil {
		t.Error("a partial written without the run index")
	}
}

func summaryBytes(t *testing.T, r *metrics.Report) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(r.Summary); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
} // BenchmarkAnalyze measures the whole pipeline over a generated 20 MB corpus.
func BenchmarkAnalyze(b *testing.B) {
	dir := b.TempDir()
	st, err := logsynth.Generate(context.Background(), dir, logsynth.Options{Size: 20e6, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Bytes)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Report(context.Background(), Options{Roots: []string{dir}}); err != nil {
			b.Fatal(err)
		}
	}
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// The same tree gives the same partial, byte for byte, however many
// workers read it and in whatever order they finished: a partial given
// twice is known by its bytes.
func TestPartialSameBytes(t *testing.T) {
	roots := []string{testdataLogs}
	if corpus := filepath.Join("..", "..", "shared", "corpus"); dirExists(corpus) {
		roots = append(roots, corpus)
	}
	var first []byte
	for _, jobs := range []int{1, 2, 3, 2, 3} {
		opt := Options{Roots: roots, Jobs: jobs, DeferJoin: true, Settings: metrics.Settings{KeepDetails: true}}
		opt.Shard = discover.Shard{Index: 1, Count: 2}
		acc, err := Run(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		err = acc.WritePartial(&b, metrics.PartialInfo{Agentstat: "test", Shard: opt.Shard.String()})
		acc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = b.Bytes()
		} else if !bytes.Equal(first, b.Bytes()) {
			t.Fatalf("-j %d: another partial of %d bytes (first %d)", jobs, b.Len(), len(first))
		}
	}
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

package logformat

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentstat/agentstat/internal/logsynth"
	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/join"
	"github.com/agentstat/agentstat/logformat/codex"
	"github.com/agentstat/agentstat/logformat/formattest"
	"github.com/agentstat/agentstat/logformat/gemini"
	"github.com/agentstat/agentstat/logformat/otel"
	"github.com/agentstat/agentstat/logformat/reader"
)

// codexInputs are Codex rollouts of every shape: generated, testdata, the
// real corpus, and one with every kind of entry in several zones, split
// over two files of one session (resumed) beside a second session.
func codexInputs(t *testing.T) map[string][]byte {
	t.Helper()
	inputs := formattest.Inputs(t, "codex", "codex/*.jsonl")
	inputs["zones-1.jsonl"] = []byte(`{"timestamp":"2026-03-06T09:00:00+08:00","type":"session_meta","payload":{"id":"z","timestamp":"2026-03-06T09:00:00+08:00"}}
{"timestamp":"2026-03-06T09:00:00","type":"turn_context","payload":{"model":"gpt-5-codex"}}
{"timestamp":"2026-03-06T09:00:01","type":"event_msg","payload":{"type":"user_message","message":"日志里的错误\nfix it"}}
{"timestamp":"2026-03-06T01:00:02Z","type":"response_item","payload":{"type":"function_call","name":"shell","call_id":"c1"}}
{"timestamp":"2026-03-06T01:00:05Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"metadata\":{\"exit_code\":-2.5}}"}}
{"timestamp":"2026-03-06T01:00:06Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1000,"cached_input_tokens":1400,"output_tokens":50}}}}
{"type":"event_msg","payload":{"type":"exec_command_end","call_id":"c1","exit_code":0}}
`)
	inputs["zones-2.jsonl"] = []byte(`{"timestamp":"2026-03-06T10:00:00-05:00","type":"session_meta","payload":{"id":"z"}}
{"timestamp":"2026-03-06T10:00:01-05:00","type":"response_item","payload":{"type":"custom_tool_call","call_id":"c2"}}
{"timestamp":"2026-03-06T10:00:02-05:00","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":10,"output_tokens":5}}}}
{"timestamp":"2026-03-06T10:00:03-05:00","type":"session_meta","payload":{"id":"other"}}
{"timestamp":"2026-03-06T10:00:04-05:00","type":"response_item","payload":{"type":"local_shell_call","id":"l1"}}
`)
	return inputs
}

// otelInputs are OTLP/JSON traces: generated, testdata, the real corpus,
// and one trace of two agents whose spans are in two files.
func otelInputs(t *testing.T) map[string][]byte {
	t.Helper()
	inputs := formattest.Inputs(t, "otel", "otel/*trace*") // the real corpus's logs example is not a trace
	span := func(id, parent, name, op string, start int) string {
		return `{"traceId":"two","spanId":"` + id + `","parentSpanId":"` + parent + `","name":"` + name + `","startTimeUnixNano":"` +
			strconv.Itoa(start) + `000000000","endTimeUnixNano":"` + strconv.Itoa(start+2) + `000000000","status":{"code":"STATUS_CODE_ERROR","message":"boom"},` +
			`"attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"` + op + `"}},{"key":"gen_ai.usage.input_tokens","value":{"intValue":"7"}}]}`
	}
	doc := func(spans ...string) []byte {
		return []byte(`{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}}]},"scopeSpans":[{"spans":[` +
			strings.Join(spans, ",") + `]}]}]}` + "\n")
	}
	inputs["two-1.otlp.jsonl"] = doc(span("a1", "", "invoke_agent one", "invoke_agent", 1767261600), span("t1", "a1", "execute_tool grep", "execute_tool", 1767261601),
		span("a2", "", "invoke_agent two", "invoke_agent", 1767261700), span("t2", "a2", "execute_tool ls", "execute_tool", 1767261701))
	inputs["two-2.otlp.jsonl"] = doc(span("c2", "a2", "chat", "chat", 1767261702), span("t1", "a1", "execute_tool grep", "execute_tool", 1767261601))
	return inputs
}

// Entries come back from the spill exactly as they went in, whole files
// or many segments, in any zone, and the join gives the same runs, for
// sessions and traces spread over several files too.
func TestEntrySpillRoundTrip(t *testing.T) {
	t.Run("codex", func(t *testing.T) {
		testSpillRoundTrip(t, codexInputs(t), func(f *join.Fragment) *join.EntryLog[codex.Entry] { return join.EntryLogOf[codex.Entry](f) })
	})
	t.Run("otel", func(t *testing.T) {
		testSpillRoundTrip(t, otelInputs(t), func(f *join.Fragment) *join.EntryLog[otel.Span] { return join.EntryLogOf[otel.Span](f) })
	})
	t.Run("gemini", func(t *testing.T) {
		inputs := formattest.Inputs(t, "gemini", "gemini/*.json*")
		// A session resumed in a second file, with zones, tool calls and a header update.
		inputs["resumed-1.jsonl"] = []byte(`{"sessionId":"g","projectHash":"p","startTime":"2026-03-07T10:00:00+02:00","lastUpdated":"2026-03-07T10:05:00+02:00"}
{"id":"1","timestamp":"2026-03-07T10:00:01","type":"user","content":"整理日志"}
{"id":"2","timestamp":"2026-03-07T08:00:02Z","type":"gemini","model":"gemini-2.5-pro","tokens":{"input":10,"cached":4,"thoughts":2,"output":3},"toolCalls":[{"name":"ls","status":"success"},{"name":"rm","status":"cancelled"}]}
{"$set":{"lastUpdated":"2026-03-07T10:06:00+02:00"}}
`)
		inputs["resumed-2.jsonl"] = []byte(`{"sessionId":"g","projectHash":"p","startTime":"2026-03-07T11:00:00+02:00"}
{"id":"3","timestamp":"2026-03-07T11:00:05+02:00","type":"gemini","toolCalls":[{"name":"cat","status":"error"}]}
`)
		testSpillRoundTrip(t, inputs, func(f *join.Fragment) *join.EntryLog[gemini.Entry] { return join.EntryLogOf[gemini.Entry](f) })
	})
}

func testSpillRoundTrip[T any](t *testing.T, inputs map[string][]byte, logOf func(*join.Fragment) *join.EntryLog[T]) {
	defer func(n int) { join.SegmentLines = n }(join.SegmentLines)
	for _, segment := range []int{1 << 15, 3} {
		join.SegmentLines = segment
		for _, loc := range []*time.Location{time.UTC, time.FixedZone("UTC+8", 8*3600)} {
			spill, err := recordspill.New(loc)
			if err != nil {
				t.Fatal(err)
			}
			defer spill.Close()
			allMem, allSpilled := formattest.NewCollector(), formattest.NewCollector()
			for name, data := range inputs {
				mem, spilled := formattest.NewCollector(), formattest.NewCollector()
				if err := Read(bytes.NewReader(data), name, Options{Location: loc}, mem); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if err := Read(bytes.NewReader(data), name, Options{Location: loc, Spill: spill}, spilled); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if len(spilled.Frags) == 0 || len(spilled.Frags) != len(mem.Frags) {
					t.Fatalf("%s: %d fragments, %d in memory", name, len(spilled.Frags), len(mem.Frags))
				}
				for i, f := range spilled.Frags {
					l, want := logOf(f), logOf(mem.Frags[i]).Entries
					if l.Entries != nil || len(l.Segments()) == 0 { // nothing held once the file is read
						t.Fatalf("%s: fragment %d: room for %d entries in memory, %d segments", name, i, cap(l.Entries), len(l.Segments()))
					}
					if segment == 3 && len(want) > 6 && len(l.Segments()) < 2 {
						t.Fatalf("%s: %d entries in %d segments", name, len(want), len(l.Segments()))
					}
					if got := l.All(); !reflect.DeepEqual(got, want) {
						t.Fatalf("%s (%s): fragment %d differs after the spill:\n%+v\n%+v", name, loc, i, got, want)
					}
				}
				allMem.Frags = append(allMem.Frags, mem.Frags...)
				allSpilled.Frags = append(allSpilled.Frags, spilled.Frags...)
			}
			memRuns, memOwners := formattest.JoinAll(allMem.Frags, allMem)
			spillRuns, spillOwners := formattest.JoinAll(allSpilled.Frags, allSpilled)
			if spill.Err() != nil || len(memRuns) < len(inputs)/2 || !reflect.DeepEqual(memRuns, spillRuns) {
				t.Fatalf("%s: %d runs, %d after the spill (%v)", loc, len(memRuns), len(spillRuns), spill.Err())
			}
			for i, f := range allSpilled.Frags {
				if !reflect.DeepEqual(spillOwners[f], memOwners[allMem.Frags[i]]) {
					t.Fatalf("%s: fragment %d feeds other runs after the spill", f.Source, i)
				}
			}
		}
	}
}

// A file's spans of one trace are one fragment, which feeds every run its
// spans belong to: a time window that keeps one agent's run and drops the
// other's still counts the file as read.
func TestOtelFragmentFeedsEveryRun(t *testing.T) {
	inputs := otelInputs(t)
	var frags []*join.Fragment
	c := formattest.NewCollector()
	for _, name := range []string{"two-1.otlp.jsonl", "two-2.otlp.jsonl"} {
		if err := Read(bytes.NewReader(inputs[name]), name, Options{}, c); err != nil {
			t.Fatal(err)
		}
	}
	frags = append(frags, c.Frags...)
	if len(frags) != 2 {
		t.Fatalf("%d fragments, want one per file", len(frags))
	}
	runs, owners := formattest.JoinAll(frags, c)
	if len(runs) != 2 || len(owners[frags[0]]) != 2 || len(owners[frags[1]]) != 2 {
		t.Fatalf("%d runs; the files feed %d and %d", len(runs), len(owners[frags[0]]), len(owners[frags[1]]))
	}
	for _, r := range runs {
		if len(r.ToolCalls) != 1 {
			t.Errorf("%s: %d calls, want its one tool (the repeated span counts once)", r.ID, len(r.ToolCalls))
		}
	}
	if runs[1].Tokens.Input != 7 {
		t.Errorf("second agent's tokens %+v, want its chat span's from the other file", runs[1].Tokens)
	}
}

// A Codex log whose segment cannot be written keeps its entries in memory,
// and its runs are the same; an entry read back damaged is an error of the
// spill, never a silently different run.
func TestCodexSpillFailures(t *testing.T) {
	defer func(n int) { join.SegmentLines = n }(join.SegmentLines)
	join.SegmentLines = 3
	data, err := logsynth.File("codex", 1)
	if err != nil {
		t.Fatal(err)
	}
	mem := formattest.NewCollector()
	if err := Read(bytes.NewReader(data), "r.jsonl", Options{}, mem); err != nil {
		t.Fatal(err)
	}
	memRuns, _ := formattest.JoinAll(mem.Frags, mem)

	spill, d := formattest.SpillOnDisk(t)
	good := d.File()
	d.Use(formattest.Unwritable(t))
	failed := formattest.NewCollector()
	if err := Read(bytes.NewReader(data), "r.jsonl", Options{Spill: spill}, failed); err != nil {
		t.Fatal(err)
	}
	d.Use(good)
	for i, f := range failed.Frags {
		if len(join.EntryLogOf[codex.Entry](f).Segments()) != 0 || !join.EntryLogOf[codex.Entry](f).WriteFailed() {
			t.Fatalf("fragment %d: %d segments after a failed write", i, len(join.EntryLogOf[codex.Entry](f).Segments()))
		}
	}
	if runs, _ := formattest.JoinAll(failed.Frags, failed); spill.Err() != nil || !reflect.DeepEqual(runs, memRuns) {
		t.Fatalf("runs differ after a failed write (%v)", spill.Err())
	}

	spilled := formattest.NewCollector()
	if err := Read(bytes.NewReader(data), "r.jsonl", Options{Spill: spill}, spilled); err != nil {
		t.Fatal(err)
	}
	seg := join.EntryLogOf[codex.Entry](spilled.Frags[0]).Segments()[1]
	if _, err := good.WriteAt([]byte{0xff, 0xff, 0xff, 0x0f}, seg.Off); err != nil { // the second segment's count, now absurd
		t.Fatal(err)
	}
	formattest.JoinAll(spilled.Frags, spilled)
	if !errors.Is(spill.Err(), recordspill.ErrCorrupt) {
		t.Fatalf("a damaged segment read back as %v", spill.Err())
	}
}

// A long session joined from the spill gives what it does in memory, and
// so do the Codex sessions read back beside it.
func TestJoinLongSessionFromSpill(t *testing.T) {
	var data []byte
	for seed := range 120 { // a session of over a megabyte in the spill
		b, err := logsynth.File("claudecode", uint64(seed))
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, regexp.MustCompile(`"sessionId":"[^"]*"`).ReplaceAll(b, []byte(`"sessionId":"long"`))...)
	}
	// A warning from the join: the session spans too long to be true.
	data = append(data, `{"type":"user","sessionId":"long","uuid":"late","timestamp":"2046-01-01T00:00:00Z","message":{"role":"user","content":"later"}}`+"\n"...)
	var codex [][]byte
	for seed := range 8 {
		b, err := logsynth.File("codex", uint64(seed))
		if err != nil {
			t.Fatal(err)
		}
		codex = append(codex, b)
	}
	read := func(spill *recordspill.File) *formattest.Collector {
		c := formattest.NewCollector()
		if err := Read(bytes.NewReader(data), "long.jsonl", Options{Location: time.UTC, Spill: spill}, c); err != nil {
			t.Fatal(err)
		}
		for i, b := range codex {
			if err := Read(bytes.NewReader(b), fmt.Sprintf("rollout-%d.jsonl", i), Options{Location: time.UTC, Spill: spill}, c); err != nil {
				t.Fatal(err)
			}
		}
		return c
	}
	spill, err := recordspill.New(time.UTC)
	if err != nil {
		t.Skip("no temporary directory:", err)
	}
	defer spill.Close()
	defer func(n int) { join.SegmentLines = n }(join.SegmentLines)
	join.SegmentLines = 1 << 10
	mem, spilled := read(nil), read(spill)
	var claude []*join.Fragment
	for _, f := range spilled.Frags {
		if f.Kind == join.FragmentClaude {
			claude = append(claude, f)
		}
	}
	if len(claude) != 1 || spill.Size() < 1<<20 {
		t.Fatalf("%d Claude Code fragments, %d bytes spilled: not one long session", len(claude), spill.Size())
	}
	memRuns, _ := formattest.JoinAll(mem.Frags, mem)
	spillRuns, _ := formattest.JoinAll(spilled.Frags, spilled)
	if spill.Err() != nil || len(memRuns) < 2 || !reflect.DeepEqual(memRuns, spillRuns) {
		t.Fatalf("%d runs, %d after the spill (%v): they differ", len(memRuns), len(spillRuns), spill.Err())
	}
	if w := spilled.Warnings; w[reader.WarnImpossibleDuration] != 1 || !reflect.DeepEqual(w, mem.Warnings) {
		t.Errorf("warnings %v, in memory %v; want the long session's impossible duration", w, mem.Warnings)
	}
}

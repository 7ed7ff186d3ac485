package logformat

import (
	"bufio"
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentstat/agentstat/internal/logsynth"
	"github.com/agentstat/agentstat/logformat/clamp/clamptest"
	"github.com/agentstat/agentstat/logformat/formattest"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/reader"
)

// jsonlFiles is every JSON Lines file of the test data and the corpus.
func jsonlFiles() [][]byte {
	var files [][]byte
	for _, pattern := range []string{
		filepath.Join("..", "testdata", "logs", "*", "*.jsonl"),
		filepath.Join("..", "testdata", "logs", "claudecode", "proj", "*", "*", "*.jsonl"),
		filepath.Join(corpusDir, "*", "*.jsonl"),
		filepath.Join(corpusDir, "*", "*", "*.jsonl"),
	} {
		paths, _ := filepath.Glob(pattern)
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				files = append(files, b)
			}
		}
	}
	return files
}

// generalLine decodes a line as readLines does, with its warnings.
func generalLine(line []byte) (decodedLine, []string) {
	w := &jsonscan.WarnList{}
	dec := jsontext.NewDecoder(bytes.NewReader(line), jsontext.AllowDuplicateNames(true))
	return decodeLine(dec, jsonscan.DecodeOptions(w), nil), w.Kinds
}

// checkRawLine fails when the raw path accepts a line and gives anything
// but what the general decoder gives; it reports whether it accepted it.
func checkRawLine(t *testing.T, line []byte) (raw bool) {
	t.Helper()
	d, w := new(document), &jsonscan.WarnList{}
	raw = decodeLineRaw(line, d, w, nil)
	if raw {
		sameAsGeneral(t, "raw", line, d, w.Kinds)
	}
	return raw
}

func sameAsGeneral(t *testing.T, path string, line []byte, d *document, warns []string) {
	t.Helper()
	want, wantWarns := generalLine(line)
	if want.err != nil || want.doc == nil {
		t.Fatalf("%s path accepted a line the general decoder rejects (%v): %.300s", path, want.err, line)
	}
	if !reflect.DeepEqual(d, want.doc) {
		t.Fatalf("%s path decoded differently:\n%s %+v\ngeneral %+v\nline %.300s", path, path, *d, *want.doc, line)
	}
	got := slices.Clone(warns)
	slices.Sort(got)
	slices.Sort(wantWarns)
	if !slices.Equal(got, wantWarns) {
		t.Fatalf("warnings: %s %v, general %v\nline %.300s", path, got, wantWarns, line)
	}
}

func TestClaudeRawSameAsGeneral(t *testing.T) {
	var lines [][]byte
	add := func(b []byte) {
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			lines = append(lines, slices.Clone(sc.Bytes()))
		}
	}
	for _, b := range jsonlFiles() {
		add(b)
	}
	b, err := logsynth.File("claudecode", 2)
	if err != nil {
		t.Fatal(err)
	}
	add(b)
	for _, l := range []string{
		`{"type":"user","sessionId":"s","message":"not an object","isSidechain":"yes","isMeta":3}`,
		`{"type":"assistant","sessionId":7,"uuid":true,"message":{"content":[1,null,{"type":"tool_use","id":"x","input":"str","is_error":"no"}],"usage":[1]}}`,
		`{"type":"assistant","sessionId":"s","message":{"usage":{"input_tokens":"12","output_tokens":1e400}},"timestamp":[2026,3,5,10,0,0]}`,
		`{"type":"user","sessionId":"s","message":{"content":[]},"toolUseResult":{"durationMs":"5"},"isApiErrorMessage":null}`,
		`{"type":"user","sessionId":"s","message":null,"timestamp":{"x":1}}`,
		`{"type":"user","sessionId":"s","type":"assistant"}`,
		`{"type":"user","sessionId":"s","payload":{}}`,
		`{"type":"user","sessionId":"s"} trailing`,
		`{"type":"user","sessionId":"s","message":{"content":[{"type":"text","text":{"a":1}}]}}`,
		`{"type":"user","sessionId":"s","message":{"content":[{"type":"text","text":"` + strings.Repeat(`日本\n"`, 700) + `"}]}}`,
		`{"type":"user","sessionId":"s","message":{"content":[{"type":"text","text":"` + strings.Repeat(`abc`, 700) + `"}]}}`,
		// What the raw path must refuse or read exactly as jsontext does.
		`{"type":"user","sessionId":"s","x":"\u00e9\ud83d\ude00","message":{"content":"hi \u00e9\"\\\/\b\f\n\r\t"}}`,
		"{\"type\":\"user\",\"sessionId\":\"s\",\"x\":\"\xff\"}",
		"{\"type\":\"user\",\"sessionId\":\"s\",\"x\":\"\xed\xa0\x80\"}",
		"{\"type\":\"user\",\"sessionId\":\"s\",\"x\":\"a\tb\"}",
		"{\"type\":\"user\",\"sessionId\":\"s\",\"x\":\"a\x00b\"}",
		`{"type":"user","sessionId":"s","x":"\u12g4"}`,
		`{"type":"user","sessionId":"s","x":"\ud83d"}`,
		`{"type":"user","sessionId":"s","x":"\x"}`,
		`{"type":"user","sessionId":"s","x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`,
		`{"type":"user","sessionId":"s","x":[-0,1.5e+3,0.0,1E-2,-12.5e-7,true,false,null,{},[],""]}`,
		`{"type":"user","sessionId":"s","x":01}`,
		`{"type":"user","sessionId":"s","x":1.}`,
		`{"type":"user","sessionId":"s","x":-}`,
		`{"type":"user","sessionId":"s","x":.5}`,
		`{"type":"user","sessionId":"s","x":1e}`,
		`{"type":"user","sessionId":"s","x":tru}`,
		`{"type":"user","sessionId":"s","x":nulll}`,
		`{"type":"user","sessionId":"s","x":[1,]}`,
		`{"type":"user","sessionId":"s","x":[1 2]}`,
		`{"type":"user" "sessionId":"s"}`,
		`{"type":"user","sessionId":"s","x":{"a":1 "b":2}}`,
		`{"type":"user","sessionId":"s","message":{"content":5}}`,
		`{"type":"user","sessionId":"s","x":{"a":1,}}`,
		`{"type":"user","sessionId":"s","x":{"a" 1}}`,
		`{"typ\u0065":"user","sessionId":"s"}`,
		`{"type":"user","sessionId":"s","cwd":1,"cwd":2}`,
		`{"type":"user","sessionId":"s","timestamp":" 2026-03-05T10:00:00Z ","isMeta":null,"isSidechain":false}`,
		`{"type":"user","sessionId":"s","timestamp":"yesterday","message":{"usage":{"input_tokens":1e400,"output_tokens":-0}}}`,
		`{"type":"user","sessionId":"s","timestamp":1700000000}`,
		`{"type":"user","sessionId":"s","toolUseResult":"Error: ` + strings.Repeat("é", 400) + `"}`,
		`{"type":"user","sessionId":"s","toolUseResult":{"durationMs":12,"durationMs":15,"interrupted":true,"agentId":"a1","stdout":"x"}}`,
		`{"type":"user","sessionId":"s","toolUseResult":[1,2]}`,
		`{"type":"assistant","sessionId":"s","message":{"content":[null,{"type":"tool_use","id":"t","name":"Task","input":{"subagent_type":"x","prompt":"p"}},{"type":"text","text":null}]}}`,
		`{"type":"assistant","sessionId":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t","is_error":null,"content":[{"type":"text","text":"x"}]}]}}`,
		`{"type":"user","sessionId":"s"}` + "\r",
		` {"type":"user","sessionId":"s"} `,
	} {
		lines = append(lines, []byte(l))
	}
	raw := 0
	for _, l := range lines {
		if checkRawLine(t, l) {
			raw++
		}
	}
	checkArena(t, lines)
	t.Logf("the raw path took %d of %d lines", raw, len(lines))
	if raw < len(lines)/2 {
		t.Errorf("the raw path took %d of %d lines", raw, len(lines))
	}
}

// checkArena decodes lines as a chunk does, into one arena in slabs that
// start small, and fails if any line's document, once all are decoded,
// differs from its own decode on the heap: a line must not write over
// another's messages or blocks.
func checkArena(t *testing.T, lines [][]byte) {
	t.Helper()
	for _, per := range []int{len(lines), 7} { // one chunk; chunks of 7 lines, the arena reset between them
		a := reader.NewLineArena(1)
		for chunk := range slices.Chunk(lines, per) {
			a.Reset()
			docs := make([]document, len(chunk))
			ok := make([]bool, len(chunk))
			for i, l := range chunk {
				if ok[i] = decodeLineRaw(l, &docs[i], &jsonscan.WarnList{}, a); !ok[i] {
					docs[i] = document{}
				}
			}
			for i, l := range chunk {
				want := new(document)
				if decodeLineRaw(l, want, &jsonscan.WarnList{}, nil) != ok[i] {
					t.Fatalf("the arena changed whether the raw path reads %.300s", l)
				}
				if ok[i] && !reflect.DeepEqual(&docs[i], want) {
					t.Fatalf("decoded in an arena, then after %d more lines:\n%+v\non the heap:\n%+v\nline %.300s", len(chunk)-i-1, docs[i], *want, l)
				}
			}
		}
	}
}

func FuzzClaudeRaw(f *testing.F) {
	for _, name := range []string{filepath.Join("claudecode", "proj", "s1.jsonl"), filepath.Join("codex", "rollout-2026-03-06T09-00-00-rollout-one.jsonl")} {
		b, _ := os.ReadFile(filepath.Join("..", "testdata", "logs", name))
		for _, l := range bytes.Split(b, []byte("\n")) {
			f.Add(l)
		}
	}
	f.Add([]byte(`{"type":"user","sessionId":"s","message":{"content":[1,null,{"input":"x"}],"usage":[1]}}`))
	for _, l := range slices.Concat(codexLines, otelLines, geminiLines) {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return // one line at a time
		}
		checkRawLine(t, line)
	})
}

// codexLines are Codex lines the raw path must read as the general decoder
// does, or give up on.
var codexLines = []string{
	`{"timestamp":"2026-03-06T09:00:01Z","type":"response_item","payload":{"type":"function_call","name":"shell","call_id":"c1","arguments":"{\"command\":[\"ls\"]}"}}`,
	`{"timestamp":"2026-03-06T09:00:02Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"x\",\"metadata\":{\"exit_code\":2,\"duration_seconds\":0.1}}"}}`,
	`{"timestamp":"2026-03-06T09:00:02Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":" {\"metadata\":{\"exit_code\":null}} "}}`,
	`{"timestamp":"2026-03-06T09:00:02Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"metadata\":{\"exit_code\":1e400}}"}}`,
	`{"timestamp":"2026-03-06T09:00:02Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"metadata\":{\"exit_code\":\"3\"}}"}}`,
	`{"timestamp":"2026-03-06T09:00:02Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"metadata\":{\"exit_code\":0}} trailing"}}`,
	`{"timestamp":"2026-03-06T09:00:02Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"metadata\":{\"exit_\u0063ode\":4}}"}}`,
	`{"timestamp":"2026-03-06T09:00:02Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"plain text naming exit_code 5"}}`,
	`{"timestamp":"2026-03-06T09:00:02Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c1","output":{"content":[{"type":"text","text":"exit_code"}]}}}`,
	`{"timestamp":"2026-03-06T09:00:02Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":null}}`,
	`{"timestamp":"2026-03-06T09:00:03Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":10,"cached_input_tokens":4,"output_tokens":3,"reasoning_output_tokens":1,"total_tokens":13},"last_token_usage":{}}}}`,
	`{"timestamp":"2026-03-06T09:00:03Z","type":"event_msg","payload":{"type":"token_count","info":null}}`,
	`{"timestamp":"2026-03-06T09:00:03Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":null}}}`,
	`{"timestamp":"2026-03-06T09:00:03Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":"10"}}}}`,
	`{"timestamp":"2026-03-06T09:00:03Z","type":"event_msg","payload":{"type":"token_count","info":[1]}}`,
	`{"timestamp":"2026-03-06T09:00:04Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"c1","exit_code":-1,"status":"failed"}}`,
	`{"timestamp":"2026-03-06T09:00:04Z","type":"event_msg","payload":{"type":"user_message","message":"请把报告按周汇总 \"quoted\"\n","images":[]}}`,
	`{"timestamp":"2026-03-06T09:00:04Z","type":"event_msg","payload":{"type":"user_message","message":{"text":"x"}}}`,
	`{"timestamp":"2026-03-06T09:00:00Z","type":"session_meta","payload":{"id":"s1","timestamp":"2026-03-06T08:59:59Z","cwd":"/r","instructions":"x"}}`,
	`{"timestamp":"2026-03-06T09:00:00Z","type":"turn_context","payload":{"model":"gpt-5-codex","cwd":"/r"}}`,
	`{"timestamp":"2026-03-06T09:00:00Z","type":"turn_context","payload":"not an object"}`,
	`{"timestamp":"2026-03-06T09:00:00Z","type":"turn_context","payload":null}`,
	`{"timestamp":"2026-03-06T09:00:00Z","type":"turn_context","payload":{"model":"a","model":"b"}}`,
	`{"timestamp":"2026-03-06T09:00:00Z","type":"turn_context","payload":{"model":"a"},"payload":{"cwd":"b"}}`,
	`{"timestamp":1772787600,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}`,
	`{"id":"s0","timestamp":"2025-05-01T10:00:00Z","instructions":"be brief"}`,
	`{"type":"function_call","name":"shell","arguments":"{}","call_id":"c9"}`,
	`{"type":"function_call_output","call_id":"c9","output":"{\"output\":\"ok\",\"metadata\":{\"exit_code\":0}}"}`,
	`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}],"id":7}`,
	`{"type":"reasoning","id":"r1","summary":[],"encrypted_content":"abc"}`,
}

// A string read for its first n bytes gives the first n bytes of the whole,
// escaped or not, and clipping it gives what clipping the whole gives.
func TestReadStringPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	valid := slices.DeleteFunc(slices.Clone(clamptest.Pieces), func(p string) bool { // lone halves: the clamp replaces them first
		return json.Unmarshal([]byte(`"`+p+`"`), new(string)) != nil
	})
	for range 2000 {
		var raw strings.Builder
		for k := rng.IntN(40); k > 0; k-- {
			raw.WriteString(valid[rng.IntN(len(valid))])
		}
		quoted := `"` + raw.String() + `"`
		var whole string
		if err := json.Unmarshal([]byte(quoted), &whole); err != nil {
			t.Fatalf("%s: %v", quoted, err)
		}
		n := rng.IntN(len(whole) + 3)
		dec := jsontext.NewDecoder(strings.NewReader(quoted))
		got, err := jsonscan.ReadStringPrefix(dec, n)
		if err != nil || got != whole[:min(n, len(whole))] {
			t.Fatalf("%s, %d bytes: %q (%v)", quoted, n, got, err)
		}
		if n > 3 && reader.ClipString(got, n-1) != reader.ClipString(whole, n-1) {
			t.Fatalf("%s: clipped at %d: %q, not %q", quoted, n-1, reader.ClipString(got, n-1), reader.ClipString(whole, n-1))
		}
	}
}

// otelLines are OTel lines the raw path must read as the general decoder
// does, or give up on.
var geminiLines = []string{
	`{"sessionId":"g","messages":[{"messages":[{"type":"user","content":"x"}]}]}`, // messages in a message
	`{"sessionId":"g1","projectHash":"p","startTime":"2026-04-29T21:39:22.319Z","lastUpdated":"2026-04-29T21:39:22.319Z","kind":"main"}`,
	`{"id":"u1","timestamp":"2026-04-29T21:39:33.155Z","type":"user","content":[{"text":"Say \"hello\" 你好"}]}`,
	`{"id":"u2","timestamp":"2026-04-29T21:39:33.155Z","type":"user","content":"plain","model":null,"tokens":null,"toolCalls":null}`,
	`{"$set":{"lastUpdated":"2026-04-29T21:39:33.156Z"}}`,
	`{"$set":null}`,
	`{"id":"a1","timestamp":"2026-04-29T21:39:35.125Z","type":"gemini","content":"","thoughts":[],"tokens":{"input":11855,"output":81,"cached":0,"thoughts":3,"tool":2,"total":11936},` +
		`"model":"gemini-3-flash-preview","toolCalls":[{"id":"x","name":"run_shell_command","args":{"command":"ls -F"},"result":[{"functionResponse":{"response":{"output":"a\nb"}}}],"status":"success"},{"name":"w","status":"cancelled"}]}`,
	`{"id":"a2","timestamp":"2026-04-29T21:39:36Z","type":"gemini","tokens":{"input":-1,"output":1.5,"cached":null},"toolCalls":[]}`,
	`{"id":"a3","timestamp":1777498775,"type":"error","content":{"text":"x"}}`,
	`{"id":"a4","timestamp":"2026-04-29T21:39:36Z","type":"info","model":12,"content":null}`,
	`{"id":"a5","timestamp":"2026-04-29T21:39:36Z","type":"gemini","tokens":{"input":1,"input":2}}`,
}

var otelLines = []string{
	`{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"bot"}}]},"scopeSpans":[{"scope":{"name":"s"},"spans":[{"traceId":"t1","spanId":"a","parentSpanId":"","name":"invoke_agent x","kind":1,"startTimeUnixNano":"1788732657461728296","endTimeUnixNano":1788732686401728296,"attributes":[{"key":"gen_ai.usage.input_tokens","value":{"intValue":17523}},{"key":"ok","value":{"boolValue":true}},{"key":"f","value":{"doubleValue":0.5e1}},{"key":"n","value":{"stringValue":null}},{"key":"arr","value":{"arrayValue":{"values":[{"stringValue":"x"}]}}},{"key":"two","value":{"intValue":"1","stringValue":"s"}}],"status":{"code":2,"message":"boom"}}]}]}]}`,
	`{"resourceSpans":[]}`,
	`{"resourceSpans":null}`,
	`{"resourceSpans":[{"resource":null,"scopeSpans":[]}]}`,
	`{"resourceSpans":[{"scopeSpans":[{"spans":[{"status":null,"attributes":null},{"name":"b","status":{"code":"STATUS_CODE_ERROR"}}]}]}]}`,
	`{"resourceSpans":[{"scopeSpans":[{"spans":[{"attributes":[{"key":"k","value":"not an object"},{"key":7,"value":null}]}]}]}]}`,
	`{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":{"a":1}}]}]}]}`,
	`{"resourceSpans":[{"scopeSpans":[{"spans":[null]}]}]}`,
	`{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"a","name":"b"}]}]}]}`,
	`{"resourceSpans":{"scopeSpans":[]}}`,
	`{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":tru}]}]}]}`,
	`{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":-01}]}]}]}`,
}

// The raw path reads Codex and OTel lines as the general decoder does: the
// corpus's, generated ones and odd lines, most of them taken.
func TestLineRawSameAsGeneral(t *testing.T) {
	var all [][]byte
	for _, b := range jsonlFiles() {
		for l := range bytes.Lines(b) {
			all = append(all, bytes.TrimSuffix(l, []byte("\n")))
		}
	}
	for _, c := range []struct {
		format  *Format
		odd     []string
		min     int
		refused []string // what only the general decoder reads
	}{
		{formatNamed("codex"), codexLines, formattest.AtLeast(t, 1000, 100), []string{
			`{"timestamp":"2026-03-06T09:00:02Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"metadata\":{\"exit_code\":\"3\"}}"}}`,
			`{"timestamp":"2026-03-06T09:00:00Z","type":"turn_context","payload":"not an object"}`,
			`{"timestamp":"2026-03-06T09:00:03Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":"10"}}}}`,
		}},
		{formatNamed("gemini"), geminiLines, 5, []string{
			`{"sessionId":"g","projectHash":"p","messages":[null]}`,
			`{"id":"m","timestamp":"2026-04-29T21:39:33Z","type":"gemini","tokens":"none"}`,
			`{"id":"m","timestamp":"2026-04-29T21:39:33Z","type":"gemini","toolCalls":[{"name":"a","name":"b"}]}`,
		}},
		{formatNamed("otel"), otelLines, 30, []string{
			`{"resourceSpans":[{"scopeSpans":[{"spans":[null]}]}]}`,
			`{"resourceSpans":{"scopeSpans":[]}}`,
		}},
	} {
		t.Run(c.format.Name, func(t *testing.T) {
			lines := slices.Clone(all)
			for seed := range uint64(4) {
				b, err := logsynth.File(c.format.Name, seed+2)
				if err != nil {
					t.Fatal(err)
				}
				for l := range bytes.Lines(b) {
					lines = append(lines, bytes.TrimSuffix(l, []byte("\n")))
				}
			}
			for _, l := range c.odd {
				lines = append(lines, []byte(l))
			}
			n, raw := 0, 0
			for _, l := range lines {
				if want, _ := generalLine(l); want.err != nil || want.doc == nil || !c.format.match(want.doc) {
					continue
				}
				n++
				if checkRawLine(t, l) {
					raw++
				} else {
					t.Logf("not taken: %.200s", l)
				}
			}
			t.Logf("the raw path took %d of %d lines", raw, n)
			if n < c.min || raw < n*9/10 {
				t.Errorf("the raw path took %d of %d lines", raw, n)
			}
			for _, l := range c.refused {
				if decodeLineRaw([]byte(l), new(document), &jsonscan.WarnList{}, nil) {
					t.Errorf("the raw path read %s", l)
				}
			}
		})
	}
}

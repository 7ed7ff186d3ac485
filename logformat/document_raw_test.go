package logformat

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/agentstat/agentstat/internal/logsynth"
	"github.com/agentstat/agentstat/logformat/clamp"
	"github.com/agentstat/agentstat/logformat/formattest"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/reader"
)

// readBothWays reads doc through the raw path (with a tiny window when
// lookahead > 0) and through the token path alone, fails when they differ
// in runs, warnings or error, and reports whether the raw path gave up.
func readBothWays(t *testing.T, doc []byte, lookahead int) (gaveUp bool) {
	t.Helper()
	return readsOfRaw(t, doc, lookahead) > 2
}

// readsOfRaw is readBothWays' reading of doc, and how many times the raw
// path read it: once as it is (readRawAsIs), twice when that gave up and
// the clamped raw path did not, three times when both gave up and the
// token path read it.
func readsOfRaw(t *testing.T, doc []byte, lookahead int) (reads int) {
	t.Helper()
	if lookahead > 0 {
		defer func(n int) { jsonscan.Lookahead = n }(jsonscan.Lookahead)
		jsonscan.Lookahead = lookahead
	}
	defer func(on bool) { smallDocuments = on }(smallDocuments)
	smallDocuments = false // a document of any size takes the path of a large one
	raw, token := formattest.NewCollector(), formattest.NewCollector()
	opt := Options{Reread: func() (io.Reader, error) {
		reads++
		var in io.Reader = bytes.NewReader(doc)
		if lookahead > 0 {
			in = iotest.OneByteReader(in)
		}
		return in, nil
	}}
	var in io.Reader = bytes.NewReader(doc)
	if lookahead > 0 { // a byte at a time: the window holds little more than lookahead
		in = iotest.OneByteReader(in)
	}
	errRaw := Read(in, "b.json", opt, raw)
	errToken := readValuesOnly(doc, "b.json", token)
	if fmt.Sprint(errRaw) != fmt.Sprint(errToken) {
		t.Fatalf("errors differ: raw path %v, token path %v\n%.300s", errRaw, errToken, doc)
	}
	if !reflect.DeepEqual(raw.Runs, token.Runs) {
		t.Fatalf("runs differ (raw path reads: %d):\nraw path %+v\ntoken path %+v\n%.300s", reads, raw.Runs, token.Runs, doc)
	}
	if !reflect.DeepEqual(raw.Warnings, token.Warnings) {
		t.Fatalf("warnings differ: raw path %v, token path %v\n%.300s", raw.Warnings, token.Warnings, doc)
	}
	return reads
}

// readValuesOnly reads doc as Read does with neither raw document path:
// the general decoder, value after value.
func readValuesOnly(doc []byte, name string, c *formattest.Collector) error {
	defer func(on bool) { smallDocuments = on }(smallDocuments)
	smallDocuments = false
	return Read(bytes.NewReader(doc), name, Options{}, c)
}

// checkSmallDocument fails when Read gives doc other runs, warnings,
// fragments or errors than the general decoder does, value by value.
func checkSmallDocument(t *testing.T, doc []byte) {
	t.Helper()
	for _, name := range []string{"d.json", "d.jsonl"} {
		small, values := formattest.NewCollector(), formattest.NewCollector()
		errSmall := Read(bytes.NewReader(doc), name, Options{}, small)
		errValues := readValuesOnly(doc, name, values)
		if withoutPointer(errSmall) != withoutPointer(errValues) || !reflect.DeepEqual(small.Runs, values.Runs) ||
			!reflect.DeepEqual(small.Warnings, values.Warnings) || len(small.Frags) != len(values.Frags) {
			t.Fatalf("%s: read whole: %v, %d runs %+v, warnings %v, %d fragments\nvalue by value: %v, %d runs %+v, warnings %v, %d fragments\n%.300s",
				name, errSmall, len(small.Runs), small.Runs, small.Warnings, len(small.Frags),
				errValues, len(values.Runs), values.Runs, values.Warnings, len(values.Frags), doc)
		}
	}
}

// withoutPointer is err's text without the JSON pointer of a syntax error:
// jsontext names the member an error is in from its read buffer, and at a
// malformed name ({"0" \xff, or {{) what it names depends on how the input
// came in (whole, or through the clamp a chunk at a time). Each way names
// it the same run after run; the error and its offset must agree.
func withoutPointer(err error) string {
	return pointerText.ReplaceAllString(fmt.Sprint(err), "")
}

var pointerText = regexp.MustCompile(` within "(?:[^"\\]|\\.)*"`)

func FuzzSmallDocument(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "testdata", "logs", "session", "*.json"))
	planexec, _ := filepath.Glob(filepath.Join("..", "testdata", "logs", "planexec", "*.json"))
	gemini, _ := filepath.Glob(filepath.Join("..", "testdata", "logs", "gemini", "*.json"))
	bundles, _ := filepath.Glob(filepath.Join("..", "testdata", "logs", "debugbundle", "*.json"))
	for _, p := range slices.Concat(paths, planexec, gemini, bundles) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"session_id":"s","agent":"a","tool_calls":[{"call_id":"1","tool_name":"T","output":{"status":"failed","error":"e"}}],"phases":[{"phase_id":"p","tool_calls":[]}]}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		if len(doc) > 1<<16 {
			return
		}
		checkSmallDocument(t, doc)
	})
}

// A document file up to a megabyte is read by the raw scanner whole, and
// gives the runs, warnings and errors the general decoder gives: the real
// and generated documents of every format, and broken and odd ones.
func TestSmallDocumentSameAsValues(t *testing.T) {
	var docs [][]byte
	for _, pattern := range []string{
		filepath.Join("..", "testdata", "logs", "*", "*.json"),
		filepath.Join("..", "testdata", "logs", "*", "*", "*.json"),
		filepath.Join(corpusDir, "*", "*.json"),
	} {
		paths, _ := filepath.Glob(pattern)
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				docs = append(docs, b)
			}
		}
	}
	for _, f := range All() {
		for seed := range uint64(3) {
			if b, err := logsynth.File(f.Name, seed+1); err == nil && bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
				docs = append(docs, b)
			}
		}
	}
	session := `{"session_id":"s1","task_title":"t","user_prompt":"p","created_at":"2026-03-01T10:00:00Z","completed_at":"2026-03-01T10:00:05Z","status":"success",` +
		`"agent":{"name":"a","model_id":"m"},"summary":{"total_duration_ms":5000,"description":"d"},` +
		`"tool_calls":[{"call_id":"1","tool_name":"Read","started_at":"2026-03-01T10:00:01Z","duration_ms":12,"output":{"status":"success"},"context_contribution":"code"},` +
		`{"id":2,"name":"Bash","tool_category":"shell","ended_at":"2026-03-01T10:00:03Z","output":{"status":"failed","error":"exit 1"},"context_contribution":{"type":""}}],` +
		`"phase_annotations":[{"phase_type":"plan","context_used":[{"type":"doc","relevance":"high","usage_mode":"read"}]}]}`
	real := len(docs) // the odd ones below are given up on as often as not
	plan := `{"id":"x","planId":"p1","title":"t","userRequest":"u","startTime":"2026-03-01T10:00:00","endTime":"2026-03-01T10:05:00","completed":true,"summary":"s",` +
		`"steps":["[A] one","[B] two \"q\" 中文"],"stepStatuses":["completed","failed"],"stepAgents":["A","B"],"statusCounts":{"completed":1,"failed":1},` +
		`"agentExecutionSequence":[{"id":1,"agentName":"A","startTime":"2026-03-01T10:00:00","endTime":"2026-03-01T10:01:00","maxSteps":5,"currentStep":2,"status":"FINISHED","isStuck":false,` +
		`"thinkActSteps":[{"thinkStartTime":"2026-03-01T10:00:00","thinkEndTime":"2026-03-01T10:00:01","actStartTime":"2026-03-01T10:00:01","actEndTime":"2026-03-01T10:00:03",` +
		`"status":"FINISHED","toolName":"browser","errorMessage":null,"error":"e","actionResult":"ok","thinkInput":{"x":[1]}}]}]}`
	gemini := `{"kind":"chat","sessionId":"g1","projectHash":"ab","startTime":"2026-01-16T18:34:00.000Z","lastUpdated":"2026-01-16T18:34:10.000Z","messages":[` +
		`{"id":"m1","timestamp":"2026-01-16T18:34:01.000Z","type":"user","content":"Hello \"x\" 中文","displayContent":"Hello"},` +
		`{"id":"m2","timestamp":"2026-01-16T18:34:02.000Z","type":"gemini","model":"gemini-3","tokens":{"input":10,"output":5,"total":15,"thoughts":2,"tool":1,"cached":3},` +
		`"thoughts":[{"description":"r"}],"content":[{"text":"Hi"}],"toolCalls":[{"id":"c","name":"run_shell_command","args":{"command":"ls"},"result":[{"functionResponse":{"response":{"output":"o"}}}],"status":"success","timestamp":"2026-01-16T18:34:03.000Z"}]}]}`
	for _, d := range []string{
		gemini,
		strings.ReplaceAll(gemini, `"messages":[`, `"messages":[null,`),
		strings.ReplaceAll(gemini, `"messages":[{"id":"m1"`, `"messages":[{"messages":[],"id":"m1"`),
		strings.ReplaceAll(gemini, `"messages":[{"id":"m1"`, `"messages":[{"context_messages":[],"id":"m1"`),
		strings.ReplaceAll(gemini, `"messages":[{"id":"m1"`, `"messages":[{"structured_context":{},"id":"m1"`),
		strings.ReplaceAll(gemini, `"messages":[{"id":"m1"`, `"messages":[{"type":"other","id":"m1"`),
		`{"sessionId":"g2","projectHash":"ab","messages":[]}`,
		`{"sessionId":"g2","projectHash":"ab","messages":null}`,
		`{"sessionId":"g2","projectHash":"ab","messages":{}}`,
		`{"sessionId":"g2","projectHash":7,"lastUpdated":1772359200,"messages":[]}`,
		`{"sessionId":"g2","lastUpdated":"yesterday","messages":[]}`,
		strings.ReplaceAll(gemini, `"tokens":{`, `"tokens":{"input":"10",`),
		strings.ReplaceAll(gemini, `"tokens":{`, `"tokens":{"input":1e999,`),
		strings.ReplaceAll(gemini, `"tokens":{`, `"tokens":{"input":1,`),
		strings.ReplaceAll(gemini, `"tokens":{"input":10`, `"tokens":null,"x":{"input":10`),
		strings.ReplaceAll(gemini, `"tokens":{"input":10`, `"tokens":[],"x":{"input":10`),
		strings.ReplaceAll(gemini, `"toolCalls":[{`, `"toolCalls":[null,{`),
		strings.ReplaceAll(gemini, `"toolCalls":[{`, `"toolCalls":[{"name":"a","status":"error"},{`),
		strings.ReplaceAll(gemini, `"toolCalls":[{`, `"toolCalls":[{"name":{"x":1}},{`),
		strings.ReplaceAll(gemini, `"toolCalls":[{`, `"toolCalls":"none","y":[{`),
		strings.ReplaceAll(gemini, `"model":"gemini-3"`, `"model":null`),
		strings.ReplaceAll(gemini, `"model":"gemini-3"`, `"model":["m"]`),
		strings.ReplaceAll(gemini, `"content":"Hello \"x\" 中文"`, `"content":7`),
		strings.ReplaceAll(gemini, `"content":"Hello \"x\" 中文"`, `"content":"`+strings.Repeat("长", reader.PromptClip)+`"`),
		strings.ReplaceAll(gemini, `"content":"Hello \"x\" 中文"`, `"content":[{"text":"a"},{"type":"text","text":"b"}]`),
		strings.ReplaceAll(gemini, `"projectHash":"ab"`, `"projectHash":"ab","$set":{"lastUpdated":"x"}`),
		plan,
		strings.ReplaceAll(plan, `"steps":["[A] one","[B] two \"q\" 中文"]`, `"steps":null`),
		strings.ReplaceAll(plan, `"steps":["[A] one","[B] two \"q\" 中文"]`, `"steps":[]`),
		strings.ReplaceAll(plan, `"steps":["[A] one","[B] two \"q\" 中文"]`, `"steps":"x"`),
		strings.ReplaceAll(plan, `"steps":["[A] one","[B] two \"q\" 中文"]`, `"steps":["a",1,null]`),
		strings.ReplaceAll(plan, `"steps":["[A] one","[B] two \"q\" 中文"]`, `"steps":[{"step_id":"1","status":"done"}]`),
		strings.ReplaceAll(plan, `"stepStatuses":["completed","failed"]`, `"stepStatuses":[]`),
		strings.ReplaceAll(plan, `"stepStatuses":["completed","failed"]`, `"stepStatuses":null`),
		strings.ReplaceAll(plan, `"stepStatuses":["completed","failed"]`, `"stepStatuses":[null,7,true]`),
		strings.ReplaceAll(plan, `"stepStatuses":["completed","failed"]`, `"stepStatuses":"completed"`),
		strings.ReplaceAll(plan, `"stepStatuses":["completed","failed"]`, `"stepStatuses":[["x"]]`),
		strings.ReplaceAll(plan, `"stepAgents":["A","B"]`, `"stepAgents":["A"]`),
		strings.ReplaceAll(plan, `"statusCounts":{"completed":1,"failed":1}`, `"statusCounts":{}`),
		strings.ReplaceAll(plan, `"statusCounts":{"completed":1,"failed":1}`, `"statusCounts":null`),
		strings.ReplaceAll(plan, `"statusCounts":{"completed":1,"failed":1}`, `"statusCounts":{"completed":2,"failed":null}`),
		strings.ReplaceAll(plan, `"statusCounts":{"completed":1,"failed":1}`, `"statusCounts":{"completed":"1"}`),
		strings.ReplaceAll(plan, `"statusCounts":{"completed":1,"failed":1}`, `"statusCounts":{"completed":1,"completed":2}`),
		strings.ReplaceAll(plan, `"statusCounts":{"completed":1,"failed":1}`, `"statusCounts":{"completed":1e400}`),
		strings.ReplaceAll(plan, `"statusCounts":{"completed":1,"failed":1}`, `"statusCounts":{"\u0063ompleted":1}`),
		strings.ReplaceAll(plan, `"statusCounts":{"completed":1,"failed":1}`, `"statusCounts":[1]`),
		strings.ReplaceAll(plan, `"completed":true`, `"completed":null`),
		strings.ReplaceAll(plan, `"completed":true`, `"completed":"yes"`),
		strings.ReplaceAll(plan, `"startTime":"2026-03-01T10:00:00","endTime"`, `"startTime":1772359200,"endTime"`),
		strings.ReplaceAll(plan, `"startTime":"2026-03-01T10:00:00","endTime"`, `"startTime":"yesterday","endTime"`),
		strings.ReplaceAll(plan, `"agentExecutionSequence":[{`, `"agentExecutionSequence":[null,{`),
		strings.ReplaceAll(plan, `"isStuck":false`, `"isStuck":"no"`),
		strings.ReplaceAll(plan, `"maxSteps":5`, `"maxSteps":"5"`),
		strings.ReplaceAll(plan, `"toolName":"browser"`, `"toolName":42`),
		strings.ReplaceAll(plan, `"thinkActSteps":[{`, `"thinkActSteps":[{"status":"a","status":"b",`),
		strings.ReplaceAll(plan, `"planId":"p1"`, `"planId":"p1","createdAt":"2026-03-01T10:00:00Z"`), // a planagent key: given up
		session,
		strings.ReplaceAll(session, `"agent":{"name":"a","model_id":"m"}`, `"agent":"bare"`),
		strings.ReplaceAll(session, `"agent":{"name":"a","model_id":"m"}`, `"agent":7`),
		strings.ReplaceAll(session, `"summary":{"total_duration_ms":5000,"description":"d"}`, `"summary":"text"`),
		strings.ReplaceAll(session, `"summary":{"total_duration_ms":5000,"description":"d"}`, `"summary":null`),
		strings.ReplaceAll(session, `"duration_ms":12`, `"duration_ms":"12"`),
		strings.ReplaceAll(session, `"created_at":"2026-03-01T10:00:00Z"`, `"created_at":1772359200`),
		strings.ReplaceAll(session, `"status":"success"`, `"status":"success","subagent_info":{"tool_uses":3}`),
		strings.ReplaceAll(session, `"duration_ms":12`, `"duration_ms":12,"subagent_info":{"tool_uses":3}`),
		strings.ReplaceAll(session, `"tool_calls":[`, `"tool_calls":[null,`),
		strings.ReplaceAll(session, `"session_id":"s1"`, `"session_id":"s1","session_id":"s2"`),
		strings.ReplaceAll(session, `"status":"success"`, `"status":"success","phases":[{"phase_id":"p"}]`),
		strings.ReplaceAll(session, `"status":"success"`, `"status":"success","phases":[{"phase_id":"p","phase_type":"plan","phase":"1","status":"done",`+
			`"tool_calls":[{"tool":"x"}],"context_used":[{"type":"a"}],"context_references":[{"type":"b","usage_mode":"cite"}]}]`),
		strings.ReplaceAll(session, `"status":"success"`, `"status":"success","phases":[{"id":"p","name":"n","rounds":[]}]`),
		"\ufeff" + session, session + "\n\n", session + " x", session + session, session[:len(session)/2],
		session[:len(session)-1], `{"session_id":"s","x":NaN}`, `{"session_id":"s","x":"\ud83d"}`,
		`{}`, `{"a":1}`, ` {"session_id":"s"} `, `{"session_id":"` + strings.Repeat("é", maxSmallDocument/2) + `"}`,
		`{"session_id":"s","n":` + strings.Repeat("1", clamp.MaxBareToken+1) + `}`, // the clamp refuses it mid-read
		`{"session_id":"` + strings.Repeat("x", clamp.MaxString+10) + `"}`,         // the clamp cuts it
	} {
		docs = append(docs, []byte(d))
	}
	raw, of := map[*Format]int{}, map[*Format]int{}
	for i, doc := range docs {
		checkSmallDocument(t, doc)
		want, _ := generalLine(doc)
		if want.err != nil || want.doc == nil {
			continue
		}
		for _, f := range []*Format{formatNamed("session"), formatNamed("planexec"), formatNamed("gemini")} {
			if !f.match(want.doc) {
				continue
			}
			if i < real {
				of[f]++
			}
			if d, w := new(document), (&jsonscan.WarnList{}); decodeLineRaw(doc, d, w, nil) {
				sameAsGeneral(t, "raw", doc, d, w.Kinds)
				if i < real {
					raw[f]++
				}
			} else if i < real {
				t.Logf("not read whole: %.200s", doc)
			}
			break
		}
	}
	for _, f := range []*Format{formatNamed("session"), formatNamed("planexec"), formatNamed("gemini")} {
		t.Logf("the raw scanner read %d of %d real and generated %s documents whole", raw[f], of[f], f.Name)
		if of[f] < 4 || raw[f] < of[f]*2/3 {
			t.Errorf("the raw scanner read %d of %d %s documents whole", raw[f], of[f], f.Name)
		}
	}
}

// rawDocuments are documents the raw document path reads as the token path
// does (accepted), and documents it gives up on.
func rawDocuments() (accepted, gaveUpOn []string) {
	events := `[{"id":"e1","timestamp":1702886400000,"type":"tool_call","nodeId":"n","status":"info","metadata":{"toolName":"grep","input":{"q":"x"}}},` +
		`{"id":"e2","timestamp":1702886400500,"type":"tool_result","nodeId":"n","status":"failure","summary":"boom","metadata":{"toolName":"grep","error":"exit 2"}}]`
	accepted = []string{
		`{"events":` + events + `}`,
		`{"state":{"id":"r1","status":"completed"},"events":{"events":` + events + `,"payloads":{"p":[1,2,{"x":"y"}]}},"timestamp":1702886401000}`,
		`{"version":"1","events":{"events":null},"state":{"id":"r2"}}`,
		`{"events":{"payloads":{}},"state":{"id":"r3"}}`,
		`{"events":{"events":[],"events":` + events + `},"state":{"id":"r4"}}`,
		`{"events":null,"state":{"id":"r5"}}`,
		`{"events":[null,{"id":7,"timestamp":"2026-01-01T00:00:00Z","type":"node_start","summary":true,"metadata":null},{"id":{"x":1},"timestamp":{"a":1}},{"timestamp":true},{"timestamp":1e400},{"timestamp":-12.5}]}`,
		`{"events":[{"id":"a","id":"b","metadata":{"toolName":"t"},"metadata":{"error":"e","toolName":false}}]}`,
		"{\n  \"events\": [\n    {\n      \"id\": \"e1\",\n      \"timestamp\": 1702886400000,\n      \"type\": \"node_start\"\n    }\n  ],\n  \"payloads\": {}\n}\n\n",
		`{"events":[{"summary":"\u00e9\n\"q\"","metadata":{"toolName":"t\u0041"}}],"state":{"id":"r6","conversation":{"messages":[]}}}`,
		`{}`,
		`{"unknown":[1,2,3]}`,
		`{"events":[{"id":"a","timestamp":NaN}]}`, // the clamp makes it null
	}
	gaveUpOn = []string{
		`{"events":` + events + `,"events":[]}`,                                        // events twice
		`{"\u0065vents":` + events + `}`,                                               // an escaped key
		`{"events":[{"id":"a","summary":"\ud83d\ude80"}]}`,                             // a surrogate escape
		`{"events":[{"id":"a","timestamp":[2026,1,2,3,4,5]}]}`,                         // a Jackson array
		`{"events":[1,"x"]}`,                                                           // an element of another kind
		`{"events":[{"metadata":"m"}]}`,                                                // metadata of another kind
		`{"events":"x"}`,                                                               // events of another kind
		`{"events":{"events":"x"}}`,                                                    // inner events of another kind
		`{"events":` + events + `} {"events":[]}`,                                      // a second value
		`{"events":` + events + `} x`,                                                  // garbage after
		`{"events":[{"id":"a"}`,                                                        // cut short
		`{"events":[{"id":"a",}]}`,                                                     // not JSON
		`{"state":{"id":"r","notes":` + longArray(maxRawMember) + `}}`,                 // a long member
		`{"id":"p","steps":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`, // nested deeper than the scanner goes
	}
	return accepted, gaveUpOn
}

func TestRawDocumentSameAsToken(t *testing.T) {
	accepted, gaveUpOn := rawDocuments()
	for _, lookahead := range []int{0, 1, 7, 64} {
		for _, doc := range accepted {
			if readBothWays(t, []byte(doc), lookahead) {
				t.Fatalf("lookahead %d: the raw path gave up on %.200s", lookahead, doc)
			}
		}
		for _, doc := range gaveUpOn {
			if !readBothWays(t, []byte(doc), lookahead) {
				t.Fatalf("lookahead %d: the raw path read %.200s", lookahead, doc)
			}
		}
	}
	// Every bundle of the test data and the corpus, and generated ones.
	for _, lookahead := range []int{0, 5, 333} {
		for i, doc := range formattest.Files(t, "debugbundle", "debugbundle/*.json") {
			if readBothWays(t, doc, lookahead) && !bytes.HasPrefix(bytes.TrimSpace(doc), []byte("[")) {
				t.Fatalf("lookahead %d: the raw path gave up on bundle %d", lookahead, i)
			}
		}
	}
}

// asIsCases are documents at the edges of what the clamp leaves as it is,
// with how many times the raw path of a large document reads each
// (readsOfRaw: 1 as it is, 2 through the clamp, 3 the token path; 0 for
// JSON Lines).
func asIsCases() []struct {
	doc   string
	reads int
} {
	event := func(summary string) string {
		return `{"events":[{"id":"e1","timestamp":1702886400000,"type":"tool_call","summary":` + summary + `,"metadata":{"toolName":"t"}}]}`
	}
	session := func(title string) string { return `{"session_id":"s","task_title":` + title + `,"tool_calls":[]}` }
	return []struct {
		doc   string
		reads int
	}{
		{event(`"` + strings.Repeat("s", clamp.MaxString) + `"`), 1},    // as long as the clamp lets a string be
		{event(`"` + strings.Repeat("s", clamp.MaxString+1) + `"`), 2},  // cut by the clamp
		{event(`"` + strings.Repeat(`\n`, clamp.MaxString/2) + `"`), 1}, // escapes counted as written
		{event(`"` + strings.Repeat(`\n`, clamp.MaxString/2) + `x"`), 2},
		{event(`"` + strings.Repeat("中", clamp.MaxString/3) + `"`), 1}, // bytes, not characters
		{event(`"` + strings.Repeat("中", clamp.MaxString/3+1) + `"`), 2},
		{event(`"\ud83d"`), 2}, // a lone surrogate the clamp replaces
		{event(`NaN`), 2},      // a NaN the clamp makes null
		{event(strings.Repeat("1", clamp.MaxBareToken)), 1},                                  // as long as the clamp lets a number be
		{event(strings.Repeat("1", clamp.MaxBareToken+1)), 3},                                // refused by the clamp: the token path says so
		{`{"state":{"id":"` + strings.Repeat("r", clamp.MaxString+1) + `"},"events":[]}`, 2}, // a member the general decoder reads
		{`{"` + strings.Repeat("k", clamp.MaxString+1) + `":1,"events":[]}`, 2},              // a key
		{`{"events":[{"id":"e1","` + strings.Repeat("k", clamp.MaxString) + `":1}]}`, 1},     // an event's key, as long as the clamp lets it be
		{`{"events":[{"id":"e1","` + strings.Repeat("k", clamp.MaxString+1) + `":1}]}`, 2},   // cut by the clamp
		{"\ufeff" + event(`"x"`), 1},                                                         // a byte-order mark
		{session(`"` + strings.Repeat("t", clamp.MaxString) + `"`), 1},
		{session(`"` + strings.Repeat("t", clamp.MaxString+1) + `"`), 2},
		{session(`"\ud83d\ude80"`), 3},              // a surrogate pair: only the token path reads it
		{session(`"t"`) + "\n" + session(`"u"`), 0}, // one value per line: read as lines, never as a document
	}
}

// A large document is read as it is, unclamped, unless the clamp would
// change it: then the raw path reads it through the clamp, as before.
func TestRawAsIs(t *testing.T) {
	accepted, _ := rawDocuments()
	for _, doc := range accepted {
		want := 1
		if strings.Contains(doc, "NaN") { // the clamp makes it null
			want = 2
		}
		if n := readsOfRaw(t, []byte(doc), 0); n != want {
			t.Errorf("read %d times, want %d: %.200s", n, want, doc)
		}
	}
	for _, c := range asIsCases() {
		if n := readsOfRaw(t, []byte(c.doc), 0); n != c.reads {
			t.Errorf("read %d times, want %d: %.200s", n, c.reads, c.doc)
		}
	}
}

// A small document is read whole as it is by the raw scanner, unless the
// clamp would change it, and gives what the general decoder gives.
func TestHeldAsIs(t *testing.T) {
	for _, c := range asIsCases() {
		checkSmallDocument(t, []byte(c.doc))
		ctx := reader.NewCtx("d.json", time.UTC, nil, formattest.NewCollector())
		took := !errors.Is(readHeld(bytes.TrimPrefix([]byte(c.doc), bom), ctx), errRawGaveUp)
		if took != (c.reads == 1) {
			t.Errorf("read as it is: %v, want %v: %.200s", took, c.reads == 1, c.doc)
		}
	}
}

// A small bundle, held whole, is read by the raw document path without a
// window (readHeld), and gives what the general decoder gives.
func TestRawBytesSameAsValues(t *testing.T) {
	accepted, gaveUpOn := rawDocuments()
	reads := func(doc []byte) bool {
		c := reader.NewCtx("b.json", time.UTC, nil, formattest.NewCollector())
		return !errors.Is(readHeld(doc, c), errRawGaveUp)
	}
	for _, doc := range accepted {
		checkSmallDocument(t, []byte(doc))
		if !strings.Contains(doc, "NaN") && !reads([]byte(doc)) { // the clamp makes NaN null before the raw path
			t.Errorf("readHeld gave up on %.200s", doc)
		}
	}
	for _, doc := range gaveUpOn {
		checkSmallDocument(t, []byte(doc))
		if len(doc) <= maxSmallDocument && reads([]byte(doc)) { // readHeld is given no larger document
			t.Errorf("readHeld read %.200s", doc)
		}
	}
	for i, doc := range formattest.Files(t, "debugbundle", "debugbundle/*.json") {
		if len(doc) > maxSmallDocument || bytes.HasPrefix(bytes.TrimSpace(doc), []byte("[")) {
			continue
		}
		checkSmallDocument(t, doc)
		if !reads(doc) {
			t.Errorf("readHeld gave up on bundle %d", i)
		}
	}
}

// An event longer than the largest window gives up rather than growing
// without bound (unless the window holds the rest of the file).
func TestRawDocumentWindowBound(t *testing.T) {
	event := `{"id":"a","metadata":{"output":` + longArray(2*jsonscan.MaxWindow) + `}}` // the window's buffer is twice its lookahead
	doc := `{"events":[` + event + "," + event + `]}`
	if !readBothWays(t, []byte(doc), 0) {
		t.Fatal("the raw path read an event larger than its window")
	}
}

// longArray is an array of strings of more than n bytes in all (the clamp
// cuts any one string at 256 KiB).
func longArray(n int) string {
	s := `"` + strings.Repeat("y", 64<<10) + `"`
	return "[" + strings.Repeat(s+",", n/len(s)) + s + "]"
}

// An events export's payloads, larger than any window, are skipped a
// member at a time: the raw path reads the file once. Nested deeper than
// the scanner goes, they give up.
func TestRawDocumentLargePayloads(t *testing.T) {
	payload := `{"rows":[{"id":1,"name":"` + strings.Repeat("n", 1000) + `"}],"rowCount":1}`
	var b strings.Builder
	b.WriteString(`{"events":[{"id":"e1","timestamp":1702886400000,"type":"tool_call","metadata":{"toolName":"sql"}}],"payloads":{`)
	for i := 0; b.Len() < jsonscan.MaxWindow*5/2; i++ {
		fmt.Fprintf(&b, `"p\u002d%d":%s,`, i, payload) // escaped keys, as only a skipped value may have
	}
	b.WriteString(`"last":[[1,2],{"a":[]}]}}`)
	if readBothWays(t, []byte(b.String()), 0) {
		t.Fatal("the raw path gave up on large payloads")
	}
	deep := `{"events":[],"payloads":` + strings.Repeat(`{"a":[`, 70) + strings.Repeat(`]}`, 70) + `}`
	if !readBothWays(t, []byte(deep), 0) {
		t.Fatal("the raw path read payloads nested 140 deep")
	}
}

func FuzzRawDocument(f *testing.F) {
	f.Add([]byte(`{"state":{"id":"r"},"events":{"events":[{"id":"a","type":"tool_call","timestamp":1702886400000,"metadata":{"toolName":"x"}}]}}`))
	f.Add([]byte(`{"events":[{"id":"a","id":"b"},null,{"timestamp":"2026-01-01 10:00"}]}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		readBothWays(t, doc, 3)
	})
}

// A broken document's error reads the same whatever was read before it: a
// pooled decoder's JSON pointer named members of the documents it had read.
func TestDocumentErrorSameEveryTime(t *testing.T) {
	broken := []byte("{{\n \"id\": \"1\",\n \"thinkActSteps\": [\n {\"id\": \"3\", \"parentExecutionId\": \"E\",\n \"isStuck\": tru03\", \"x\": \"2\n")
	other, err := os.ReadFile(filepath.Join("..", "testdata", "logs", "planexec", "drift-handwritten.json"))
	if err != nil {
		t.Fatal(err)
	}
	var first string
	for i := range 4 {
		errText := fmt.Sprint(Read(bytes.NewReader(broken), "b.json", Options{}, formattest.NewCollector()))
		if i == 0 {
			first = errText
		} else if errText != first {
			t.Fatalf("read %d: %s\nfirst: %s", i+1, errText, first)
		}
		Read(bytes.NewReader(other), "o.json", Options{}, formattest.NewCollector())
	}
}

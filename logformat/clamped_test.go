package logformat

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/agentstat/agentstat/logformat/clamp"
	"github.com/agentstat/agentstat/logformat/formattest"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/agentstat/agentstat/model"
)

// A transcript line holding a lone surrogate escape (JavaScript writes one
// when it cuts a string inside an emoji) is read like any other: its tool
// result and its prompt count, the lone half read as U+FFFD. A document
// holding one is read too.
func TestLoneSurrogatesRead(t *testing.T) {
	data := `{"type":"user","sessionId":"s1","uuid":"u1","timestamp":"2026-03-05T10:00:00Z","message":{"role":"user","content":"deploy \ud83d"}}` + "\n" +
		`{"type":"assistant","sessionId":"s1","uuid":"u2","timestamp":"2026-03-05T10:00:01Z","message":{"id":"m1","model":"claude-x","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}],"usage":{"input_tokens":10,"output_tokens":5}}}` + "\n" +
		`{"type":"user","sessionId":"s1","uuid":"u3","timestamp":"2026-03-05T10:00:03Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"cut \ud83d"}]},"toolUseResult":"Error: cut \ud83d\ude00 \ude00","durationMs":2000}` + "\n"
	c := formattest.NewCollector()
	if err := Read(strings.NewReader(data), "p/s1.jsonl", Options{}, c); err != nil {
		t.Fatal(err)
	}
	runs, _ := formattest.JoinAll(c.Frags, c)
	if len(c.Warnings) != 0 || len(runs) != 1 || len(runs[0].ToolCalls) != 1 {
		t.Fatalf("warnings %v, %d runs", c.Warnings, len(runs))
	}
	r, call := runs[0], runs[0].ToolCalls[0]
	if r.Request != "deploy \uFFFD" || call.Outcome != model.OutcomeError || call.Error != "Error: cut 😀 \uFFFD" {
		t.Errorf("request %q, call %+v", r.Request, call)
	}

	doc := `{"session_id": "s\udc00", "status": "success", "tool_calls": [{"call_id": "1", "tool_name": "Read\ud800", "duration_ms": 5, "output": {"status": "success"}}]}`
	c = formattest.NewCollector()
	if err := Read(strings.NewReader(doc), "x.json", Options{}, c); err != nil || len(c.Runs) != 1 {
		t.Fatalf("a document: %v", err)
	}
	if r := c.Runs[0]; r.ID != "s\uFFFD" || len(r.ToolCalls) != 1 || r.ToolCalls[0].Name != "Read\uFFFD" {
		t.Errorf("a document: %+v", r)
	}
}

// NaN, Infinity and -Infinity (Python's json writes them) are read as null
// with a bad_number warning each, in a document and in JSON Lines, however
// the input is cut into reads; text that merely holds the words is kept.
func TestNonFiniteNumbers(t *testing.T) {
	doc := `{"session_id": "NaN Infinity", "status": "success", "created_at": "2026-03-05T10:00:00Z", "quality_score": NaN,` +
		` "tool_calls": [{"call_id": "1", "tool_name": "-Infinity", "duration_ms": Infinity, "output": {"status": "success"}},` +
		` {"call_id": "2", "tool_name": "Read", "duration_ms":-Infinity,"output": {"status": "success"}}]}`
	line := strings.ReplaceAll(doc, "\n", "")
	for _, tc := range []struct {
		name, data string
		runs       int
	}{
		{"s.json", doc, 1},
		{"s.jsonl", line + "\n" + strings.Replace(line, `"NaN Infinity"`, `"two"`, 1) + "\n", 2},
	} {
		for _, wrap := range []func(io.Reader) io.Reader{func(r io.Reader) io.Reader { return r }, iotest.OneByteReader, iotest.HalfReader} {
			c := formattest.NewCollector()
			if err := Read(wrap(strings.NewReader(tc.data)), tc.name, Options{}, c); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if len(c.Runs) != tc.runs || c.Warnings[reader.WarnBadNumber] != 3*tc.runs || len(c.Warnings) != 1 {
				t.Fatalf("%s: %d runs, warnings %v", tc.name, len(c.Runs), c.Warnings)
			}
			r := c.Runs[0]
			if r.ID != "NaN Infinity" || len(r.ToolCalls) != 2 || r.ToolCalls[0].Name != "-Infinity" || r.ToolCalls[0].HasDuration || r.ToolCalls[1].HasDuration {
				t.Errorf("%s: %+v", tc.name, r)
			}
		}
	}
	// Only a word standing alone is a number, however the reads cut it;
	// anything else stays invalid JSON.
	for _, bad := range []string{`{"session_id": "s", "n": NaNa}`, `{"session_id": "s", "n": 1NaN}`, `{"session_id": "s", "n": -NaN}`} {
		for _, r := range []io.Reader{strings.NewReader(bad), iotest.OneByteReader(strings.NewReader(bad))} {
			if err := Read(r, "x.json", Options{}, formattest.NewCollector()); reason(err) != ReasonInvalidJSON {
				t.Errorf("%s: %v", bad, err)
			}
		}
	}
}

func TestClampBounds(t *testing.T) {
	long := `{"session_id": "s", "payload": "` + strings.Repeat("é", 400000) + `", "status": "success", "tool_calls": []}`
	c := formattest.NewCollector()
	if err := Read(strings.NewReader(long), "x.json", Options{}, c); err != nil || len(c.Runs) != 1 || c.Runs[0].Status != "success" {
		t.Fatalf("a long payload string: %v", err)
	}
	digits := `{"session_id": "s", "n": ` + strings.Repeat("9", 10000) + `}`
	if err := Read(strings.NewReader(digits), "x.json", Options{}, formattest.NewCollector()); reason(err) != ReasonInvalidJSON {
		t.Fatalf("a 10,000-digit number: %v", err)
	}
	// Refused whole: the NaN read before the number is not a warning of its
	// own (it was one or not as the reads fell around it).
	c = formattest.NewCollector()
	nan := "{\"session_id\": \"s\",\n\"x\": NaN,\n\"n\": " + strings.Repeat("9", 10000) + "}"
	if err := Read(strings.NewReader(nan), "x.json", Options{}, c); reason(err) != ReasonInvalidJSON || c.Warnings[reader.WarnBadNumber] != 0 {
		t.Fatalf("a NaN, then a 10,000-digit number: %v, warnings %v", err, c.Warnings)
	}
}

// A line cut inside a string (a writer killed mid-line, then appended to),
// or holding an over-long bare token (NUL bytes, a runaway number), costs
// that line only: the lines after it are read, even one holding a string
// with no space in it longer than any bare token (a base64 image).
func TestClampBrokenLineCostsOneLine(t *testing.T) {
	long := strings.Repeat("QUJD", 2000)
	for _, cut := range []string{
		`{"type":"user","sessionId":"s1","uuid":"u0","message":{"role":"user","content":"cut here`,
		`{"type":"user","sessionId":"s1","uuid":"u0","message":{"role":"user","content":"cut in an escape \u00`,
		`{"type":"user","sessionId":"s1","uuid":"u0","message":{"role":"user","content":"` + strings.Repeat("x", clamp.MaxString+10),
		strings.Repeat("\x00", 3*clamp.MaxBareToken), // a crash's zero-filled tail, here mid-file
		`{"type":"user","sessionId":"s1","uuid":"u0","n":` + strings.Repeat("9", 2*clamp.MaxBareToken) + `}`,
	} {
		data := cut + "\n" +
			`{"type":"user","sessionId":"s1","uuid":"u1","timestamp":"2026-03-05T10:00:01Z","message":{"role":"user","content":"hi ` + long + `"}}` + "\n" +
			`{"type":"assistant","sessionId":"s1","uuid":"u2","timestamp":"2026-03-05T10:00:02Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]}}` + "\n"
		c := formattest.NewCollector()
		if err := Read(strings.NewReader(data), "p/s1.jsonl", Options{}, c); err != nil {
			t.Fatalf("%.40s…: %v", cut, err)
		}
		runs, _ := formattest.JoinAll(c.Frags, c)
		if c.Warnings[reader.WarnInvalidLine] != 1 || len(runs) != 1 || len(runs[0].ToolCalls) != 1 || runs[0].Request == "" {
			t.Errorf("%.40s…: warnings %v, %d runs", cut, c.Warnings, len(runs))
		}
	}
}

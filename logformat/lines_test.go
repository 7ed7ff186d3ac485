package logformat

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentstat/agentstat/internal/logsynth"
	"github.com/agentstat/agentstat/logformat/clamp"
	"github.com/agentstat/agentstat/logformat/clamp/clamptest"
	"github.com/agentstat/agentstat/logformat/formattest"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/reader"
)

// referenceReadLines is the line reader as it was before chunks, with
// every line decoded by a fresh decoder. The chunked reader must match it.
func referenceReadLines(br *bufio.Reader, c *reader.Ctx) error {
	lr := &lineReader{br: br}
	opts := jsonscan.DecodeOptions(c)
	var st lineState
	for lr.next() {
		line, err := io.ReadAll(lr)
		if err == nil {
			err = lr.err
		}
		if err != nil {
			return err
		}
		st.take(decodeLine(jsontext.NewDecoder(bytes.NewReader(line), jsontext.AllowDuplicateNames(true)), opts, nil), c)
	}
	if lr.err != nil {
		return lr.err
	}
	return st.verdict(c)
}

// readAll reads data as name with the given reader and returns what it
// emitted (runs joined) and returned.
func readAll(name string, data []byte, read func(io.Reader, string, reader.Emitter) error) string {
	c := formattest.NewCollector()
	err := read(bytes.NewReader(data), name, c)
	runs, _ := formattest.JoinAll(c.Frags, c)
	runs = append(c.Runs, runs...)
	var b strings.Builder
	fmt.Fprintf(&b, "err=%v warnings=%v runs=%d\n", err, c.Warnings, len(runs))
	for _, r := range runs {
		fmt.Fprintf(&b, "%#v\n", *r)
	}
	return b.String()
}

// readBoth reads data with the reference line reader and with the chunked
// reader, inline and on three goroutines; all three must agree.
func readBoth(t *testing.T, name string, data []byte) (reference string, chunked []string) {
	t.Helper()
	reference = readAll(name, data, func(r io.Reader, name string, em reader.Emitter) error {
		c := reader.NewCtx(name, time.UTC, nil, em)
		br := bufio.NewReader(r)
		if _, err := firstByte(br); err == io.EOF {
			return skip(ReasonEmpty, "")
		}
		return referenceReadLines(br, c)
	})
	for _, workers := range []int{1, 3} {
		chunked = append(chunked, readAll(name, data, func(r io.Reader, name string, em reader.Emitter) error {
			c := reader.NewCtx(name, time.UTC, nil, em)
			br := bufio.NewReader(r)
			if _, err := firstByte(br); err == io.EOF {
				return skip(ReasonEmpty, "")
			}
			return readLines(br, c, workers, false)
		}))
	}
	return reference, chunked
}

func sameReads(t *testing.T, name string, data []byte) {
	t.Helper()
	reference, chunked := readBoth(t, name, data)
	for i, got := range chunked {
		if got != reference {
			t.Fatalf("%s: chunked read (%d) differs\nreference: %.400s\nchunked:   %.400s", name, i, reference, got)
		}
	}
}

// The chunked line reader, inline or parallel, gives exactly what streaming line by line gives,
// on every JSONL file of testdata and the corpus, and on awkward layouts,
// with chunks small enough that every file spans many.
func TestParallelLinesSameAsSerial(t *testing.T) {
	oldChunk, oldLine := chunkBytes, maxChunkLine
	chunkBytes, maxChunkLine = 300, 2000
	defer func() { chunkBytes, maxChunkLine = oldChunk, oldLine }()

	inputs := map[string][]byte{}
	for _, root := range []string{filepath.Join("..", "testdata", "logs"), corpusDir} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
				b, err := os.ReadFile(p)
				if err == nil {
					inputs[p] = b
				}
			}
			return nil
		})
	}
	if len(inputs) < 5 {
		t.Fatalf("only %d JSONL files found", len(inputs))
	}
	for _, f := range []string{"claudecode", "codex", "otel"} {
		b, err := logsynth.File(f, 9)
		if err != nil {
			t.Fatal(err)
		}
		inputs["synth-"+f+".jsonl"] = b
	}
	claude, _ := logsynth.File("claudecode", 4)
	lines := bytes.SplitAfter(claude, []byte("\n"))
	long := `{"type":"user","sessionId":"s-long","uuid":"long","timestamp":"2026-03-05T10:00:00Z","message":{"role":"user","content":"` + strings.Repeat("long line ", 900) + `"}}`
	inputs["awkward.jsonl"] = bytes.Join([][]byte{
		lines[0], []byte("\n   \n"), []byte("{not json}\n"), lines[1], []byte(long + "\n"),
		[]byte(`{"a":1} {"b":2}` + "\n"), lines[2], []byte("\r\n"), []byte(long + "\r\n"), lines[3], bytes.TrimSuffix(lines[4], []byte("\n")),
	}, nil)
	inputs["only-broken.jsonl"] = []byte("{broken\n{\"x\":\n")
	inputs["blank.jsonl"] = []byte("{}\n\n\n")
	inputs["long-last.jsonl"] = []byte(long)
	for name, data := range inputs {
		sameReads(t, filepath.Base(name), data)
	}
}

func FuzzParallelLines(f *testing.F) {
	for _, dir := range []string{"broken", "claudecode/proj", "codex", "otel"} {
		paths, _ := filepath.Glob(filepath.Join(logPath(dir), "*.jsonl"))
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		oldChunk, oldLine := chunkBytes, maxChunkLine
		chunkBytes, maxChunkLine = 64, 256
		defer func() { chunkBytes, maxChunkLine = oldChunk, oldLine }()
		sameReads(t, "f.jsonl", data)
	})
}

// A broken line's error must not depend on what the reused decoder read
// before: jsontext's pointer on malformed input can name stale members.
func TestLineErrorIgnoresEarlierLines(t *testing.T) {
	broken := []byte(`{{"": "7", "tp": "2026-03-05T10:03:02000Z", "message": {"role": user", "ontet":[{"type": "tool_result", "tool_us_id": "t6", "is_error": false, "ontent": "(output)"}]}, "toolUseResult": {"durationMs": 2000}}`)
	want := lineError(broken)
	if !strings.Contains(want.Error(), `"//"`) {
		t.Fatalf("fresh decoder: %v; the jsontext quirk this guards against is gone or changed", want)
	}
	d := newLineDecoder()
	for _, first := range []string{
		`{"type":"user","timestamp":"2026-03-05T10:03:02.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t6","is_error":false,"content":"(output)"}]},"toolUseResult":{"durationMs":2000}}`, // was "/message/role"
		`{"somewhat_long_name": {"another_name": 1}}`,
	} {
		k := &lineChunk{warns: map[string]int{}}
		k.data = append([]byte(first), broken...)
		k.ends = []int{len(first), len(k.data)}
		d.decode(k)
		if got := k.lines[1].err; got == nil || got.Error() != want.Error() {
			t.Errorf("after %s: error %v, want %v", first, got, want)
		}
	}
}

// A .json holding one value per line is read as JSON Lines: a broken value
// costs its line, as it would in a .jsonl, not every value after it. A
// .json of indented values, or of a one-line value then an indented one,
// is still read as values.
func TestJSONLinesUnderJSONName(t *testing.T) {
	value := func(id string) string {
		return `{"session_id": "` + id + `", "status": "success", "created_at": "2026-01-01T00:00:00Z", "tool_calls": []}`
	}
	ndjson := value("s0") + "\n" + value("s1") + "\n" + `{"session_id": "s2", "status": "succ` + "\n\n" + value("s3") + "\n" + value("s4") + "\n"
	ids := func(c *formattest.Collector) (out []string) {
		for _, r := range c.Runs {
			out = append(out, r.ID)
		}
		return out
	}
	for _, name := range []string{"events.json", "events.jsonl"} {
		c := formattest.NewCollector()
		if err := Read(strings.NewReader(ndjson), name, Options{}, c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := ids(c); !slices.Equal(got, []string{"s0", "s1", "s3", "s4"}) || c.Warnings[reader.WarnInvalidLine] != 1 || len(c.Warnings) != 1 {
			t.Errorf("%s: runs %v, warnings %v", name, got, c.Warnings)
		}
	}
	indent := func(id string) string { return strings.ReplaceAll(value(id), ", ", ",\n  ") }
	for _, doc := range []string{indent("a") + "\n" + indent("b") + "\n", value("a") + "\n" + indent("b") + "\n", value("a") + "\n"} {
		c := formattest.NewCollector()
		if err := Read(strings.NewReader(doc), "x.json", Options{}, c); err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		want := []string{"a", "b"}[:strings.Count(doc, "session_id")]
		if got := ids(c); !slices.Equal(got, want) || len(c.Warnings) != 0 {
			t.Errorf("%q: runs %v, warnings %v", doc, got, c.Warnings)
		}
	}
}

// sameAsStreamClamp fails when JSON Lines clamped line by line (and the
// raw path's lines not at all) read otherwise than through the clamp as
// one stream: inline and on two goroutines, in chunks of any size.
func sameAsStreamClamp(t *testing.T, name string, data []byte) {
	t.Helper()
	read := func(opt Options) string {
		return readAll(name, data, func(r io.Reader, name string, em reader.Emitter) error { return Read(r, name, opt, em) })
	}
	want := read(Options{streamClamp: true})
	for _, workers := range []int{0, 2} {
		if got := read(Options{LineWorkers: workers}); got != want {
			t.Fatalf("%s, %d workers: clamped line by line\n%.600s\nas a stream\n%.600s", name, workers, got, want)
		}
	}
}

func TestClampEachLineSameAsStream(t *testing.T) {
	files := jsonlFiles()
	if len(files) < formattest.AtLeast(t, 10, 5) {
		t.Fatalf("only %d JSON Lines files", len(files))
	}
	for _, format := range []string{"claudecode", "codex", "otel"} {
		b, err := logsynth.File(format, 3)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b)
	}
	user := func(text string) string {
		return `{"type":"user","sessionId":"s","uuid":"u` + fmt.Sprint(len(text)) + `","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"` + text + `"}}`
	}
	longBroken := `{"a":[` + strings.Repeat(`"`+strings.Repeat("z", 100<<10)+`",`, maxChunkLine/(100<<10)+1) + `"`
	assistant := `{"type":"assistant","sessionId":"s","uuid":"a1","timestamp":"2026-01-01T00:00:01Z","message":{"id":"m","role":"assistant","model":"x","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"c":"ls"}}],"usage":{"input_tokens":NaN,"output_tokens":5}}}`
	tricky := []string{
		user("plain") + "\n" + assistant + "\n",
		user(`cut emoji \ud83d`) + "\n" + user(`pair \ud83d\ude00 and \\ud800 as text`) + "\n",
		user(strings.Repeat("x", clamp.MaxString+10)) + "\n" + user("after") + "\n",
		user(strings.Repeat("日本", maxChunkLine/3)+`\ud83d`) + "\n" + assistant + "\n",
		`{"n":` + strings.Repeat("1", clamp.MaxBareToken+1) + "}\n" + user("next") + "\n",
		"\xef\xbb\xbf" + user("marked") + "\n",
		"[" + user("in an array") + ",NaN]\n",
		"{\n  \"type\": \"user\"\n}\n",
		user("crlf") + "\r\n" + assistant + "\r\n",
		user(`open` + "\n" + `{"type":"user"`),
		"NaN\n-Infinity\n" + user("x"),
		`"\uX`, "\"\\uX\n\"\\u12\n", // a broken escape, at the end and before a newline
		longBroken + `\uX` + "\n" + longBroken + `\u1`, // the same in long lines
		`{"n":NaN,"a":[` + strings.Repeat(`"`+strings.Repeat("z", 100<<10)+`",`, maxChunkLine/(100<<10)+1) + `"z"]}` + "\n",
	}
	for _, s := range clamptest.Tricky {
		tricky = append(tricky, s+"\n"+s)
	}
	for _, s := range tricky {
		files = append(files, []byte(s))
	}
	defer func(n int) { chunkBytes = n }(chunkBytes)
	for _, size := range []int{chunkBytes, 100} {
		chunkBytes = size
		for _, b := range files {
			sameAsStreamClamp(t, "x.jsonl", b)
		}
	}
}

func FuzzClampEachLine(f *testing.F) {
	f.Add([]byte(`{"type":"user","sessionId":"s","uuid":"u","message":{"role":"user","content":"\ud83d x"}}` + "\n[NaN]\n"))
	f.Add([]byte("{\"a\":\"open\n{\"b\":1}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sameAsStreamClamp(t, "x.jsonl", data)
	})
}

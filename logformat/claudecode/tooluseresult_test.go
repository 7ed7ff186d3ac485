package claudecode

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentstat/agentstat/internal/logsynth"
	"github.com/agentstat/agentstat/logformat/formattest"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/reader"
)

// referenceToolUseResult is the reflective decode the token-level one
// replaced, kept as the test's reference.
func referenceToolUseResult(dec *jsontext.Decoder, w jsonscan.Warner) (toolUseResultField, error) {
	var t toolUseResultField
	opts := jsonscan.DecodeOptions(w)
	switch dec.PeekKind() {
	case '"':
		tok, err := dec.ReadToken()
		if err != nil {
			return t, err
		}
		t.Text, t.Set = reader.ClipString(tok.String(), 500), true
		return t, nil
	case '{':
		var o struct {
			DurationMS  jsonscan.Num `json:"durationMs"`
			Interrupted *bool        `json:"interrupted"`
			AgentID     jsonscan.Str `json:"agentId"`
		}
		if err := json.UnmarshalDecode(dec, &o, opts); err != nil {
			return t, err
		}
		t.DurationMS, t.Interrupted, t.AgentID, t.Set = o.DurationMS, o.Interrupted != nil && *o.Interrupted, o.AgentID.V, true
		return t, nil
	}
	return t, dec.SkipValue()
}

func checkToolUseResult(t *testing.T, value []byte) {
	t.Helper()
	wantW, gotW := &jsonscan.WarnList{}, &jsonscan.WarnList{}
	want, wantErr := referenceToolUseResult(jsontext.NewDecoder(bytes.NewReader(value), jsontext.AllowDuplicateNames(true)), wantW)
	var got toolUseResultField
	gotErr := got.DecodeFlex(jsontext.NewDecoder(bytes.NewReader(value), jsontext.AllowDuplicateNames(true)), gotW, jsonscan.DecodeOptions(gotW))
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("errors differ: reference %v, token-level %v\n%.300s", wantErr, gotErr, value)
	}
	if wantErr != nil {
		return
	}
	slices.Sort(wantW.Kinds)
	slices.Sort(gotW.Kinds)
	if got != want || !slices.Equal(gotW.Kinds, wantW.Kinds) {
		t.Fatalf("differ:\ntoken-level %+v %v\nreference   %+v %v\n%.300s", got, gotW.Kinds, want, wantW.Kinds, value)
	}
}

// toolUseResults returns the toolUseResult value of every line given.
func toolUseResults(data []byte) [][]byte {
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var line struct {
			Result jsontext.Value `json:"toolUseResult"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && len(line.Result) > 0 {
			out = append(out, slices.Clone(line.Result))
		}
	}
	return out
}

func toolUseResultSeeds() [][]byte {
	return [][]byte{
		[]byte(`"Error: no such file"`), []byte(`null`), []byte(`7`), []byte(`[1]`), []byte(`{}`),
		[]byte(`{"durationMs":1500,"interrupted":false,"agentId":"a1","stdout":"x"}`),
		[]byte(`{"durationMs":"12","interrupted":"yes","agentId":7}`),
		[]byte(`{"durationMs":1,"durationMs":null,"interrupted":true,"interrupted":null,"agentId":"a","agentId":{"x":1}}`),
		[]byte(`{"DurationMs":5,"INTERRUPTED":true,"agentid":"x","durationMs":[1]}`),
		[]byte(`{"duration\u004ds":9,"interrupted":tru}`),
		[]byte(`{"file":{"content":"很长的内容","numLines":3},"durationMs":1e400}`),
	}
}

func TestToolUseResultSameAsReflective(t *testing.T) {
	values := toolUseResultSeeds()
	for _, pattern := range []string{
		filepath.Join("..", "testdata", "logs", "claudecode", "*", "*.jsonl"),
		filepath.Join(formattest.CorpusDir(t), "claudecode", "*.jsonl"),
		filepath.Join(formattest.CorpusDir(t), "claudecode", "*", "*.jsonl"),
	} {
		paths, _ := filepath.Glob(pattern)
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				values = append(values, toolUseResults(b)...)
			}
		}
	}
	b, err := logsynth.File("claudecode", 4)
	if err != nil {
		t.Fatal(err)
	}
	values = append(values, toolUseResults(b)...)
	if len(values) < formattest.AtLeast(t, 100, 50) {
		t.Fatalf("only %d values", len(values))
	}
	for _, v := range values {
		checkToolUseResult(t, v)
	}
}

func FuzzToolUseResult(f *testing.F) {
	for _, v := range toolUseResultSeeds() {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, value []byte) { checkToolUseResult(t, value) })
}

package codex

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// In the binary logformat indexes the plans once every package's are made;
// this test's binary has no logformat.
func init() { jsonscan.Index() }

// checkExitCode fails when rawExitCode reads a tool output document
// otherwise than the general decoder: code or warnings.
func checkExitCode(t *testing.T, text []byte) (raw bool) {
	t.Helper()
	code, warns, ok := rawExitCode(text)
	if !ok {
		return false
	}
	var want outputDoc
	w := &jsonscan.WarnList{}
	if err := json.Unmarshal(text, &want, jsonscan.DecodeOptions(w)); err != nil {
		t.Fatalf("raw path read what the general decoder refuses (%v): %q", err, text)
	}
	if code != want.Metadata.ExitCode || !slices.Equal(warns, w.Kinds) {
		t.Fatalf("%q: raw path %+v %v, general %+v %v", text, code, warns, want.Metadata.ExitCode, w.Kinds)
	}
	return true
}

func TestRawExitCode(t *testing.T) {
	raw := 0
	for _, text := range []string{
		`{"output":"x\ny \"q\" 日本","metadata":{"exit_code":3,"duration_seconds":0.5}}`,
		` {"metadata":{"exit_code":null}} `, `{"metadata":{"exit_code":1e999}}`, `{"metadata":{}}`, `{}`,
		`{"metadata":{"exit_code":1},"metadata":{"exit_code":2}}`, `{"metadata":{"exit_code":1},"metadata":{}}`,
		`{"metadata":{"exit_code":"7"}}`, `{"metadata":null}`, `{"metadata":{"exit_code":1},"metadata":null}`,
		`{"metadata":{"exit_code":true}}`, `{"metadata":[1]}`, `{"metadata":{"exit_code":1}} x`, `{"metadata":{"exit_code":1}`,
		`{"output":"\ud83d","metadata":{"exit_code":1}}`, `{"a":NaN,"metadata":{"exit_code":1}}`, "\u00a0{\"metadata\":{\"exit_code\":1}}",
		`{"metadata":{"exit\u005fcode":4}}`, `[{"metadata":{"exit_code":1}}]`,
	} {
		if checkExitCode(t, []byte(text)) {
			raw++
		}
	}
	if raw < 7 {
		t.Fatalf("the raw path read only %d documents", raw)
	}
}

func FuzzRawExitCode(f *testing.F) {
	f.Add([]byte(`{"output":"x","metadata":{"exit_code":3}}`))
	f.Add([]byte(`{"metadata":{"exit_code":1},"metadata":null}`))
	f.Fuzz(func(t *testing.T, text []byte) { checkExitCode(t, text) })
}

// A tool output gives an exit code only when its text is a JSON
// document naming one, however the name is escaped; other outputs (most of a
// rollout's bytes) are not unquoted, and give none.
func TestOutputExitCode(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		code float64
		set  bool
	}{
		{`"{\"metadata\":{\"exit_code\":3}}"`, 3, true},
		{`" {\"output\":\"x\",\"metadata\":{\"exit_code\":\"7\"}}"`, 7, true},
		{`"{\"metadata\":{\"exit\u005fcode\":4}}"`, 4, true},
		{`"{\"metadata\":{\"exit\\u005fcode\":4}}"`, 0, false}, // a backslash and "u005f", not an escape
		{`"exit_code=5, not JSON"`, 0, false},
		{`"Exit code: 0\nWall time: 1.2 seconds"`, 0, false},
		{`{"type":"input_text","text":"exit_code"}`, 0, false},
		{`null`, 0, false},
	} {
		var o toolOutput
		dec := jsontext.NewDecoder(strings.NewReader(tc.raw))
		w := &jsonscan.WarnList{}
		if err := o.DecodeFlex(dec, w, jsonscan.DecodeOptions(w)); err != nil {
			t.Fatalf("%s: %v", tc.raw, err)
		}
		if o.ExitCode.Set != tc.set || o.ExitCode.V != tc.code {
			t.Errorf("%s: exit code %+v, want %v (set %v)", tc.raw, o.ExitCode, tc.code, tc.set)
		}
	}
}

// Records of every size read back right in any order: small ones through
// the spill's read-ahead window (sliding over records written later),
// large ones straight from the file.
func TestSpillWindow(t *testing.T) {
	spill, err := recordspill.New(time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	defer spill.Close()
	var logs []*entryLog
	var want [][]Entry
	for i, size := range []int{10, 100 << 10, 3, 300 << 10, 70 << 10, 1, recordspill.Window - 100, 20, 10 << 10} {
		l := &entryLog{Codec: codec}
		l.Entries = []Entry{{kind: promptEntry, prompt: strings.Repeat(string(rune('a'+i)), size), callID: strconv.Itoa(i)}}
		want = append(want, slices.Clone(l.Entries))
		l.FlushTo(spill, true)
		logs = append(logs, l)
	}
	for _, i := range []int{0, 2, 1, 5, 7, 8, 6, 3, 4, 0, 8, 7} {
		if got := logs[i].All(); !reflect.DeepEqual(got, want[i]) {
			t.Fatalf("record %d (%d bytes) reads back wrong", i, len(want[i][0].prompt))
		}
	}
	// Readers on several goroutines share the window (the race detector watches).
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for k := range 40 {
				i := (g + k*3) % len(logs)
				if got := logs[i].All(); !reflect.DeepEqual(got, want[i]) {
					t.Errorf("goroutine %d: record %d reads back wrong", g, i)
					return
				}
			}
		})
	}
	wg.Wait()
	if spill.Err() != nil {
		t.Fatal(spill.Err())
	}
}

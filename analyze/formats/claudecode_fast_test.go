package formats

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
)

// generalLine decodes a line as readLines does, with its warnings.
func generalLine(line []byte) (decodedLine, []string) {
	w := &warnList{}
	dec := jsontext.NewDecoder(bytes.NewReader(line), jsontext.AllowDuplicateNames(true))
	return decodeLine(dec, decodeOptions(w), nil), w.kinds
}

// checkFastLine fails when the fast path accepts a line and gives anything
// but what the general decoder gives; it reports whether it accepted it.
func checkFastLine(t *testing.T, line []byte) bool {
	t.Helper()
	var buf bytes.Buffer
	dec := jsontext.NewDecoder(&buf)
	w := &warnList{}
	d := new(document)
	if !decodeFast(dec, &buf, line, d, w, decodeOptions(w)) {
		return false
	}
	want, wantWarns := generalLine(line)
	if want.err != nil || want.doc == nil {
		t.Fatalf("fast path accepted a line the general decoder rejects (%v): %.300s", want.err, line)
	}
	if !reflect.DeepEqual(d, want.doc) {
		t.Fatalf("fast path decoded differently:\nfast    %+v\ngeneral %+v\nline %.300s", *d, *want.doc, line)
	}
	got := slices.Clone(w.kinds)
	slices.Sort(got)
	slices.Sort(wantWarns)
	if !slices.Equal(got, wantWarns) {
		t.Fatalf("warnings: fast %v, general %v\nline %.300s", got, wantWarns, line)
	}
	return true
}

func TestClaudeFastSameAsGeneral(t *testing.T) {
	var lines [][]byte
	add := func(b []byte) {
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			lines = append(lines, slices.Clone(sc.Bytes()))
		}
	}
	for _, pattern := range []string{
		filepath.Join("..", "..", "testdata", "logs", "*", "*.jsonl"),
		filepath.Join("..", "..", "testdata", "logs", "claudecode", "proj", "*", "*", "*.jsonl"),
		filepath.Join("..", "..", "..", "shared", "corpus", "*", "*.jsonl"),
		filepath.Join("..", "..", "..", "shared", "corpus", "*", "*", "*.jsonl"),
	} {
		paths, _ := filepath.Glob(pattern)
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				add(b)
			}
		}
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
	} {
		lines = append(lines, []byte(l))
	}
	accepted := 0
	for _, l := range lines {
		if checkFastLine(t, l) {
			accepted++
		}
	}
	t.Logf("fast path took %d of %d lines", accepted, len(lines))
	if accepted < len(lines)/2 {
		t.Errorf("fast path took %d of %d lines", accepted, len(lines))
	}
}

func FuzzClaudeFast(f *testing.F) {
	b, _ := os.ReadFile(filepath.Join("..", "..", "testdata", "logs", "claudecode", "proj", "s1.jsonl"))
	for _, l := range bytes.Split(b, []byte("\n")) {
		f.Add(l)
	}
	f.Add([]byte(`{"type":"user","sessionId":"s","message":{"content":[1,null,{"input":"x"}],"usage":[1]}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return // one line at a time
		}
		checkFastLine(t, line)
	})
}

// A string read for its first n bytes gives the first n bytes of the whole,
// escaped or not, and clipping it gives what clipping the whole gives.
func TestReadStringPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	valid := slices.DeleteFunc(slices.Clone(pieces), func(p string) bool { // lone halves: the clamp replaces them first
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
		got, err := readStringPrefix(dec, n)
		if err != nil || got != whole[:min(n, len(whole))] {
			t.Fatalf("%s, %d bytes: %q (%v)", quoted, n, got, err)
		}
		if n > 3 && clipString(got, n-1) != clipString(whole, n-1) {
			t.Fatalf("%s: clipped at %d: %q, not %q", quoted, n-1, clipString(got, n-1), clipString(whole, n-1))
		}
	}
}

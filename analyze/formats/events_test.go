package formats

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentstat/agentstat/analyze/model"
	"github.com/agentstat/agentstat/internal/logsynth"
)

// referenceEvents is how the general decoder reads an events value: the
// reflective decode decodeFlex replaced, kept as the test's reference.
func referenceEvents(dec *jsontext.Decoder, w Warner) (eventsField, error) {
	var e eventsField
	opts := decodeOptions(w)
	kept := func(list []bundleEvent) eventsField {
		k := newEventKeeper()
		for i := range list {
			k.add(&list[i])
		}
		e := eventsField{Present: true}
		k.into(&e)
		return e
	}
	switch dec.PeekKind() {
	case '[':
		var list []bundleEvent
		err := json.UnmarshalDecode(dec, &list, opts)
		return kept(list), err
	case '{':
		var o struct {
			Events *[]bundleEvent `json:"events"`
		}
		err := json.UnmarshalDecode(dec, &o, opts)
		if o.Events != nil {
			e = kept(*o.Events)
		}
		return e, err
	case 'n':
		return e, dec.SkipValue()
	}
	w.Warn(WarnTypeMismatch)
	return e, dec.SkipValue()
}

// checkEvents fails when the token-level events decoder and the reference
// disagree on a value: result, error or warnings.
func checkEvents(t *testing.T, value []byte) {
	t.Helper()
	wantW, gotW := &warnList{}, &warnList{}
	want, wantErr := referenceEvents(jsontext.NewDecoder(bytes.NewReader(value), jsontext.AllowDuplicateNames(true)), wantW)
	var got eventsField
	gotErr := got.decodeFlex(jsontext.NewDecoder(bytes.NewReader(value), jsontext.AllowDuplicateNames(true)), gotW, decodeOptions(gotW))
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("errors differ: reference %v, token-level %v\n%.300s", wantErr, gotErr, value)
	}
	if wantErr != nil {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("events differ:\ntoken-level %+v\nreference   %+v\n%.300s", got, want, value)
	}
	slices.Sort(wantW.kinds)
	slices.Sort(gotW.kinds)
	if !slices.Equal(gotW.kinds, wantW.kinds) {
		t.Fatalf("warnings differ: token-level %v, reference %v\n%.300s", gotW.kinds, wantW.kinds, value)
	}
}

// eventsValues returns the events value of every bundle and export given.
func eventsValues(t *testing.T, docs [][]byte) [][]byte {
	var out [][]byte
	for _, b := range docs {
		var doc struct {
			Events jsontext.Value `json:"events"`
		}
		if json.Unmarshal(b, &doc) == nil && len(doc.Events) > 0 {
			out = append(out, doc.Events)
		}
	}
	return out
}

// bundleDocs is every debug bundle and events export of the test data and
// the corpus, and five generated bundles.
func bundleDocs(t *testing.T) [][]byte {
	t.Helper()
	var docs [][]byte
	for _, pattern := range []string{
		filepath.Join("..", "..", "testdata", "logs", "debugbundle", "*.json"),
		filepath.Join("..", "..", "..", "shared", "corpus", "debugbundle", "*.json"),
	} {
		paths, _ := filepath.Glob(pattern)
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				docs = append(docs, b)
			}
		}
	}
	for seed := range 5 {
		b, err := logsynth.File("debugbundle", uint64(seed))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, b)
	}
	return docs
}

func TestEventsSameAsGeneral(t *testing.T) {
	docs := bundleDocs(t)
	values := eventsValues(t, docs)
	if len(values) < 6 {
		t.Fatalf("only %d events values", len(values))
	}
	for _, v := range []string{
		`[]`, `null`, `"x"`, `{}`, `{"events":null}`, `{"events":"x"}`, `{"events":[],"events":[{"id":"a"}]}`,
		`{"events":[{"id":"a"}],"events":null}`, `[1,null,"s",{"id":7,"timestamp":"2026-01-01","type":["x"],"metadata":"m"}]`,
		`[{"id":"a","id":"b","metadata":{"toolName":"t"},"metadata":{"error":"e"}}]`,
		`[{"metadata":null},{"metadata":{"toolName":{"x":1}}},{"timestamp":[2026,1,2,3,4,5]},{"timestamp":{"a":1}}]`,
		`{"payloads":{"x":[1,2]},"events":[{"id":"a","status":true,"summary":1.5}]}`,
	} {
		values = append(values, []byte(v))
	}
	for _, v := range values {
		checkEvents(t, v)
	}
}

func FuzzEvents(f *testing.F) {
	f.Add([]byte(`{"events":[{"id":"a","type":"tool_call","timestamp":1702886400000,"metadata":{"toolName":"x"}}]}`))
	f.Add([]byte(`[{"id":"a","id":"b"},null,3]`))
	f.Fuzz(func(t *testing.T, value []byte) { checkEvents(t, value) })
}

// partsCollector takes runs with their calls in parts, as the pipeline does.
type partsCollector struct{ *collector }

func (c partsCollector) RunParts(r *model.Run, parts *CallParts) {
	for part := parts.Next(); part != nil; part = parts.Next() {
		r.ToolCalls = append(r.ToolCalls, part...)
	}
	if len(r.ToolCalls) != parts.N {
		panic("parts hold other than N calls")
	}
	c.Run(r)
}

// A bundle's calls taken in parts, however small, are the calls and the
// warnings of the whole.
func TestBundlePartsSameAsWhole(t *testing.T) {
	docs := bundleDocs(t)
	defer func(n int) { callPart = n }(callPart)
	calls := 0
	for _, part := range []int{1, 2, 4096} {
		callPart = part
		for i, b := range docs {
			whole, parted := newCollector(), partsCollector{newCollector()}
			errW := Read(bytes.NewReader(b), "b.json", Options{}, whole)
			errP := Read(bytes.NewReader(b), "b.json", Options{}, parted)
			if fmt.Sprint(errW) != fmt.Sprint(errP) || !reflect.DeepEqual(whole.runs, parted.runs) || !reflect.DeepEqual(whole.warnings, parted.warnings) {
				t.Fatalf("bundle %d, parts of %d: other runs or warnings", i, part)
			}
			for _, r := range whole.runs {
				calls += len(r.ToolCalls)
			}
		}
	}
	if calls < 100 {
		t.Fatalf("only %d calls read", calls)
	}
}

// eventList keeps events in order across its blocks, and truncate keeps the
// first ones.
func TestEventList(t *testing.T) {
	for _, n := range []int{0, 1, eventBlock - 1, eventBlock, eventBlock + 1, 3*eventBlock + 7} {
		var l eventList
		for i := range n {
			l.add(keptEvent{typ: int32(i)})
		}
		check := func(want int) {
			t.Helper()
			if l.n != want {
				t.Fatalf("%d events: n = %d, want %d", n, l.n, want)
			}
			total := 0
			for _, b := range l.blocks {
				total += len(b)
			}
			for i := range want {
				if l.at(i).typ != int32(i) {
					t.Fatalf("%d events: event %d is %d", n, i, l.at(i).typ)
				}
			}
			if total != want {
				t.Fatalf("%d events: blocks hold %d, want %d", n, total, want)
			}
		}
		check(n)
		for _, keep := range []int{n, n / 2, eventBlock, 1, 0} {
			if keep <= l.n {
				l.truncate(keep)
				check(keep)
			}
		}
		l.add(keptEvent{typ: int32(l.n)}) // grows again after a truncation
		check(l.n)
	}
}

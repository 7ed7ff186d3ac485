package formats

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

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

func TestEventsSameAsGeneral(t *testing.T) {
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

package metrics

import (
	"bytes"
	"encoding/gob"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/agentstat/agentstat/model"
)

// gobRoundTrip is what the spill gave back when it held calls through gob.
func gobRoundTrip(t testing.TB, calls []model.ToolCall) []model.ToolCall {
	t.Helper()
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(calls); err != nil {
		t.Fatal(err)
	}
	var out []model.ToolCall
	if err := gob.NewDecoder(&b).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

func codecRoundTrip(t testing.TB, calls []model.ToolCall) []model.ToolCall {
	t.Helper()
	var r callReader
	out, err := r.decode(nil, appendCalls(nil, calls))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCallCodecSameAsGob: calls come back from the spill's layout as they
// came back from gob, zones, zero fields, NaN and negative zero included.
func TestCallCodecSameAsGob(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 123456789, time.UTC)
	zones := []*time.Location{time.UTC, time.FixedZone("CET", 3600), time.FixedZone("", -9*3600-30*60), time.Local, time.FixedZone("odd", 37)}
	texts := []string{"", "Read", "中文 name", "with\x00nul", string(bytes.Repeat([]byte("e"), 300))}
	floats := []float64{0, math.Copysign(0, -1), 1.5, math.NaN(), math.Inf(-1), 1e300}
	var calls []model.ToolCall
	for i := range 300 {
		c := model.ToolCall{Name: texts[i%5], Category: texts[(i/5)%5], Agent: texts[(i/2)%5], Error: texts[(i/3)%5], Input: texts[(i/7)%5],
			Outcome: model.Outcome(i%4 - 1), ThinkMS: floats[(i/6)%6], HasThink: i%7 == 0,
			Span: model.Span{DurationMS: floats[i%6], HasDuration: i%3 != 0}}
		if i%4 != 0 {
			c.Started = at.Add(time.Duration(i) * time.Hour).In(zones[i%5])
		}
		if i%5 != 1 {
			c.Ended = at.AddDate(-3000+i*20, 0, 0).In(zones[(i/5)%5])
		}
		calls = append(calls, c)
	}
	want, got := gobRoundTrip(t, calls), codecRoundTrip(t, calls)
	if len(got) != len(want) {
		t.Fatalf("%d calls back, want %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) && !sameNaN(got[i], want[i]) {
			t.Fatalf("call %d:\n codec %#v\n gob   %#v", i, got[i], want[i])
		}
	}
}

// sameNaN: DeepEqual holds NaN unequal to itself.
func sameNaN(a, b model.ToolCall) bool {
	nan := func(c *model.ToolCall) {
		if math.IsNaN(c.DurationMS) {
			c.DurationMS = 0
		}
		if math.IsNaN(c.ThinkMS) {
			c.ThinkMS = 0
		}
	}
	na, nb := math.IsNaN(a.DurationMS) == math.IsNaN(b.DurationMS), math.IsNaN(a.ThinkMS) == math.IsNaN(b.ThinkMS)
	nan(&a)
	nan(&b)
	return na && nb && reflect.DeepEqual(a, b)
}

// TestCallCodecUnbinaryZone: a zone Go's binary form of a time cannot hold
// (ParseTimestamp gives none) is kept as the same instant in UTC.
func TestCallCodecUnbinaryZone(t *testing.T) {
	for _, offset := range []int{-60, -61, -119} {
		at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.FixedZone("w", offset))
		got := codecRoundTrip(t, []model.ToolCall{{Span: model.Span{Started: at, Ended: at}}})
		if len(got) != 1 || !got[0].Started.Equal(at) || !got[0].Ended.Equal(at) || got[0].Started.Location() != time.UTC {
			t.Errorf("offset %d s: %+v", offset, got)
		}
	}
}

// TestCallCodecCoversEveryField: a field added to a tool call must be
// added to the spill's layout too, or the run pages and workbook lose it.
func TestCallCodecCoversEveryField(t *testing.T) {
	var names []string
	var walk func(reflect.Type)
	walk = func(ty reflect.Type) {
		for f := range ty.Fields() {
			if f.Anonymous {
				walk(f.Type)
				continue
			}
			names = append(names, f.Name)
		}
	}
	walk(reflect.TypeFor[model.ToolCall]())
	slices.Sort(names)
	want := []string{"Agent", "Category", "DurationMS", "Ended", "Error", "HasDuration", "HasThink", "Input", "Name", "Outcome", "Started", "ThinkMS"}
	if !slices.Equal(names, want) {
		t.Fatalf("model.ToolCall has fields %v; appendCalls and callReader know %v", names, want)
	}
}

// TestCallCodecCorrupt: a cut or damaged chunk is an error, never a panic
// or calls made up.
func TestCallCodecCorrupt(t *testing.T) {
	calls := []model.ToolCall{{Name: "Read", Error: "boom", Span: model.Span{Started: time.Now(), Ended: time.Now(), DurationMS: 3, HasDuration: true}, ThinkMS: 2}}
	b := appendCalls(nil, calls)
	for n := 1; n < len(b); n++ {
		var r callReader
		if got, err := r.decode(nil, b[:n]); err == nil {
			t.Errorf("cut at %d of %d: no error, %d calls", n, len(b), len(got))
		}
	}
}

// FuzzCallCodec: any bytes decode to an error or to calls that encode back
// to the same bytes' calls; a call made of fuzzed fields comes back as gob
// gives it back.
func FuzzCallCodec(f *testing.F) {
	f.Add([]byte{}, "Read", 1.5, int64(1772359200123456789), int8(1))
	f.Add(appendCalls(nil, []model.ToolCall{{Name: "x", Span: model.Span{Started: time.Unix(5, 0)}}}), "", math.NaN(), int64(-62135596800000000), int8(-3))
	f.Fuzz(func(t *testing.T, raw []byte, name string, x float64, nanos int64, outcome int8) {
		var r callReader
		if calls, err := r.decode(nil, raw); err == nil {
			var again callReader
			back, err := again.decode(nil, appendCalls(nil, calls))
			if err != nil || len(back) != len(calls) {
				t.Fatalf("%d calls decoded encode back to %d, %v", len(calls), len(back), err)
			}
		}
		offset := int(nanos%1440) * 60 // whole minutes, as a parsed zone's
		if offset == -60 {
			offset = 0 // gob cannot hold it (TestCallCodecUnbinaryZone)
		}
		when := time.Unix(0, nanos).In(time.FixedZone("z", offset))
		c := []model.ToolCall{{Name: name, Agent: name, Error: name, Input: name + name, Outcome: model.Outcome(outcome), ThinkMS: x, HasThink: x > 0,
			Span: model.Span{Started: when, DurationMS: x, HasDuration: nanos%2 == 0}}}
		want, got := gobRoundTrip(t, c), codecRoundTrip(t, c)
		if !reflect.DeepEqual(got, want) && !sameNaN(got[0], want[0]) {
			t.Fatalf("\n codec %#v\n gob   %#v", got, want)
		}
	})
}

// TestDetailKeyCodec: a run's key comes back from the spill as it was
// written (its start the same instant: it only orders), the keys of every
// field of detailKey; a cut, padded or damaged key is an error, never a
// panic.
func TestDetailKeyCodec(t *testing.T) {
	var names []string
	for f := range reflect.TypeFor[detailKey]().Fields() {
		names = append(names, f.Name)
	}
	if want := []string{"FileOrd", "Seq", "Source", "Format", "ID", "Started", "Calls"}; !slices.Equal(names, want) {
		t.Fatalf("detailKey has fields %v; appendKey and decodeKey know %v", names, want)
	}
	keys := []detailKey{
		{},
		{FileOrd: joinedOrd, Seq: 3, Source: "proj/会话.jsonl", Format: "claudecode", ID: "s-1", Started: time.Date(2026, 3, 1, 10, 0, 0, 123456789, time.FixedZone("", 8*3600)), Calls: 150000},
		{FileOrd: 7, Seq: -1, ID: string(make([]byte, 300)), Started: time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC)},
		{Started: time.Unix(-1, 999999999)},
	}
	for _, k := range keys {
		b := appendKey(nil, &k)
		got, err := decodeKey(b)
		if err != nil || got.FileOrd != k.FileOrd || got.Seq != k.Seq || got.Source != k.Source || got.Format != k.Format ||
			got.ID != k.ID || !got.Started.Equal(k.Started) || got.Calls != k.Calls {
			t.Fatalf("%+v came back as %+v, %v", k, got, err)
		}
		for n := range len(b) {
			if _, err := decodeKey(b[:n]); err == nil {
				t.Errorf("%+v cut at %d of %d: no error", k, n, len(b))
			}
		}
		if _, err := decodeKey(append(b, 0)); err == nil {
			t.Errorf("%+v with a byte more: no error", k)
		}
		for i := range b {
			damaged := bytes.Clone(b)
			damaged[i] = 0xff
			decodeKey(damaged) // an error or another key, never a panic
		}
	}
}

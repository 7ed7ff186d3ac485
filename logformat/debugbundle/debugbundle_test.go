package debugbundle

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/logformat/formattest"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// dedupeEventsReference is what dedupeEvents replaced: a map of the keys seen.
func dedupeEventsReference(list *eventList, events []keptEvent, loc *time.Location) (kept []keptEvent, repeats int) {
	type key struct {
		id    reader.Digest
		typ   int32
		ts    int64
		tsSet bool
	}
	seen := map[key]bool{}
	for _, e := range events {
		at := list.when(&e)
		k := key{e.id, e.typ, at.In(loc).UnixNano(), at.Set}
		if e.idSet() && seen[k] {
			repeats++
			continue
		}
		seen[k] = true
		kept = append(kept, e)
	}
	return kept, repeats
}

func TestDedupeEvents(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	zone := time.FixedZone("X", 3600)
	for round := range 300 {
		n := rng.IntN(3 * EventBlock)
		if round%3 == 0 {
			n = rng.IntN(40)
		}
		keep := newEventKeeper(nil)
		var events []keptEvent
		for i := range n {
			var e keptEvent
			// Few distinct values of each part, so that keys repeat whole
			// and in part: ids sharing their first eight bytes but not the rest.
			e.id[0], e.id[15] = byte(rng.IntN(3)), byte(rng.IntN(2))
			if rng.IntN(5) > 0 {
				e.flags |= eventIDSet
			}
			e.typ = int32(rng.IntN(3))
			switch rng.IntN(4) {
			case 0: // no time
			case 1: // a naive time: the same instant as another zone's only through loc
				keep.stamp(&e, jsonscan.Time{T: time.Date(2026, 1, 1, rng.IntN(2), 0, 0, 0, time.UTC), Naive: true, Set: true})
			default:
				keep.stamp(&e, jsonscan.Time{T: time.Date(2026, 1, 1, rng.IntN(2), 0, 0, 0, zone), Set: true})
			}
			e.tool = int32(i) // tells the events apart
			keep.list.add(e)
			events = append(events, e)
		}
		list := &keep.list
		want, wantRepeats := dedupeEventsReference(list, events, zone)
		w := formattest.NewCollector()
		got := dedupeEvents(list, reader.NewCtx("", zone, nil, w))
		if got.n != len(want) || w.Warnings[reader.WarnDuplicateEvent] != wantRepeats {
			t.Fatalf("round %d: kept %d of %d with %d repeats; want %d with %d", round, got.n, n, w.Warnings[reader.WarnDuplicateEvent], len(want), wantRepeats)
		}
		for i := range want {
			if got.at(i).tool != want[i].tool {
				t.Fatalf("round %d: event %d is #%d, want #%d", round, i, got.at(i).tool, want[i].tool)
			}
		}
	}
}

// An event keeps its time as it was read: the instant, its zone's name and
// offset, and whether it had one; and takes 56 bytes.
func TestKeptEventTime(t *testing.T) {
	if n := unsafe.Sizeof(keptEvent{}); n != 56 {
		t.Errorf("a kept event takes %d bytes, want 56", n)
	}
	k := newEventKeeper(nil)
	east := time.FixedZone("", 8*3600)
	times := []jsonscan.Time{
		{},
		{T: time.Date(2026, 1, 2, 3, 4, 5, 999_999_999, time.UTC), Set: true},
		{T: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), Naive: true, Set: true},
		{T: time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), Set: true},
		{T: time.Date(9999, 12, 31, 23, 59, 59, 0, east), Set: true},
		{T: time.Date(2026, 6, 1, 0, 0, 0, 0, time.FixedZone("", 8*3600)), Set: true}, // the same zone, another pointer
		{T: time.Date(2026, 6, 1, 0, 0, 0, 0, time.FixedZone("CEST", 2*3600)), Set: true},
		{T: time.Date(2026, 6, 1, 0, 0, 0, 0, time.FixedZone("", 2*3600)), Set: true}, // the same offset, no name
		{T: time.Date(2026, 6, 1, 0, 0, 0, 0, time.FixedZone("", 0)), Set: true},
		{T: time.Date(2026, 6, 1, 0, 0, 0, 0, time.Local), Set: true},
	}
	for _, at := range times {
		var e keptEvent
		k.stamp(&e, at)
		k.list.add(e)
	}
	for i, want := range times {
		got := k.list.when(k.list.at(i))
		wantName, wantOffset := want.T.Zone()
		gotName, gotOffset := got.T.Zone()
		if !got.T.Equal(want.T) || got.Naive != want.Naive || got.Set != want.Set || gotName != wantName || gotOffset != wantOffset ||
			(want.T.Location() == time.UTC) != (got.T.Location() == time.UTC) || got.T.String() != want.T.String() {
			t.Errorf("time %d: got %v (naive %v, set %v), want %v (naive %v, set %v)", i, got.T, got.Naive, got.Set, want.T, want.Naive, want.Set)
		}
	}
	if len(k.list.zones) != 6 { // UTC, Local, +8, CEST, +2, +0
		t.Errorf("%d zones kept, want 6", len(k.list.zones))
	}
}

// referenceEvents is how the general decoder reads an events value: the
// reflective decode DecodeFlex replaced, kept as the test's reference.
func referenceEvents(dec *jsontext.Decoder, w jsonscan.Warner) (eventsField, error) {
	var e eventsField
	opts := jsonscan.DecodeOptions(w)
	kept := func(list []bundleEvent) eventsField {
		k := newEventKeeper(nil)
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
	w.Warn(reader.WarnTypeMismatch)
	return e, dec.SkipValue()
}

// checkEvents fails when the token-level events decoder and the reference
// disagree on a value: result, error or warnings.
func checkEvents(t *testing.T, value []byte) {
	t.Helper()
	wantW, gotW := &jsonscan.WarnList{}, &jsonscan.WarnList{}
	want, wantErr := referenceEvents(jsontext.NewDecoder(bytes.NewReader(value), jsontext.AllowDuplicateNames(true)), wantW)
	var got eventsField
	gotErr := got.DecodeFlex(jsontext.NewDecoder(bytes.NewReader(value), jsontext.AllowDuplicateNames(true)), gotW, jsonscan.DecodeOptions(gotW))
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("errors differ: reference %v, token-level %v\n%.300s", wantErr, gotErr, value)
	}
	if wantErr != nil {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("events differ:\ntoken-level %+v\nreference   %+v\n%.300s", got, want, value)
	}
	slices.Sort(wantW.Kinds)
	slices.Sort(gotW.Kinds)
	if !slices.Equal(gotW.Kinds, wantW.Kinds) {
		t.Fatalf("warnings differ: token-level %v, reference %v\n%.300s", gotW.Kinds, wantW.Kinds, value)
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
	docs := formattest.Files(t, "debugbundle", "debugbundle/*.json")
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

// eventList keeps events in order across its blocks, in memory or with
// its full blocks on the spill, read back in any order, two at a time.
func TestEventList(t *testing.T) {
	spill := formattest.Spill(t)
	for _, sp := range []*recordspill.File{nil, spill} {
		for _, n := range []int{0, 1, EventBlock - 1, EventBlock, EventBlock + 1, 3*EventBlock + 7} {
			l := eventList{spill: sp, strs: int32(4 * EventBlock), zones: []*time.Location{time.UTC}}
			for i := range n {
				l.add(keptEvent{typ: int32(i), tool: int32(n - i)})
			}
			inMemory := 0
			for _, b := range l.blocks {
				inMemory += len(b)
			}
			if want := n; sp != nil && n > 0 {
				want = n - (n-1)/EventBlock*EventBlock // the last block only
				if inMemory != want {
					t.Fatalf("%d events spilled: %d in memory, want %d", n, inMemory, want)
				}
			} else if inMemory != want {
				t.Fatalf("%d events: %d in memory", n, inMemory)
			}
			rng := rand.New(rand.NewPCG(uint64(n), 1))
			order := append(rng.Perm(n), rng.Perm(n)...)
			for k := 0; k+1 < len(order); k += 2 {
				a, b := l.at(order[k]), l.at(order[k+1]) // both valid at once
				if a.typ != int32(order[k]) || a.tool != int32(n-order[k]) || b.typ != int32(order[k+1]) {
					t.Fatalf("%d events: events %d and %d read as %d and %d", n, order[k], order[k+1], a.typ, b.typ)
				}
			}
			if l.n != n || sp.Err() != nil {
				t.Fatalf("%d events: n = %d (%v)", n, l.n, sp.Err())
			}
		}
	}
}

// Blocks damaged on disk read back with every index inside its table
// (none can crash a reader), and fail the spill.
func TestEventListDamaged(t *testing.T) {
	defer func(n int) { EventBlock = n }(EventBlock)
	EventBlock = 8
	rng := rand.New(rand.NewPCG(5, 6))
	failed := 0
	for round := range 100 {
		spill, d := formattest.SpillOnDisk(t) // its error is this round's
		l := eventList{spill: spill, strs: 3, zones: []*time.Location{time.UTC}, errs: []string{"e"}}
		for i := range 40 {
			l.add(keptEvent{typ: int32(i % 3), errText: int32(i % 2), flags: eventAtSet})
		}
		ref := l.disk[rng.IntN(len(l.disk))]
		for range 3 {
			d.WriteAt([]byte{byte(rng.IntN(256)), 0xff}, ref.Off+rng.Int64N(ref.N-1))
		}
		for i := range l.n {
			e := l.at(i)
			_ = l.errOf(e)
			_ = l.when(e)
			if e.typ < 0 || e.typ >= l.strs || e.node >= l.strs || e.status >= l.strs || e.tool >= l.strs {
				t.Fatalf("round %d: event %d names string %d of %d", round, i, e.typ, l.strs)
			}
		}
		if spill.Err() != nil {
			failed++
		}
	}
	if failed < 50 {
		t.Errorf("only %d of 100 damaged lists failed the spill", failed)
	}
}

// A list whose spill stops taking writes (a full disk) keeps its later
// blocks in memory and still reads back the blocks written before.
func TestEventListSpillFills(t *testing.T) {
	spill, d := formattest.SpillOnDisk(t)
	good, full := d.File(), formattest.Unwritable(t)
	defer func(n int) { EventBlock = n }(EventBlock)
	EventBlock = 4
	l := eventList{spill: spill, strs: 100, zones: []*time.Location{time.UTC}}
	for i := range 30 {
		if i == 13 { // three blocks written, the fourth fails
			d.Use(full)
		}
		l.add(keptEvent{typ: int32(i)})
	}
	d.Use(good)
	if len(l.disk) != 3 || l.blocks[0] != nil || l.blocks[4] == nil {
		t.Fatalf("%d blocks on disk, first in memory %v, fifth %v", len(l.disk), l.blocks[0] != nil, l.blocks[4] != nil)
	}
	for i := range l.n {
		if got := l.at(i).typ; got != int32(i) {
			t.Fatalf("event %d read as %d", i, got)
		}
	}
	if spill.Err() != nil {
		t.Fatal(spill.Err())
	}
}

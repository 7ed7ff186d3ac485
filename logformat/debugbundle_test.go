package logformat

import (
	"math/rand/v2"
	"testing"
	"time"
	"unsafe"

	"github.com/agentstat/agentstat/logformat/formattest"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/reader"
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
		n := rng.IntN(3 * eventBlock)
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

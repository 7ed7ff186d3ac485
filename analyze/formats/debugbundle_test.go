package formats

import (
	"math/rand/v2"
	"testing"
	"time"
)

// dedupeEventsReference is what dedupeEvents replaced: a map of the keys seen.
func dedupeEventsReference(events []keptEvent, loc *time.Location) (kept []keptEvent, repeats int) {
	type key struct {
		id    digest
		typ   int32
		ts    int64
		tsSet bool
	}
	seen := map[key]bool{}
	for _, e := range events {
		k := key{e.id, e.typ, e.at.In(loc).UnixNano(), e.at.Set}
		if e.idSet && seen[k] {
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
		var list eventList
		var events []keptEvent
		for i := range n {
			var e keptEvent
			// Few distinct values of each part, so that keys repeat whole
			// and in part: ids sharing their first eight bytes but not the rest.
			e.id[0], e.id[15] = byte(rng.IntN(3)), byte(rng.IntN(2))
			e.idSet = rng.IntN(5) > 0
			e.typ = int32(rng.IntN(3))
			switch rng.IntN(4) {
			case 0: // no time
			case 1: // a naive time: the same instant as another zone's only through loc
				e.at = Time{t: time.Date(2026, 1, 1, rng.IntN(2), 0, 0, 0, time.UTC), naive: true, Set: true}
			default:
				e.at = Time{t: time.Date(2026, 1, 1, rng.IntN(2), 0, 0, 0, zone), Set: true}
			}
			e.tool = int32(i) // tells the events apart
			list.add(e)
			events = append(events, e)
		}
		want, wantRepeats := dedupeEventsReference(events, zone)
		w := newCollector()
		got := dedupeEvents(&list, &readCtx{loc: zone, em: w})
		if got.n != len(want) || w.warnings[WarnDuplicateEvent] != wantRepeats {
			t.Fatalf("round %d: kept %d of %d with %d repeats; want %d with %d", round, got.n, n, w.warnings[WarnDuplicateEvent], len(want), wantRepeats)
		}
		for i := range want {
			if got.at(i).tool != want[i].tool {
				t.Fatalf("round %d: event %d is #%d, want #%d", round, i, got.at(i).tool, want[i].tool)
			}
		}
	}
}

package debugbundle

import (
	"bufio"
	"encoding/binary"
	"reflect"
	"slices"
	"time"
	"unsafe"

	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// eventList is a document's kept events, in blocks of EventBlock: grown as
// one slice, a 200 MB bundle's list had its old and new arrays live
// together at each growth, twice its size at the peak of its read. With a
// spill, each full block goes there, and comes back a block at a time
// into a small cache: a bundle's events are held until its document ends
// (its calls are paired across all of them), and in memory they grew with
// the bundle (5 MB for 200 MB).
type eventList struct {
	blocks [][]keptEvent     // all full but the last; nil for a block on the spill
	disk   []recordspill.Ref // where each block on the spill is
	spill  *recordspill.File // where full blocks go; nil keeps them in memory
	full   bool              // a write to the spill failed: the blocks after stay in memory
	cache  [eventCache]eventSlot
	tick   uint64
	n      int
	zones  []*time.Location // what the events' zone indexes name
	errs   []string         // the events' error texts
	strs   int32            // how many strings the events' indexes name (eventsField.Strs)
}

// eventSlot holds a block read back from the spill.
type eventSlot struct {
	block  int // 1 + its index, 0 for none
	events []keptEvent
	used   uint64
}

// eventCache is how many blocks read back are kept: the readers hold two
// events at a time (a call and its result, two copies of a key).
const eventCache = 3

// EventBlock is how many events a block holds (a variable for tests).
var EventBlock = 4096

// emptyCopy is an empty list that keeps its events where l does, with l's tables.
func (l *eventList) emptyCopy() *eventList {
	return &eventList{spill: l.spill, zones: l.zones, errs: l.errs, strs: l.strs}
}

func (l *eventList) add(e keptEvent) {
	switch {
	case len(l.blocks) == 0:
		l.blocks = [][]keptEvent{nil} // grown by append: most documents hold a few events
	case len(l.blocks[len(l.blocks)-1]) == EventBlock:
		l.putFull()
		l.blocks = append(l.blocks, make([]keptEvent, 0, EventBlock))
	}
	last := &l.blocks[len(l.blocks)-1]
	*last = append(*last, e)
	l.n++
}

// putFull writes the last block, full, to the spill; on failure it stays
// in memory.
func (l *eventList) putFull() {
	if l.spill == nil || l.full {
		return
	}
	b := len(l.blocks) - 1
	ref, ok := l.spill.Write(func(w *bufio.Writer) { encodeEvents(w, l.blocks[b]) })
	if !ok {
		l.full = true // the blocks written before are read back from it still
		return
	}
	for len(l.disk) < b {
		l.disk = append(l.disk, recordspill.Ref{})
	}
	l.disk = append(l.disk, ref)
	l.blocks[b] = nil
}

// at is event i. It stays valid while eventCache-1 more are taken.
func (l *eventList) at(i int) *keptEvent {
	b := i / EventBlock
	if block := l.blocks[b]; block != nil {
		return &block[i%EventBlock]
	}
	return &l.slot(b).events[i%EventBlock]
}

// slot is the cache's slot of block b, read back into the least recently
// used if no slot holds it.
func (l *eventList) slot(b int) *eventSlot {
	l.tick++
	lru := 0
	for k := range l.cache {
		if s := &l.cache[k]; s.block == b+1 {
			s.used = l.tick
			return s
		} else if s.used < l.cache[lru].used {
			lru = k
		}
	}
	s := &l.cache[lru]
	s.events = readEventBlock(l.spill, l.disk[b], s.events[:0], l)
	s.block, s.used = b+1, l.tick
	return s
}

// eventBytes is how many bytes encodeEvents writes for an event.
const eventBytes = len(reader.Digest{}) + 8 + 4 + 5*4 + 2 + 1

func encodeEvents(w *bufio.Writer, events []keptEvent) {
	b := make([]byte, 0, eventBytes)
	le := binary.LittleEndian
	for i := range events {
		e := &events[i]
		b = append(b[:0], e.id[:]...)
		b = le.AppendUint64(b, uint64(e.sec))
		b = le.AppendUint32(b, e.nsec)
		for _, v := range [...]int32{e.typ, e.node, e.status, e.tool, e.errText} {
			b = le.AppendUint32(b, uint32(v))
		}
		b = le.AppendUint16(b, e.zone)
		w.Write(append(b, e.flags))
	}
}

// readEventBlock appends a block's events, read back from the spill, to into.
// An index outside its table (a spill damaged on disk) is read as 0, and
// fails the spill: the report cannot be trusted, and must not crash.
func readEventBlock(s *recordspill.File, ref recordspill.Ref, into []keptEvent, l *eventList) []keptEvent {
	r, into := s.Record(ref), slices.Grow(into, EventBlock)
	le := binary.LittleEndian
	in := func(v uint32, n int) int32 {
		if v >= uint32(n) {
			r.Corrupt()
			return 0
		}
		return int32(v)
	}
	for range EventBlock {
		b := r.Take(eventBytes)
		var e keptEvent
		copy(e.id[:], b)
		b = b[len(e.id):]
		e.sec, e.nsec = int64(le.Uint64(b)), le.Uint32(b[8:])
		e.typ, e.node = in(le.Uint32(b[12:]), int(l.strs)), in(le.Uint32(b[16:]), int(l.strs))
		e.status, e.tool = in(le.Uint32(b[20:]), int(l.strs)), in(le.Uint32(b[24:]), int(l.strs))
		e.errText = in(le.Uint32(b[28:]), len(l.errs)+1)
		e.zone = uint16(in(uint32(le.Uint16(b[32:])), max(len(l.zones), 1)))
		if e.flags = b[34]; e.atSet() && len(l.zones) == 0 { // a time in no zone
			e.flags &^= eventAtSet
			r.Corrupt()
		}
		into = append(into, e)
	}
	s.Done(r)
	return into
}

// when is e's timestamp, as it was read.
func (l *eventList) when(e *keptEvent) jsonscan.Time {
	if !e.atSet() {
		return jsonscan.Time{}
	}
	return jsonscan.Time{T: time.Unix(e.sec, int64(e.nsec)).In(l.zones[e.zone]), Naive: e.flags&eventNaive != 0, Set: true}
}

// errOf is e's error text, "" for none.
func (l *eventList) errOf(e *keptEvent) string {
	if e.errText == 0 {
		return ""
	}
	return l.errs[e.errText-1]
}

// StreamFrom reads a document's events from the raw document path's window
// as DecodeFlex does: an array, or an object holding one under "events".
func (e *eventsField) StreamFrom(r *jsonscan.Stream, w *jsonscan.WarnList) bool {
	switch r.PeekKind() {
	case '[':
		e.Present = true
		return eventArray(r, e, w)
	case '{':
		var events *eventsField
		ok := r.Members(false, func(key string) bool {
			if key != "events" {
				return r.SkipAny(0)
			}
			switch r.PeekKind() {
			case 'n':
				events = nil
				return r.Step(func(s *jsonscan.Scanner) bool { return s.Null() })
			case '[':
				if events == nil {
					events = new(eventsField)
				}
				return eventArray(r, events, w)
			}
			return false
		})
		if ok && events != nil {
			e.Present, e.List, e.Strs = true, events.List, events.Strs
		}
		return ok
	case 'n':
		return r.Step(func(s *jsonscan.Scanner) bool { return s.Null() })
	}
	return false
}

// eventArray reads an events array as decodeEvents does, one event a step.
func eventArray(r *jsonscan.Stream, list *eventsField, w *jsonscan.WarnList) bool {
	keep := newEventKeeper(reader.SpillOf(r.Env))
	if !r.Elements(func() bool {
		var e bundleEvent
		mark := len(w.Kinds)
		if !r.Step(func(s *jsonscan.Scanner) bool {
			e, w.Kinds = bundleEvent{}, w.Kinds[:mark]
			return scanEvent(s, &e, w)
		}) {
			return false
		}
		keep.add(&e)
		return true
	}) {
		return false
	}
	keep.into(list)
	return true
}

// eventPlan reads an event; its names written twice are read as the
// general decoder reads them, the last value over the first.
var eventPlan = jsonscan.DupOK(jsonscan.PlanOf(reflect.TypeFor[bundleEvent]()))

// scanEvent reads one element of an events array: an object or null. Any
// other kind gives up.
func scanEvent(s *jsonscan.Scanner, e *bundleEvent, w *jsonscan.WarnList) bool {
	return s.Null() || eventPlan.Read(s, unsafe.Pointer(e), w)
}

// decodeEvents decodes an events array token by token (a bundle can hold
// hundreds of thousands), exactly as the general decoder decodes
// []bundleEvent, and keeps each event compact.
func decodeEvents(dec *jsontext.Decoder, list *eventsField, w jsonscan.Warner, opts json.Options) error {
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	keep := newEventKeeper(reader.SpillOf(w)) // a long list's blocks wait there while the document is read
	for dec.PeekKind() != ']' {
		var e bundleEvent
		switch dec.PeekKind() {
		case '{':
			err := json.UnmarshalDecode(dec, &e, opts)
			if err != nil {
				return err
			}
		case 'n':
			if _, err := dec.ReadToken(); err != nil {
				return err
			}
		default:
			w.Warn(reader.WarnTypeMismatch)
			if err := dec.SkipValue(); err != nil {
				return err
			}
		}
		keep.add(&e)
	}
	keep.into(list)
	_, err := dec.ReadToken()
	return err
}

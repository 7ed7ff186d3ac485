// Package debugbundle reads one Debug Bundle (seed 002), or an EventsExport alone.
package debugbundle

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/zeebo/xxh3"

	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/agentstat/agentstat/model"
)

// Format is debugbundle's entry in the registry.
var Format = reader.Format[Doc]{
	Name:      "debugbundle",
	Title:     "Debug Bundle (state, events, telemetry, policy) or an EventsExport alone",
	Signature: "an object with a state object and events; or whose events is an array of objects with type and timestamp",
	Match: func(d Doc) bool {
		if d.State != nil && d.Events.Present {
			return true
		}
		if !d.Events.Present || d.Events.List.n == 0 {
			return false
		}
		for i := range d.Events.List.n {
			if e := d.Events.List.at(i); !e.typSet() || !e.atSet() {
				return false
			}
		}
		return true
	},
	Read: read,
}

// Doc is what debugbundle reads of a document.
type Doc struct {
	*reader.Shared
	*Fields
}

// Fields are the members only a debug bundle has.
type Fields struct {
	State  *bundleState `json:"state"`
	Events eventsField  `json:"events"`
}

type bundleState struct {
	ID   jsonscan.Str `json:"id"`
	Task *struct {
		Goal  jsonscan.Str `json:"goal"`
		Steps []struct {
			ID          jsonscan.Str `json:"id"`
			Description jsonscan.Str `json:"description"`
			Status      jsonscan.Str `json:"status"`
		} `json:"steps"`
	} `json:"task"`
	Telemetry *struct {
		TotalDuration jsonscan.Num `json:"totalDuration"`
		TokenCount    jsonscan.Num `json:"tokenCount"`
		ToolCallCount jsonscan.Num `json:"toolCallCount"`
		RetryCount    jsonscan.Num `json:"retryCount"`
	} `json:"telemetry"`
	Policy *struct {
		MaxToolCalls jsonscan.Num `json:"maxToolCalls"`
		MaxDuration  jsonscan.Num `json:"maxDuration"`
	} `json:"policy"`
	CreatedAt jsonscan.Time `json:"createdAt"`
	UpdatedAt jsonscan.Time `json:"updatedAt"`
}

type bundleEvent struct {
	ID        jsonscan.Str  `json:"id"`
	Timestamp jsonscan.Time `json:"timestamp"`
	Type      jsonscan.Str  `json:"type"`
	NodeID    jsonscan.Str  `json:"nodeId"`
	Status    jsonscan.Str  `json:"status"`
	Summary   jsonscan.Str  `json:"summary"`
	Metadata  *bundleMeta   `json:"metadata"`
}

type bundleMeta struct {
	ToolName jsonscan.Str `json:"toolName"`
	Error    jsonscan.Str `json:"error"`
}

// keptEvent is what a bundle reader reads of an event, in 56 bytes rather
// than the ~220 of a decoded bundleEvent with its strings (a 200 MB bundle
// has ~95,000 events, held until its document ends): the id as a digest
// (dedupe only compares it), the time as Unix seconds and nanoseconds in a
// zone of the list's table, repeated strings as indexes into the
// document's table, and an error text only where one can be shown, in the
// list's own table.
type keptEvent struct {
	id                      reader.Digest
	sec                     int64 // the timestamp's, in zones[zone]
	nsec                    uint32
	typ, node, status, tool int32 // into eventsField.Strs
	errText                 int32 // 1 + its index in the list's errs (a failed tool result's: its metadata error, else its summary), 0 for none
	zone                    uint16
	flags                   uint8 // eventAtSet, eventNaive, eventIDSet, eventTypSet
}

const (
	eventAtSet  = 1 << iota // a timestamp was given
	eventNaive              // written without a zone (Time.naive)
	eventIDSet              // an id was given
	eventTypSet             // a type was given
)

func (e *keptEvent) atSet() bool  { return e.flags&eventAtSet != 0 }
func (e *keptEvent) idSet() bool  { return e.flags&eventIDSet != 0 }
func (e *keptEvent) typSet() bool { return e.flags&eventTypSet != 0 }

// eventKeeper turns decoded events into kept ones, interning their strings
// and their zones.
type eventKeeper struct {
	list  eventList
	strs  []string
	index map[string]int32
	zones map[eventZone]uint16 // the list's zones but UTC (0) and Local (1)
}

// eventZone is a zone an event's time was written in, by name and offset.
type eventZone struct {
	name   string
	offset int
}

// newEventKeeper keeps events, their full blocks on spill (nil: in memory).
func newEventKeeper(spill *recordspill.File) *eventKeeper {
	return &eventKeeper{index: map[string]int32{}, list: eventList{spill: spill}}
}

func (k *eventKeeper) str(s string) int32 {
	i, ok := k.index[s]
	if !ok {
		i = int32(len(k.strs))
		k.strs = append(k.strs, s)
		k.index[s] = i
	}
	return i
}

// zone is the index of t's zone in the list's table, added once: a zone
// is its name and offset at t (a timestamp's own is a fixed offset).
func (k *eventKeeper) zone(t time.Time) uint16 {
	if k.list.zones == nil {
		k.list.zones = []*time.Location{time.UTC, time.Local}
	}
	switch loc := t.Location(); loc {
	case time.UTC:
		return 0
	case time.Local:
		return 1
	}
	name, offset := t.Zone()
	z := eventZone{name, offset}
	i, ok := k.zones[z]
	if !ok && len(k.list.zones) <= math.MaxUint16 {
		if k.zones == nil {
			k.zones = map[eventZone]uint16{}
		}
		i = uint16(len(k.list.zones))
		k.list.zones = append(k.list.zones, time.FixedZone(name, offset))
		k.zones[z] = i
	}
	return i // past 65,536 zones (never written by hand), UTC: the same instant
}

func (k *eventKeeper) add(e *bundleEvent) {
	kept := keptEvent{id: reader.IDDigest(e.ID.V), typ: k.str(e.Type.V), node: k.str(e.NodeID.V), status: k.str(e.Status.V)}
	k.stamp(&kept, e.Timestamp)
	if e.ID.Set {
		kept.flags |= eventIDSet
	}
	if e.Type.Set {
		kept.flags |= eventTypSet
	}
	tool, metaErr := "", ""
	if e.Metadata != nil {
		tool, metaErr = e.Metadata.ToolName.V, e.Metadata.Error.V
	}
	kept.tool = k.str(tool)
	if model.Fold(e.Type.V) == "tool_result" && model.Fold(e.Status.V) == "failure" {
		if text := cmp.Or(metaErr, e.Summary.V); text != "" {
			k.list.errs = append(k.list.errs, text)
			kept.errText = int32(len(k.list.errs))
		}
	}
	k.list.add(kept)
}

// stamp gives e the time at.
func (k *eventKeeper) stamp(e *keptEvent, at jsonscan.Time) {
	if !at.Set {
		return
	}
	e.sec, e.nsec, e.zone = at.T.Unix(), uint32(at.T.Nanosecond()), k.zone(at.T)
	e.flags |= eventAtSet
	if at.Naive {
		e.flags |= eventNaive
	}
}

// into stores the events kept in e.
func (k *eventKeeper) into(e *eventsField) {
	k.list.strs = int32(len(k.strs))
	e.List, e.Strs = k.list, k.strs
}

func read(d Doc, c *reader.Ctx) {
	ev := &d.Events
	events := dedupeEvents(&ev.List, c)
	r := &model.Run{Format: "debugbundle"}
	st := d.State
	if st != nil {
		r.ID = st.ID.V
		r.Span = c.Span(st.CreatedAt, st.UpdatedAt)
		if st.Task != nil {
			r.Title, r.Request = st.Task.Goal.V, st.Task.Goal.V
			for _, s := range st.Task.Steps {
				r.Steps = append(r.Steps, model.Step{Name: reader.FirstOf(s.Description, s.ID), Status: reader.StepStatus(s.Status.V, c)})
			}
		}
		if t := st.Telemetry; t != nil {
			r.Tokens.Unspecified = t.TokenCount.Int()
			r.Context.Retries = t.RetryCount.Int()
			if p := st.Policy; p != nil {
				if p.MaxToolCalls.Set && p.MaxToolCalls.V > 0 && t.ToolCallCount.Set {
					r.Context.ToolCallBudget = append(r.Context.ToolCallBudget, t.ToolCallCount.V/p.MaxToolCalls.V)
				}
				if p.MaxDuration.Set && p.MaxDuration.V > 0 && t.TotalDuration.Set {
					r.Context.DurationBudget = append(r.Context.DurationBudget, t.TotalDuration.V/p.MaxDuration.V)
				}
			}
		}
	} else if events.n > 0 { // an EventsExport alone spans its first to last event
		r.Span = c.Span(events.when(events.at(0)), events.when(events.at(events.n-1)))
	}
	if r.ID == "" {
		r.ID = c.FallbackID()
	}

	folded := make([]string, len(ev.Strs)) // each string of the table, case-folded once
	for i, s := range ev.Strs {
		folded[i] = model.Fold(s)
	}
	calls := pairToolCalls(events, ev.Strs, folded, c)
	if st != nil && st.Telemetry != nil && st.Telemetry.ToolCallCount.Set && st.Telemetry.ToolCallCount.Int() != int64(calls.N) {
		c.Warn(reader.WarnCountMismatch)
	}

	aborted := false
	lastOutcome := ""
	for i := range events.n {
		switch t := folded[events.at(i).typ]; t {
		case "budget_exceeded":
			r.Context.BudgetExceeded++
			aborted = true
		case "abort":
			aborted = true
		case "budget_warning":
			r.Context.BudgetWarnings++
		case "error", "tool_result", "node_end":
			lastOutcome = t
		}
	}
	r.Status = bundleStatus(aborted || lastOutcome == "error", r.Steps)
	c.RunParts(r, calls)
}

func bundleStatus(failed bool, steps []model.Step) model.Status {
	if failed {
		return model.StatusFailed
	}
	if len(steps) == 0 {
		return model.StatusUnknown
	}
	allDone, anyFailed, anyOpen := true, false, false
	for _, s := range steps {
		switch s.Status {
		case model.StepSkipped:
		case model.StepCompleted:
		case model.StepFailed:
			allDone, anyFailed, anyOpen = false, true, true
		default:
			allDone, anyOpen = false, true
		}
	}
	switch {
	case allDone:
		return model.StatusSuccess
	case anyFailed:
		return model.StatusFailed
	case anyOpen:
		return model.StatusRunning
	}
	return model.StatusUnknown
}

// dedupeEvents drops exact repeats: same id, type and timestamp as an earlier
// event. Producers reuse ids for distinct events, so an id alone proves nothing.
// A filter of the keys seen (Bloom's, a byte an event) finds the events whose
// key may have come before; only the events that share a hash with one of
// them are sorted and compared. Every event's key sorted would take 1.4 MB
// for a 200 MB bundle (~86,000 events), at the peak of the 1 GB corpus's
// read, and a map of them 6 MB; the filter takes 128 KB, and the few events
// whose key it had seen or says it had (2% of the others) little more.
func dedupeEvents(list *eventList, c *reader.Ctx) *eventList {
	if list.n < 2 {
		return list
	}
	at := func(i int32) (*keptEvent, time.Time) {
		e := list.at(int(i))
		return e, list.when(e).In(c.Loc)
	}
	hashOf := func(i int32) uint64 {
		e, t := at(i)
		return eventHash(e, t)
	}
	seen := newKeyFilter(list.n)
	var again []uint64 // the hashes of the events whose key the filter had seen
	for i := range int32(list.n) {
		if h := hashOf(i); seen.add(h) {
			again = append(again, h)
		}
	}
	if len(again) == 0 {
		return list
	}
	seen = keyFilter{}
	slices.Sort(again)
	again = slices.Compact(again)
	var keys []eventKey // every event of those hashes: the first of a key among them
	for i := range int32(list.n) {
		h := hashOf(i)
		if _, ok := slices.BinarySearch(again, h); ok {
			keys = append(keys, eventKey{h, i})
		}
	}
	again = nil
	sameKey := func(a, b int32) int {
		x, xt := at(a)
		y, yt := at(b)
		return cmp.Or(bytes.Compare(x.id[:], y.id[:]), cmp.Compare(x.typ, y.typ),
			cmp.Compare(xt.UnixNano(), yt.UnixNano()), cmpBool(x.atSet(), y.atSet()))
	}
	// By hash (ties of distinct keys are rare), then key, then position.
	slices.SortFunc(keys, func(a, b eventKey) int {
		if a.h != b.h {
			return cmp.Compare(a.h, b.h)
		}
		return cmp.Or(sameKey(a.i, b.i), cmp.Compare(a.i, b.i))
	})
	repeat := reader.NewBitset(int32(list.n))
	for j := 1; j < len(keys); j++ {
		if k := keys[j]; k.h == keys[j-1].h && list.at(int(k.i)).idSet() && sameKey(keys[j-1].i, k.i) == 0 {
			repeat.Set(k.i) // a later copy of the first of its key
		}
	}
	keys = nil
	if !repeat.Any() {
		return list
	}
	kept := list.emptyCopy() // a new list: the old one's blocks may be on the spill
	for i := range list.n {
		if repeat.Has(int32(i)) {
			c.Warn(reader.WarnDuplicateEvent)
			continue
		}
		kept.add(*list.at(i))
	}
	return kept
}

// eventKey is an event's position and the hash of its key.
type eventKey struct {
	h uint64
	i int32
}

// eventHash is the hash of what makes e's key (dedupeEvents), t its time
// in the reader's zone: equal keys hash alike.
func eventHash(e *keptEvent, t time.Time) uint64 {
	var key [len(reader.Digest{}) + 4 + 8 + 1]byte
	copy(key[:], e.id[:])
	binary.LittleEndian.PutUint32(key[16:], uint32(e.typ))
	binary.LittleEndian.PutUint64(key[20:], uint64(t.UnixNano()))
	if e.atSet() {
		key[28] = 1
	}
	return xxh3.Hash(key[:])
}

// keyFilter is a Bloom filter of hashes: 8 bits per key, 4 probes (about 2%
// false positives when full).
type keyFilter struct {
	bits reader.Bitset
	mask uint64
}

func newKeyFilter(n int) keyFilter {
	size := uint64(64)
	for size < 8*uint64(n) {
		size *= 2
	}
	return keyFilter{bits: make(reader.Bitset, size/64), mask: size - 1}
}

// add puts h in the filter and reports whether it was there already (or
// seemed to be).
func (f keyFilter) add(h uint64) (seen bool) {
	step := h>>32 | 1 // odd: the probes differ
	seen = true
	for range 4 {
		bit := h & f.mask
		if f.bits[bit/64]&(1<<(bit%64)) == 0 {
			seen = false
			f.bits[bit/64] |= 1 << (bit % 64)
		}
		h += step
	}
	return seen
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// pairToolCalls pairs each tool_call with the next unused tool_result for the
// same tool, else the next unused tool_result of the same node; each result
// pairs with at most one call, in order. An unpaired call's outcome is unknown.
// strs is the events' string table, folded the same strings case-folded. The
// calls are made as they are taken from the parts.
func pairToolCalls(events *eventList, strs, folded []string, c *reader.Ctx) *model.CallParts {
	var calls, results []int32 // event indexes
	for i := range events.n {
		switch folded[events.at(i).typ] {
		case "tool_call":
			calls = append(calls, int32(i))
		case "tool_result":
			results = append(results, int32(i))
		}
	}
	pair := make([]int32, len(calls)) // 1 + the event index of call n's result, 0 for none
	used := reader.NewBitset(int32(events.n))
	match := func(key func(*keptEvent) string) {
		queues := map[string][]int32{}
		for _, ri := range results {
			if !used.Has(ri) {
				if k := key(events.at(int(ri))); k != "" {
					queues[k] = append(queues[k], ri)
				}
			}
		}
		for n, ci := range calls {
			if pair[n] != 0 {
				continue
			}
			k := key(events.at(int(ci)))
			if k == "" {
				continue
			}
			q := queues[k]
			for len(q) > 0 && (q[0] < ci || used.Has(q[0])) {
				q = q[1:] // results before this call can serve no later call either
			}
			if len(q) > 0 {
				pair[n] = q[0] + 1
				used.Set(q[0])
				q = q[1:]
			}
			queues[k] = q
		}
	}
	match(func(e *keptEvent) string { return strs[e.tool] })
	match(func(e *keptEvent) string { return strs[e.node] })

	return model.PartsOf(len(calls), len(calls), reader.CallPart, func(n int) (model.ToolCall, bool) {
		ev := events.at(int(calls[n]))
		at := events.when(ev)
		call := model.ToolCall{Name: strs[ev.tool], Span: model.Span{Started: at.In(c.Loc)}}
		if pair[n] != 0 {
			res := events.at(int(pair[n] - 1))
			call.Span = c.Span(at, events.when(res))
			if folded[res.status] == "failure" {
				call.Outcome = model.OutcomeError
				call.Error = events.errOf(res)
			} else {
				call.Outcome = model.OutcomeOK
			}
		}
		return call, true
	})
}

// eventsField is a debug bundle's {events, payloads} object, or the bare
// events array of an EventsExport, kept compact (see keptEvent).
type eventsField struct {
	List    eventList
	Strs    []string // what the events' string indexes name
	Present bool
}

func (e *eventsField) DecodeFlex(dec *jsontext.Decoder, w jsonscan.Warner, opts json.Options) error {
	switch dec.PeekKind() {
	case '[':
		e.Present = true
		return decodeEvents(dec, e, w, opts)
	case '{':
		var events *eventsField
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		for dec.PeekKind() != '}' {
			name, err := dec.ReadToken()
			if err != nil {
				return err
			}
			switch {
			case name.String() != "events":
				err = dec.SkipValue()
			case dec.PeekKind() == 'n':
				events = nil
				err = dec.SkipValue()
			case dec.PeekKind() == '[':
				if events == nil {
					events = new(eventsField)
				}
				err = decodeEvents(dec, events, w, opts)
			default:
				if events == nil {
					events = new(eventsField)
				}
				w.Warn(reader.WarnTypeMismatch)
				err = dec.SkipValue()
			}
			if err != nil {
				return err
			}
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		if events != nil {
			e.Present, e.List, e.Strs = true, events.List, events.Strs
		}
		return nil
	case 'n':
		return dec.SkipValue()
	}
	w.Warn(reader.WarnTypeMismatch)
	return dec.SkipValue()
}

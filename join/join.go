// Package join joins the runs spread over files: a reader emits a
// Fragment for each file whose runs may span files, holding its records
// behind Records, and JoinEach, once every file is read, joins them by
// plan, session or trace, each format by the join it registered (Register,
// or RegisterEntries for a format whose records are a list of entries, kept
// in an EntryLog). Records wait for their join on the record spill. A
// fragment travels in a partial as its head and its records' segments
// (EncodeFragment, DecodeFragment), the same for every format.
//
// The joins are registered by the format packages (logformat/<name>), whose
// readers make the fragments; a program that decodes fragments imports
// logformat, which imports them all, as the binary does.
package join

import (
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/model"
)

// FragmentKind tells which record a fragment holds.
type FragmentKind int8

// Fragment kinds. A kind's value is written in partials: a new kind takes
// the next one.
const (
	FragmentPlan FragmentKind = iota
	FragmentBatch
	FragmentProgress
	FragmentMetrics
	FragmentClaude // a Claude Code transcript entry
	FragmentCodex  // a Codex rollout entry
	FragmentOtel   // an OpenTelemetry span
	FragmentGemini // a Gemini CLI session header or message
)

// Fragment is one file's records of a run that may span files (a plan, a
// session, a trace), waiting to be joined with the others of its run.
type Fragment struct {
	Kind    FragmentKind
	Source  string
	Records Records      // its records, kept as its format keeps them; nil for none
	Key     string       // what its join groups by: a session, trace, plan (plan, progress) or batch id, or a PlanAgent metrics' session
	Count   jsonscan.Num // completedBatches of a PlanProgress or ExecutionMetrics
}

// Records is a fragment's records: each format's own type, which the
// format's join reads and which travel in partials as segments.
type Records interface {
	// WireSegments are the records as segments of a partial, and how many
	// entries they hold; with noText, their texts withheld (WithholdText).
	WireSegments(loc *time.Location, noText bool) ([]Segment, int)
}

// HeadAppender is a Records with fields of its own in a fragment's
// head in a partial (ReadHead reads them back).
type HeadAppender interface {
	AppendHead(head []byte, loc *time.Location) []byte
}

// A JoinedFormat is a format whose runs span files, registered with
// Register beside its reader: how its fragments come back from a partial,
// and its join.
type JoinedFormat struct {
	Tables bool // each segment's table sizes travel in the head (Claude Code's)
	// ReadHead reads what AppendHead wrote, and returns what makes the
	// fragment's records of its segments once they are copied to a spill;
	// either refuses a fragment no reader makes.
	ReadHead func(kind FragmentKind, h *recordspill.Reader, loc *time.Location) (FromPartial, bool)
	// Join joins the format's fragments, in source order, and emits their
	// runs (to emitParts, if set and the format makes its calls in parts).
	Join func(frags []*Fragment, w jsonscan.Warner, emit func(*model.Run, []*Fragment), emitParts func(*model.Run, *model.CallParts, []*Fragment))
}

// FromPartial makes a fragment's records from its segments once they are
// copied to a spill (entries: how many they hold); false refuses them.
type FromPartial func(spill *recordspill.File, segs []recordspill.Ref, entries int) (Records, bool)

// joinedFormats are the joined formats by the kinds of their fragments.
var joinedFormats = map[FragmentKind]*JoinedFormat{}

// Register registers f as the format of fragments of kinds.
func Register(f *JoinedFormat, kinds ...FragmentKind) {
	for _, k := range kinds {
		joinedFormats[k] = f
	}
}

// JoinEach resolves the fragments gathered from the whole scanned tree into
// runs, handing each to emit as soon as it is complete: one session or
// trace at a time, plans all at once. A BatchResult belongs to the plan
// whose plannedBatches names it, else it is a run of its own; PlanProgress
// and ExecutionMetrics belong to a plan by planId / sessionId, else they
// are orphans. Runs come out format by format, in the order of their
// fragments' kinds, each in source order. Emitted runs are no
// longer read by the join, so emit may keep, fold or empty them. Each
// comes with the fragments that fed it (from, in source order), and the
// join keeps no run once emitted (a run is ~500 bytes, and there is one
// per session).
//
// A Claude Code session goes to emitParts instead, when it is set, with
// its calls still to be made (model.CallParts): a long session's calls are most
// of the join's memory, and emitParts may fold them a part at a time.
func JoinEach(frags []*Fragment, w jsonscan.Warner, emit func(r *model.Run, from []*Fragment), emitParts func(r *model.Run, calls *model.CallParts, from []*Fragment)) {
	sort.SliceStable(frags, func(i, j int) bool { return frags[i].Source < frags[j].Source })
	byFormat := map[*JoinedFormat][]*Fragment{}
	for _, f := range frags {
		jf := joinedFormats[f.Kind]
		byFormat[jf] = append(byFormat[jf], f)
	}
	var formats []*JoinedFormat
	for _, kind := range slices.Sorted(maps.Keys(joinedFormats)) {
		if jf := joinedFormats[kind]; !slices.Contains(formats, jf) {
			formats = append(formats, jf)
		}
	}
	for _, jf := range formats {
		jf.Join(byFormat[jf], w, emit, emitParts)
		for _, f := range byFormat[jf] {
			f.Records = nil // joined: only Source and Kind are read after
		}
	}
}

// Group groups fragments by key, keys in order of first appearance.
func Group(frags []*Fragment) (order []string, groups map[string][]*Fragment) {
	groups = map[string][]*Fragment{}
	for _, f := range frags {
		if _, seen := groups[f.Key]; !seen {
			order = append(order, f.Key)
		}
		groups[f.Key] = append(groups[f.Key], f)
	}
	return order, groups
}

// SegmentLines is how many line records a file keeps in memory before it
// writes them out as a segment (a variable for tests): with their usages,
// uses and results, about 0.75 MB for a long transcript while it is read.
var SegmentLines = 1 << 12

package logformat

import (
	"maps"
	"slices"
	"sort"

	"github.com/agentstat/agentstat/model"
)

// The cross-file joins: a reader emits a Fragment for each file whose runs
// may span files, and JoinEach, once every file is read, joins them by
// plan, session or trace, each format by its own join.

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
	Kind   FragmentKind
	Source string
	plan   *planRecord
	batch  *batchRecord
	claude *claudeFile
	log    fragmentLog  // the entries of a format in joinedFormats
	key    string       // planId (plan, progress), batchId (batch) or sessionId (metrics)
	count  Num          // completedBatches of a PlanProgress or ExecutionMetrics
	spill  *RecordSpill // where claude is while nobody needs it (nil: in memory)
	refs   []spillRef   // its segments on the spill, the last with the file's header
}

// JoinEach resolves the fragments gathered from the whole scanned tree into
// runs, handing each to emit as soon as it is complete: one session or
// trace at a time, plans all at once. A BatchResult belongs to the plan
// whose plannedBatches names it, else it is a run of its own; PlanProgress
// and ExecutionMetrics belong to a plan by planId / sessionId, else they
// are orphans. Runs come out format by format (plans, Codex, OTel, Gemini,
// Claude Code), each in source order. Emitted runs are no
// longer read by the join, so emit may keep, fold or empty them. Each
// comes with the fragments that fed it (from, in source order), and the
// join keeps no run once emitted (a run is ~500 bytes, and there is one
// per session).
//
// A Claude Code session goes to emitParts instead, when it is set, with
// its calls still to be made (CallParts): a long session's calls are most
// of the join's memory, and emitParts may fold them a part at a time.
func JoinEach(frags []*Fragment, w Warner, emit func(r *model.Run, from []*Fragment), emitParts func(r *model.Run, calls *CallParts, from []*Fragment)) {
	sort.SliceStable(frags, func(i, j int) bool { return frags[i].Source < frags[j].Source })
	var claude, plan []*Fragment
	byKind := map[FragmentKind][]*Fragment{}
	for _, f := range frags {
		switch _, joined := joinedFormats[f.Kind]; {
		case f.Kind == FragmentClaude:
			claude = append(claude, f)
		case joined:
			byKind[f.Kind] = append(byKind[f.Kind], f)
		default:
			plan = append(plan, f)
		}
	}
	// Claude Code's runs come last, the longest session's first, and its
	// join (the peak of memory) is made meanwhile on another goroutine:
	// the other formats' joins leave a core to spare, and hold little (their
	// records come back a session at a time).
	sessions := orderClaude(claude)
	sessions.joinFirst(w)
	emitPlans(plan, w, emit)
	for _, kind := range slices.Sorted(maps.Keys(joinedFormats)) {
		joinedFormats[kind].join(byKind[kind], w, emit)
		for _, f := range byKind[kind] {
			f.log = nil // joined: only Source and Kind are read after
		}
	}
	joinClaude(sessions, w, emit, emitParts)
}

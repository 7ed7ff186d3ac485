package logformat

import (
	"slices"
	"sort"

	"github.com/agentstat/agentstat/model"
)

// planagent: PlanAgent iterative-execution state (seed 003), one record per
// file as its memory keys store it. The records of one plan are joined across
// the scanned tree by Join.
var planagentFormat = &Format{
	Name:      "planagent",
	Title:     "PlanAgent state: ExecutionPlan, BatchResult, PlanProgress, ExecutionMetrics records",
	Signature: "plannedBatches (ExecutionPlan); batchId with executedTasks (BatchResult); planId with totalBatches (PlanProgress); sessionId with totalBatches (ExecutionMetrics)",
	match: func(d *document) bool {
		return d.PlannedBatches != nil ||
			(d.BatchID.Set && d.ExecutedTasks != nil) ||
			(d.TotalBatches.Set && (d.PlanID.Set || d.SessionIDCamel.Set))
	},
	read: readPlanagent,
}

type taskBatch struct {
	BatchID Str          `json:"batchId"`
	Tasks   []taskRecord `json:"tasks"`
	Status  Str          `json:"status"`
}

// taskRecord is a ToolTask or a TaskResult; the seed leaves both unspelled, so
// the usual spellings of id, tool and status are all read.
type taskRecord struct {
	TaskID        Str `json:"taskId"`
	ID            Str `json:"id"`
	ToolName      Str `json:"toolName"`
	Tool          Str `json:"tool"`
	Name          Str `json:"name"`
	Status        Str `json:"status"`
	ExecutionTime Num `json:"executionTime"`
	Error         Str `json:"error"`
}

func (t *taskRecord) id() string   { return firstOf(t.TaskID, t.ID) }
func (t *taskRecord) tool() string { return firstOf(t.ToolName, t.Tool, t.Name) }

type batchMetrics struct {
	SuccessCount Num `json:"successCount"`
	FailureCount Num `json:"failureCount"`
}

// FragmentKind tells which planagent record a fragment holds.
type FragmentKind int8

// Fragment kinds.
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

// Fragment is one planagent record, waiting to be joined with the others of its plan.
type Fragment struct {
	Kind   FragmentKind
	Source string
	plan   *planRecord
	batch  *batchRecord
	claude *claudeFile
	codex  *codexLog
	otel   *otelLog
	gemini *geminiLog
	key    string       // planId (plan, progress), batchId (batch) or sessionId (metrics)
	count  Num          // completedBatches of a PlanProgress or ExecutionMetrics
	spill  *RecordSpill // where claude is while nobody needs it (nil: in memory)
	refs   []spillRef   // its segments on the spill, the last with the file's header
}

type planRecord struct {
	id, sessionID, status string
	span                  model.Span
	batches               *entryLog[taskBatch] // on the spill until the join
}

type batchRecord struct {
	id, status string
	duration   Num
	tasks      *entryLog[taskRecord] // on the spill until the join
	metrics    *batchMetrics
}

// spilled is a log holding entries, which go to the spill with the file's end.
func spilled[T any](c *readCtx, entries []T, codec *entryCodec[T]) *entryLog[T] {
	l := &entryLog[T]{entries: entries, codec: codec}
	c.logs = append(c.logs, l)
	return l
}

func readPlanagent(d *document, c *readCtx) {
	switch {
	case d.PlannedBatches != nil:
		p := &planRecord{id: d.PlanID.V, sessionID: d.SessionIDCamel.V, status: model.Fold(d.Status.V), batches: spilled(c, d.PlannedBatches, taskBatchCodec)}
		if p.id == "" {
			p.id = c.fallbackID()
		}
		// The end counts only once the plan is over: updatedAt of a live plan is not an end.
		end := Time{}
		if p.status == "completed" || p.status == "failed" {
			end = d.UpdatedAtCamel
		}
		p.span = c.span(d.CreatedAtCamel, end)
		c.fragment(&Fragment{Kind: FragmentPlan, plan: p, key: p.id})
	case d.BatchID.Set && d.ExecutedTasks != nil:
		b := &batchRecord{id: d.BatchID.V, status: model.Fold(d.Status.V), duration: d.ExecutionTime, tasks: spilled(c, d.ExecutedTasks, taskRecordCodec), metrics: d.Metrics}
		c.fragment(&Fragment{Kind: FragmentBatch, batch: b, key: b.id})
	case d.PlanID.Set:
		c.fragment(&Fragment{Kind: FragmentProgress, key: d.PlanID.V, count: d.CompletedBatches})
	default:
		c.fragment(&Fragment{Kind: FragmentMetrics, key: d.SessionIDCamel.V, count: d.CompletedBatches})
	}
}

// Join resolves planagent fragments gathered from the whole scanned tree into
// runs. A BatchResult belongs to the plan whose plannedBatches names it, else
// it is a run of its own; PlanProgress and ExecutionMetrics belong to a plan
// by planId / sessionId, else they are orphans. Runs come out format by
// format (plans, Codex, OTel, Gemini, Claude Code), each in source order;
// owners maps every fragment to the runs it fed or joined (none for an
// orphan): one, but for a file's spans of a trace with several agents.
func Join(frags []*Fragment, w Warner) (runs []*model.Run, owners map[*Fragment][]*model.Run) {
	owners = map[*Fragment][]*model.Run{}
	JoinEach(frags, w, func(r *model.Run, from []*Fragment) {
		runs = append(runs, r)
		for _, f := range from {
			owners[f] = append(owners[f], r)
		}
	}, nil)
	return runs, owners
}

// JoinEach is Join handing each run to emit as soon as it is complete,
// rather than holding every joined run (and its calls) to the end: one
// session or trace at a time, plans all at once. Emitted runs are no
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
	var claude, codex, otel, gemini, plan []*Fragment
	for _, f := range frags {
		switch f.Kind {
		case FragmentClaude:
			claude = append(claude, f)
		case FragmentCodex:
			codex = append(codex, f)
		case FragmentOtel:
			otel = append(otel, f)
		case FragmentGemini:
			gemini = append(gemini, f)
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
	joinCodex(codex, w, emit)
	joinOtel(otel, w, emit)
	joinGemini(gemini, w, emit)
	for _, f := range slices.Concat(codex, otel, gemini) {
		f.codex, f.otel, f.gemini = nil, nil, nil // joined: only Source and Kind are read after
	}
	joinClaude(sessions, w, emit, emitParts)
}

// emitPlans joins the planagent fragments and emits each run with the
// fragments it owns, in the order joinPlans gives the runs.
func emitPlans(frags []*Fragment, w Warner, emit func(*model.Run, []*Fragment)) {
	owner := map[*Fragment]*model.Run{}
	runs := joinPlans(frags, owner, w)
	from := make(map[*model.Run][]*Fragment, len(runs))
	for _, f := range frags {
		if r := owner[f]; r != nil {
			from[r] = append(from[r], f)
		}
	}
	for _, r := range runs {
		emit(r, from[r])
	}
}

// joinPlans resolves the planagent records.
func joinPlans(frags []*Fragment, owner map[*Fragment]*model.Run, w Warner) (runs []*model.Run) {
	batches := map[string][]*Fragment{}
	plansByID := map[string]*Fragment{}
	plansBySession := map[string]*Fragment{}
	for _, f := range frags {
		switch f.Kind {
		case FragmentBatch:
			batches[f.key] = append(batches[f.key], f)
		case FragmentPlan:
			if _, dup := plansByID[f.key]; !dup {
				plansByID[f.key] = f
			}
			if s := f.plan.sessionID; s != "" {
				if _, dup := plansBySession[s]; !dup {
					plansBySession[s] = f
				}
			}
		}
	}
	completed := map[*Fragment]int64{}
	for _, f := range frags {
		if f.Kind == FragmentPlan {
			owner[f], completed[f] = planRun(f, batches, owner, w)
		}
	}
	for _, f := range frags {
		var plan *Fragment
		switch f.Kind {
		case FragmentPlan:
			runs = append(runs, owner[f])
			continue
		case FragmentBatch:
			if owner[f] == nil {
				owner[f] = batchRun(f, w)
				runs = append(runs, owner[f])
			}
			continue
		case FragmentProgress:
			plan = plansByID[f.key]
		case FragmentMetrics:
			plan = plansBySession[f.key]
		}
		if plan == nil {
			continue // an orphan
		}
		owner[f] = owner[plan]
		if f.count.Set && f.count.Int() != completed[plan] {
			w.Warn(WarnCountMismatch)
		}
	}
	return runs
}

func planRun(f *Fragment, batches map[string][]*Fragment, owner map[*Fragment]*model.Run, w Warner) (*model.Run, int64) {
	p := f.plan
	r := &model.Run{ID: p.id, Format: "planagent", Source: f.Source, Title: p.id, Span: p.span}
	switch p.status {
	case "completed":
		r.Status = model.StatusSuccess
	case "failed":
		r.Status = model.StatusFailed
	case "planning", "executing":
		r.Status = model.StatusRunning
	default:
		if p.status != "" {
			w.Warn(WarnUnknownStatus)
		}
		r.Status = model.StatusUnknown
	}
	var completedBatches int64
	for _, b := range p.batches.all() {
		results := batches[b.BatchID.V]
		byTask := map[string]*taskRecord{}
		for _, rf := range results {
			if o := owner[rf]; o != nil && o != r {
				continue // a BatchResult belongs to one plan: the first, in source order, that names it
			}
			owner[rf] = r
			if rf.batch.status == "completed" {
				completedBatches++
			}
			tasks := rf.batch.tasks.all() // back from the spill: each batch for its one plan
			for i := range tasks {
				t := &tasks[i]
				byTask[t.id()] = t // a later result for the same task wins
				r.ToolCalls = append(r.ToolCalls, taskCall(t, w))
			}
		}
		batchStatus := model.StepNotStarted
		if word := model.Fold(b.Status.V); word != "assigned" {
			batchStatus = stepStatus(word, w)
		}
		for i := range b.Tasks {
			t := &b.Tasks[i]
			st := model.Step{Name: t.tool(), Status: batchStatus}
			if st.Name == "" {
				st.Name = t.id()
			}
			if res, ok := byTask[t.id()]; ok && t.id() != "" {
				st.Status = stepStatus(res.Status.V, w)
				setDuration(&st.Span, res.ExecutionTime, w)
			}
			r.Steps = append(r.Steps, st)
		}
	}
	return r, completedBatches
}

func batchRun(f *Fragment, w Warner) *model.Run {
	b := f.batch
	id := b.id
	if id == "" { // an empty batchId names nothing: the file names the run
		id = (&readCtx{source: f.Source}).fallbackID()
	}
	r := &model.Run{ID: id, Format: "planagent", Source: f.Source, Title: id}
	setDuration(&r.Span, b.duration, w)
	switch b.status {
	case "completed":
		r.Status = model.StatusSuccess
	case "partial":
		r.Status = model.StatusPartial
	case "failed":
		r.Status = model.StatusFailed
	default:
		if b.status != "" {
			w.Warn(WarnUnknownStatus)
		}
		r.Status = model.StatusUnknown
	}
	ok := int64(0)
	tasks := b.tasks.all()
	for i := range tasks {
		t := &tasks[i]
		call := taskCall(t, w)
		if call.Outcome == model.OutcomeOK {
			ok++
		}
		r.ToolCalls = append(r.ToolCalls, call)
		st := model.Step{Name: t.tool(), Status: stepStatus(t.Status.V, w), Span: model.Span{DurationMS: call.DurationMS, HasDuration: call.HasDuration}}
		if st.Name == "" {
			st.Name = t.id()
		}
		r.Steps = append(r.Steps, st)
	}
	if m := b.metrics; m != nil && m.SuccessCount.Set && m.SuccessCount.Int() != ok {
		w.Warn(WarnCountMismatch)
	}
	return r
}

func taskCall(t *taskRecord, w Warner) model.ToolCall {
	call := model.ToolCall{Name: t.tool(), Outcome: callOutcome(t.Status, w)}
	setDuration(&call.Span, t.ExecutionTime, w)
	if call.Outcome == model.OutcomeError {
		call.Error = t.Error.V
	}
	return call
}

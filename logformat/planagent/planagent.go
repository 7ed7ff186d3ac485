// Package planagent reads PlanAgent iterative-execution state (seed 003),
// one record per file as its memory keys store it. The records of one plan
// are joined across the scanned tree by its join, which it registers with
// package join.
package planagent

import (
	"encoding/binary"
	"math"
	"slices"
	"time"

	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/join"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/agentstat/agentstat/model"
)

// Format is planagent's entry in the registry.
var Format = reader.Format[Doc]{
	Name:      "planagent",
	Title:     "PlanAgent state: ExecutionPlan, BatchResult, PlanProgress, ExecutionMetrics records",
	Signature: "plannedBatches (ExecutionPlan); batchId with executedTasks (BatchResult); planId with totalBatches (PlanProgress); sessionId with totalBatches (ExecutionMetrics)",
	Match: func(d Doc) bool {
		return d.PlannedBatches != nil ||
			(d.BatchID.Set && d.ExecutedTasks != nil) ||
			(d.TotalBatches.Set && (d.PlanID.Set || d.SessionIDCamel.Set))
	},
	Read: read,
}

// Doc is what planagent reads of a document.
type Doc struct {
	*reader.Shared
	*Fields
}

// Fields are the members only PlanAgent documents have (its plan, batch results, progress and metrics).
type Fields struct {
	PlannedBatches     []taskBatch   `json:"plannedBatches"`
	CreatedAtCamel     jsonscan.Time `json:"createdAt"`
	UpdatedAtCamel     jsonscan.Time `json:"updatedAt"`
	BatchID            jsonscan.Str  `json:"batchId"`
	ExecutedTasks      []taskRecord  `json:"executedTasks"`
	ExecutionTime      jsonscan.Num  `json:"executionTime"`
	Metrics            *batchMetrics `json:"metrics"`
	TotalBatches       jsonscan.Num  `json:"totalBatches"`
	CompletedBatches   jsonscan.Num  `json:"completedBatches"`
	FailedBatches      jsonscan.Num  `json:"failedBatches"`
	OverallSuccessRate jsonscan.Num  `json:"overallSuccessRate"`
	AverageBatchTime   jsonscan.Num  `json:"averageBatchTime"`
	TotalExecutionTime jsonscan.Num  `json:"totalExecutionTime"`
	ErrorRate          jsonscan.Num  `json:"errorRate"`
}

type taskBatch struct {
	BatchID jsonscan.Str `json:"batchId"`
	Tasks   []taskRecord `json:"tasks"`
	Status  jsonscan.Str `json:"status"`
}

// taskRecord is a ToolTask or a TaskResult; the seed leaves both unspelled, so
// the usual spellings of id, tool and status are all read.
type taskRecord struct {
	TaskID        jsonscan.Str `json:"taskId"`
	ID            jsonscan.Str `json:"id"`
	ToolName      jsonscan.Str `json:"toolName"`
	Tool          jsonscan.Str `json:"tool"`
	Name          jsonscan.Str `json:"name"`
	Status        jsonscan.Str `json:"status"`
	ExecutionTime jsonscan.Num `json:"executionTime"`
	Error         jsonscan.Str `json:"error"`
}

func (t *taskRecord) id() string   { return reader.FirstOf(t.TaskID, t.ID) }
func (t *taskRecord) tool() string { return reader.FirstOf(t.ToolName, t.Tool, t.Name) }

type batchMetrics struct {
	SuccessCount jsonscan.Num `json:"successCount"`
	FailureCount jsonscan.Num `json:"failureCount"`
}

type planRecord struct {
	id, sessionID, status string
	span                  model.Span
	batches               *join.EntryLog[taskBatch] // on the spill until the join
}

type batchRecord struct {
	id, status string
	duration   jsonscan.Num
	tasks      *join.EntryLog[taskRecord] // on the spill until the join
	metrics    *batchMetrics
}

func (p *planRecord) WireSegments(loc *time.Location, noText bool) ([]join.Segment, int) {
	return p.batches.WireSegments(loc, noText)
}

func (b *batchRecord) WireSegments(loc *time.Location, noText bool) ([]join.Segment, int) {
	return b.tasks.WireSegments(loc, noText)
}

// AppendHead writes a plan's fields in its fragment's head.
func (p *planRecord) AppendHead(head []byte, loc *time.Location) []byte {
	head = recordspill.AppendText(recordspill.AppendText(recordspill.AppendText(head, p.id), p.sessionID), p.status)
	head = recordspill.AppendTime(recordspill.AppendTime(head, p.span.Started, loc), p.span.Ended, loc)
	return recordspill.AppendBool(binary.LittleEndian.AppendUint64(head, math.Float64bits(p.span.DurationMS)), p.span.HasDuration)
}

// AppendHead writes a batch's fields in its fragment's head.
func (b *batchRecord) AppendHead(head []byte, _ *time.Location) []byte {
	head = recordspill.AppendNum(recordspill.AppendText(recordspill.AppendText(head, b.id), b.status), b.duration)
	head = recordspill.AppendBool(head, b.metrics != nil)
	if b.metrics != nil {
		head = recordspill.AppendNum(recordspill.AppendNum(head, b.metrics.SuccessCount), b.metrics.FailureCount)
	}
	return head
}

// readHead reads what AppendHead wrote of a plan or a batch; a
// PlanProgress or ExecutionMetrics fragment has no records.
func readHead(kind join.FragmentKind, h *recordspill.Reader, loc *time.Location) (join.FromPartial, bool) {
	switch kind {
	case join.FragmentPlan:
		p := &planRecord{id: h.Text(), sessionID: h.Text(), status: h.Text()}
		p.span.Started, p.span.Ended = h.Time(loc), h.Time(loc)
		p.span.DurationMS, p.span.HasDuration = math.Float64frombits(h.U64()), h.Bool()
		return func(spill *recordspill.File, segs []recordspill.Ref, n int) (join.Records, bool) {
			p.batches = join.SpilledLog(spill, segs, n, taskBatchCodec)
			return p, true
		}, p.id != "" // no reader makes a plan without an id
	case join.FragmentBatch:
		b := &batchRecord{id: h.Text(), status: h.Text(), duration: h.Num()}
		if h.Bool() {
			b.metrics = &batchMetrics{SuccessCount: h.Num(), FailureCount: h.Num()}
		}
		return func(spill *recordspill.File, segs []recordspill.Ref, n int) (join.Records, bool) {
			b.tasks = join.SpilledLog(spill, segs, n, taskRecordCodec)
			return b, true
		}, true
	}
	return func(*recordspill.File, []recordspill.Ref, int) (join.Records, bool) { return nil, true }, true
}

func init() {
	join.Register(&join.JoinedFormat{
		ReadHead: readHead,
		Join: func(frags []*join.Fragment, w jsonscan.Warner, emit func(*model.Run, []*join.Fragment), _ func(*model.Run, *model.CallParts, []*join.Fragment)) {
			emitPlans(frags, w, emit)
		},
	}, join.FragmentPlan, join.FragmentBatch, join.FragmentProgress, join.FragmentMetrics)
}

// spilled is a log holding entries, which go to the spill with the file's end.
func spilled[T any](c *reader.Ctx, entries []T, codec *join.EntryCodec[T]) *join.EntryLog[T] {
	l := &join.EntryLog[T]{Entries: entries, Codec: codec}
	c.AtEnd(l)
	return l
}

func read(d Doc, c *reader.Ctx) {
	switch {
	case d.PlannedBatches != nil:
		p := &planRecord{id: d.PlanID.V, sessionID: d.SessionIDCamel.V, status: model.Fold(d.Status.V), batches: spilled(c, d.PlannedBatches, taskBatchCodec)}
		if p.id == "" {
			p.id = c.FallbackID()
		}
		// The end counts only once the plan is over: updatedAt of a live plan is not an end.
		end := jsonscan.Time{}
		if p.status == "completed" || p.status == "failed" {
			end = d.UpdatedAtCamel
		}
		p.span = c.Span(d.CreatedAtCamel, end)
		c.Fragment(&join.Fragment{Kind: join.FragmentPlan, Records: p, Key: p.id})
	case d.BatchID.Set && d.ExecutedTasks != nil:
		b := &batchRecord{id: d.BatchID.V, status: model.Fold(d.Status.V), duration: d.ExecutionTime, tasks: spilled(c, d.ExecutedTasks, taskRecordCodec), metrics: d.Metrics}
		c.Fragment(&join.Fragment{Kind: join.FragmentBatch, Records: b, Key: b.id})
	case d.PlanID.Set:
		c.Fragment(&join.Fragment{Kind: join.FragmentProgress, Key: d.PlanID.V, Count: d.CompletedBatches})
	default:
		c.Fragment(&join.Fragment{Kind: join.FragmentMetrics, Key: d.SessionIDCamel.V, Count: d.CompletedBatches})
	}
}

// emitPlans joins the planagent fragments and emits each run with the
// fragments it owns, in the order joinPlans gives the runs.
func emitPlans(frags []*join.Fragment, w jsonscan.Warner, emit func(*model.Run, []*join.Fragment)) {
	owner := map[*join.Fragment]*model.Run{}
	runs := joinPlans(frags, owner, w)
	from := make(map[*model.Run][]*join.Fragment, len(runs))
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
func joinPlans(frags []*join.Fragment, owner map[*join.Fragment]*model.Run, w jsonscan.Warner) (runs []*model.Run) {
	batches := map[string][]*join.Fragment{}
	plansByID := map[string]*join.Fragment{}
	plansBySession := map[string]*join.Fragment{}
	for _, f := range frags {
		switch f.Kind {
		case join.FragmentBatch:
			batches[f.Key] = append(batches[f.Key], f)
		case join.FragmentPlan:
			if _, dup := plansByID[f.Key]; !dup {
				plansByID[f.Key] = f
			}
			if s := f.Records.(*planRecord).sessionID; s != "" {
				if _, dup := plansBySession[s]; !dup {
					plansBySession[s] = f
				}
			}
		}
	}
	completed := map[*join.Fragment]int64{}
	for _, f := range frags {
		if f.Kind == join.FragmentPlan {
			owner[f], completed[f] = planRun(f, batches, owner, w)
		}
	}
	for _, f := range frags {
		var plan *join.Fragment
		switch f.Kind {
		case join.FragmentPlan:
			runs = append(runs, owner[f])
			continue
		case join.FragmentBatch:
			if owner[f] == nil {
				owner[f] = batchRun(f, w)
				runs = append(runs, owner[f])
			}
			continue
		case join.FragmentProgress:
			plan = plansByID[f.Key]
		case join.FragmentMetrics:
			plan = plansBySession[f.Key]
		}
		if plan == nil {
			continue // an orphan
		}
		owner[f] = owner[plan]
		if f.Count.Set && f.Count.Int() != completed[plan] {
			w.Warn(reader.WarnCountMismatch)
		}
	}
	return runs
}

func planRun(f *join.Fragment, batches map[string][]*join.Fragment, owner map[*join.Fragment]*model.Run, w jsonscan.Warner) (*model.Run, int64) {
	p := f.Records.(*planRecord)
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
			w.Warn(reader.WarnUnknownStatus)
		}
		r.Status = model.StatusUnknown
	}
	var completedBatches int64
	for _, b := range p.batches.All() {
		results := batches[b.BatchID.V]
		byTask := map[string]*taskRecord{}
		for _, rf := range results {
			if o := owner[rf]; o != nil && o != r {
				continue // a BatchResult belongs to one plan: the first, in source order, that names it
			}
			owner[rf] = r
			if rf.Records.(*batchRecord).status == "completed" {
				completedBatches++
			}
			tasks := rf.Records.(*batchRecord).tasks.All() // back from the spill: each batch for its one plan
			for i := range tasks {
				t := &tasks[i]
				byTask[t.id()] = t // a later result for the same task wins
				r.ToolCalls = append(r.ToolCalls, taskCall(t, w))
			}
		}
		batchStatus := model.StepNotStarted
		if word := model.Fold(b.Status.V); word != "assigned" {
			batchStatus = reader.StepStatus(word, w)
		}
		for i := range b.Tasks {
			t := &b.Tasks[i]
			st := model.Step{Name: t.tool(), Status: batchStatus}
			if st.Name == "" {
				st.Name = t.id()
			}
			if res, ok := byTask[t.id()]; ok && t.id() != "" {
				st.Status = reader.StepStatus(res.Status.V, w)
				reader.SetDuration(&st.Span, res.ExecutionTime, w)
			}
			r.Steps = append(r.Steps, st)
		}
	}
	return r, completedBatches
}

func batchRun(f *join.Fragment, w jsonscan.Warner) *model.Run {
	b := f.Records.(*batchRecord)
	id := b.id
	if id == "" { // an empty batchId names nothing: the file names the run
		id = (&reader.Ctx{Source: f.Source}).FallbackID()
	}
	r := &model.Run{ID: id, Format: "planagent", Source: f.Source, Title: id}
	reader.SetDuration(&r.Span, b.duration, w)
	switch b.status {
	case "completed":
		r.Status = model.StatusSuccess
	case "partial":
		r.Status = model.StatusPartial
	case "failed":
		r.Status = model.StatusFailed
	default:
		if b.status != "" {
			w.Warn(reader.WarnUnknownStatus)
		}
		r.Status = model.StatusUnknown
	}
	ok := int64(0)
	tasks := b.tasks.All()
	for i := range tasks {
		t := &tasks[i]
		call := taskCall(t, w)
		if call.Outcome == model.OutcomeOK {
			ok++
		}
		r.ToolCalls = append(r.ToolCalls, call)
		st := model.Step{Name: t.tool(), Status: reader.StepStatus(t.Status.V, w), Span: model.Span{DurationMS: call.DurationMS, HasDuration: call.HasDuration}}
		if st.Name == "" {
			st.Name = t.id()
		}
		r.Steps = append(r.Steps, st)
	}
	if m := b.metrics; m != nil && m.SuccessCount.Set && m.SuccessCount.Int() != ok {
		w.Warn(reader.WarnCountMismatch)
	}
	return r
}

func taskCall(t *taskRecord, w jsonscan.Warner) model.ToolCall {
	call := model.ToolCall{Name: t.tool(), Outcome: reader.CallOutcome(t.Status, w)}
	reader.SetDuration(&call.Span, t.ExecutionTime, w)
	if call.Outcome == model.OutcomeError {
		call.Error = t.Error.V
	}
	return call
}

var taskRecordCodec = &join.EntryCodec[taskRecord]{
	Encode: func(b []byte, t *taskRecord, _ *time.Location) []byte {
		for _, s := range []jsonscan.Str{t.TaskID, t.ID, t.ToolName, t.Tool, t.Name, t.Status, t.Error} {
			b = recordspill.AppendStr(b, s)
		}
		return recordspill.AppendNum(b, t.ExecutionTime)
	},
	Decode: func(r *recordspill.Reader, _ *time.Location) (t taskRecord) {
		for _, p := range []*jsonscan.Str{&t.TaskID, &t.ID, &t.ToolName, &t.Tool, &t.Name, &t.Status, &t.Error} {
			*p = r.Str()
		}
		t.ExecutionTime = r.Num()
		return t
	},
	Withhold: func(t *taskRecord) { join.WithholdText(&t.Error.V) },
}

// A batch's tasks are written as a count plus one (0: no tasks array at all).
var taskBatchCodec = &join.EntryCodec[taskBatch]{
	Encode: func(b []byte, t *taskBatch, loc *time.Location) []byte {
		b = recordspill.AppendStr(recordspill.AppendStr(b, t.BatchID), t.Status)
		if t.Tasks == nil {
			return append(b, 0)
		}
		b = binary.AppendUvarint(b, uint64(len(t.Tasks))+1)
		for i := range t.Tasks {
			b = taskRecordCodec.Encode(b, &t.Tasks[i], loc)
		}
		return b
	},
	Decode: func(r *recordspill.Reader, loc *time.Location) (t taskBatch) {
		t.BatchID, t.Status = r.Str(), r.Str()
		if n := r.Uvarint(); n > 0 {
			t.Tasks = make([]taskRecord, n-1)
			for i := range t.Tasks {
				t.Tasks[i] = taskRecordCodec.Decode(r, loc)
			}
		}
		return t
	},
	Withhold: func(t *taskBatch) {
		t.Tasks = slices.Clone(t.Tasks)
		for i := range t.Tasks {
			taskRecordCodec.Withhold(&t.Tasks[i])
		}
	},
}

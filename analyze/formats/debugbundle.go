package formats

import (
	"github.com/agentstat/agentstat/analyze/model"
)

// debugbundle: one Debug Bundle (seed 002), or an EventsExport alone.
var bundleFormat = &Format{
	Name:      "debugbundle",
	Title:     "Debug Bundle (state, events, telemetry, policy) or an EventsExport alone",
	Signature: "an object with a state object and events; or whose events is an array of objects with type and timestamp",
	match: func(d *document) bool {
		if d.State != nil && d.Events.Present {
			return true
		}
		if !d.Events.Present || len(d.Events.List) == 0 {
			return false
		}
		for _, e := range d.Events.List {
			if !e.Type.Set || !e.Timestamp.Set {
				return false
			}
		}
		return true
	},
	read: readBundle,
}

type bundleState struct {
	ID   Str `json:"id"`
	Task *struct {
		Goal  Str `json:"goal"`
		Steps []struct {
			ID          Str `json:"id"`
			Description Str `json:"description"`
			Status      Str `json:"status"`
		} `json:"steps"`
	} `json:"task"`
	Telemetry *struct {
		TotalDuration Num `json:"totalDuration"`
		TokenCount    Num `json:"tokenCount"`
		ToolCallCount Num `json:"toolCallCount"`
		RetryCount    Num `json:"retryCount"`
	} `json:"telemetry"`
	Policy *struct {
		MaxToolCalls Num `json:"maxToolCalls"`
		MaxDuration  Num `json:"maxDuration"`
	} `json:"policy"`
	CreatedAt Time `json:"createdAt"`
	UpdatedAt Time `json:"updatedAt"`
}

type bundleEvent struct {
	ID        Str         `json:"id"`
	Timestamp Time        `json:"timestamp"`
	Type      Str         `json:"type"`
	NodeID    Str         `json:"nodeId"`
	Status    Str         `json:"status"`
	Summary   Str         `json:"summary"`
	Metadata  *bundleMeta `json:"metadata"`
}

type bundleMeta struct {
	ToolName Str `json:"toolName"`
	Error    Str `json:"error"`
}

// trim drops a summary that can never be shown: only a failed tool result's
// summary becomes an error text, and summaries are most of an event's bytes.
func (e *bundleEvent) trim() {
	if model.Fold(e.Type.V) != "tool_result" || model.Fold(e.Status.V) != "failure" {
		e.Summary.V = ""
	}
}

func (e *bundleEvent) toolName() string {
	if e.Metadata == nil {
		return ""
	}
	return e.Metadata.ToolName.V
}

func readBundle(d *document, c *readCtx) {
	events := dedupeEvents(d.Events.List, c)
	r := &model.Run{Format: "debugbundle"}
	st := d.State
	if st != nil {
		r.ID = st.ID.V
		r.Span = c.span(st.CreatedAt, st.UpdatedAt)
		if st.Task != nil {
			r.Title, r.Request = st.Task.Goal.V, st.Task.Goal.V
			for _, s := range st.Task.Steps {
				r.Steps = append(r.Steps, model.Step{Name: firstOf(s.Description, s.ID), Status: stepStatus(s.Status.V, c)})
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
	} else if len(events) > 0 { // an EventsExport alone spans its first to last event
		r.Span = c.span(events[0].Timestamp, events[len(events)-1].Timestamp)
	}
	if r.ID == "" {
		r.ID = c.fallbackID()
	}

	r.ToolCalls = pairToolCalls(events, c)
	if st != nil && st.Telemetry != nil && st.Telemetry.ToolCallCount.Set && st.Telemetry.ToolCallCount.Int() != int64(len(r.ToolCalls)) {
		c.Warn(WarnCountMismatch)
	}

	aborted := false
	lastOutcome := ""
	for _, e := range events {
		switch t := model.Fold(e.Type.V); t {
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
	c.run(r)
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
func dedupeEvents(list []bundleEvent, c *readCtx) []bundleEvent {
	type key struct {
		id, typ string
		ts      int64
		tsSet   bool
	}
	seen := make(map[key]bool, len(list))
	out := list[:0] // in place: a copy would hold a second list at the peak
	for _, e := range list {
		k := key{e.ID.V, e.Type.V, e.Timestamp.In(c.loc).UnixNano(), e.Timestamp.Set}
		if e.ID.Set && seen[k] {
			c.Warn(WarnDuplicateEvent)
			continue
		}
		seen[k] = true
		out = append(out, e)
	}
	return out
}

// pairToolCalls pairs each tool_call with the next unused tool_result for the
// same tool, else the next unused tool_result of the same node; each result
// pairs with at most one call, in order. An unpaired call's outcome is unknown.
func pairToolCalls(events []bundleEvent, c *readCtx) []model.ToolCall {
	var calls, results []int
	for i := range events {
		switch model.Fold(events[i].Type.V) {
		case "tool_call":
			calls = append(calls, i)
		case "tool_result":
			results = append(results, i)
		}
	}
	pair := make(map[int]int, len(calls)) // call event index → result event index
	used := make(map[int]bool, len(results))
	match := func(key func(*bundleEvent) string) {
		queues := map[string][]int{}
		for _, ri := range results {
			if !used[ri] {
				if k := key(&events[ri]); k != "" {
					queues[k] = append(queues[k], ri)
				}
			}
		}
		for _, ci := range calls {
			if _, done := pair[ci]; done {
				continue
			}
			k := key(&events[ci])
			if k == "" {
				continue
			}
			q := queues[k]
			for len(q) > 0 && (q[0] < ci || used[q[0]]) {
				q = q[1:] // results before this call can serve no later call either
			}
			if len(q) > 0 {
				pair[ci], used[q[0]] = q[0], true
				q = q[1:]
			}
			queues[k] = q
		}
	}
	match(func(e *bundleEvent) string { return e.toolName() })
	match(func(e *bundleEvent) string { return e.NodeID.V })

	out := make([]model.ToolCall, 0, len(calls))
	for _, ci := range calls {
		ev := &events[ci]
		call := model.ToolCall{Name: ev.toolName(), Span: model.Span{Started: ev.Timestamp.In(c.loc)}}
		if ri, ok := pair[ci]; ok {
			res := &events[ri]
			call.Span = c.span(ev.Timestamp, res.Timestamp)
			if model.Fold(res.Status.V) == "failure" {
				call.Outcome = model.OutcomeError
				call.Error = res.Summary.V
				if res.Metadata != nil && res.Metadata.Error.V != "" {
					call.Error = res.Metadata.Error.V
				}
			} else {
				call.Outcome = model.OutcomeOK
			}
		}
		out = append(out, call)
	}
	return out
}

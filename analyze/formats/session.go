package formats

import (
	"github.com/agentstat/agentstat/analyze/model"
)

// session: one STD-001 agent session (seed 001): v3.0 tool_calls with
// optional phase_annotations, v2.x phases[], or the v1.0 seven-step model.
var sessionFormat = &Format{
	Name:      "session",
	Title:     "STD-001 agent session (v3.0, v2.x phases, v1.0 steps)",
	Signature: "an object with session_id and any of tool_calls, phases, steps or phase_annotations; or tool_calls whose entries have call_id or tool_name",
	match: func(d *document) bool {
		if d.SessionID.Set && (d.ToolCalls != nil || d.Phases != nil || d.Steps.Present || d.PhaseAnnotations != nil) {
			return true
		}
		for _, tc := range d.ToolCalls {
			if tc.CallID.Set || tc.ToolName.Set {
				return true
			}
		}
		return false
	},
	read: readSession,
}

type sessionToolCall struct {
	CallID              Str           `json:"call_id"`
	ID                  Str           `json:"id"`
	ToolCallID          Str           `json:"tool_call_id"`
	CallIDCamel         Str           `json:"callId"`
	ToolName            Str           `json:"tool_name"`
	Name                Str           `json:"name"`
	Tool                Str           `json:"tool"`
	ToolCategory        Str           `json:"tool_category"`
	StartedAt           Time          `json:"started_at"`
	EndedAt             Time          `json:"ended_at"`
	DurationMS          Num           `json:"duration_ms"`
	Output              *toolOutput   `json:"output"`
	ContextContribution contribField  `json:"context_contribution"`
	SubagentInfo        *subagentInfo `json:"subagent_info"`
}

func (t *sessionToolCall) id() string { return firstOf(t.CallID, t.ID, t.ToolCallID, t.CallIDCamel) }

type toolOutput struct {
	Status Str `json:"status"`
	Error  Str `json:"error"`
}

type subagentInfo struct {
	SubagentType   Str `json:"subagent_type"`
	ToolUses       Num `json:"tool_uses"`
	TokensUsed     Num `json:"tokens_used"`
	ToolsBreakdown []struct {
		ToolName Str `json:"tool_name"`
		Count    Num `json:"count"`
	} `json:"tools_breakdown"`
}

type phaseAnnotation struct {
	PhaseType   Str          `json:"phase_type"`
	ContextUsed []contextRef `json:"context_used"`
}

// phase is the union of a session v2.x phase and a structmsg phase.
type phase struct {
	// structmsg
	ID     Str     `json:"id"`
	Name   Str     `json:"name"`
	Rounds []round `json:"rounds"`
	// both
	Status Str `json:"status"`
	// session v2.x
	PhaseID           Str               `json:"phase_id"`
	PhaseType         Str               `json:"phase_type"`
	Phase             Str               `json:"phase"`
	ToolCalls         []sessionToolCall `json:"tool_calls"`
	ContextUsed       []contextRef      `json:"context_used"`
	ContextReferences []contextRef      `json:"context_references"`
}

func readSession(d *document, c *readCtx) {
	r := &model.Run{
		ID:      d.SessionID.V,
		Format:  "session",
		Title:   firstOf(d.TaskTitle, d.Title),
		Request: firstOf(d.UserPrompt, d.TaskDescription),
		Summary: d.Summary.Text,
		Agent:   d.Agent.Name,
		Model:   d.Agent.Model,
	}
	if r.ID == "" {
		r.ID = c.fallbackID()
	}
	start := d.CreatedAt
	if !start.Set {
		start = d.StartedAt
	}
	r.Span = c.span(start, d.CompletedAt)
	if !r.HasDuration {
		setDuration(&r.Span, d.Summary.TotalDurationMS, c)
	}

	switch model.Fold(d.Status.V) {
	case "success", "completed":
		r.Status = model.StatusSuccess
	case "failed":
		r.Status = model.StatusFailed
	case "in_progress":
		r.Status = model.StatusRunning
	case "":
		r.Status = model.StatusUnknown
	default:
		c.Warn(WarnUnknownStatus)
		r.Status = model.StatusUnknown
	}

	// Every top-level entry counts once; nested v2.x phase entries count only
	// when their id was not seen before.
	seen := map[string]bool{}
	for i := range d.ToolCalls {
		seen[d.ToolCalls[i].id()] = true
		addSessionCall(r, &d.ToolCalls[i], c)
	}
	for _, ph := range d.Phases {
		for i := range ph.ToolCalls {
			id := ph.ToolCalls[i].id()
			if id != "" && seen[id] {
				continue
			}
			seen[id] = true
			addSessionCall(r, &ph.ToolCalls[i], c)
		}
		addRefs(&r.Context, ph.ContextUsed)
		addRefs(&r.Context, ph.ContextReferences)
	}
	for _, pa := range d.PhaseAnnotations {
		addRefs(&r.Context, pa.ContextUsed)
	}

	for _, s := range d.Steps.Objects { // v1.0 seven-step model
		st := model.Step{Name: firstOf(s.StepName, s.StepID), Status: stepStatus(s.Status.V, c)}
		st.Started = s.Timestamp.In(c.loc)
		setDuration(&st.Span, s.DurationMS, c)
		r.Steps = append(r.Steps, st)
	}

	if n := d.Summary.ToolCallsCount; n.Set && n.Int() != int64(len(r.ToolCalls)) {
		c.Warn(WarnCountMismatch)
	}
	if n := d.Summary.Errors; n.Set {
		errs := int64(0)
		for _, tc := range r.ToolCalls {
			if tc.Outcome == model.OutcomeError {
				errs++
			}
		}
		if n.Int() != errs {
			c.Warn(WarnCountMismatch)
		}
	}
	c.run(r)
}

func addSessionCall(r *model.Run, t *sessionToolCall, c *readCtx) {
	call := model.ToolCall{
		Name:     firstOf(t.ToolName, t.Name, t.Tool),
		Category: t.ToolCategory.V,
		Agent:    r.Agent,
		Span:     c.span(t.StartedAt, t.EndedAt),
	}
	if t.DurationMS.Set {
		call.HasDuration = false
		setDuration(&call.Span, t.DurationMS, c)
	}
	if t.Output != nil {
		switch model.Fold(t.Output.Status.V) {
		case "success":
			call.Outcome = model.OutcomeOK
		case "failed", "error":
			call.Outcome = model.OutcomeError
			call.Error = t.Output.Error.V
		}
	}
	if t.ContextContribution.Type != "" {
		r.Context.Contributions = append(r.Context.Contributions, t.ContextContribution.Type)
	}
	if si := t.SubagentInfo; si != nil {
		sub := model.Subagent{Type: si.SubagentType.V, Tokens: si.TokensUsed.Int()}
		if si.ToolsBreakdown != nil {
			for _, b := range si.ToolsBreakdown {
				sub.Calls += b.Count.Int()
			}
		} else {
			sub.Calls = si.ToolUses.Int()
		}
		r.Context.Subagents = append(r.Context.Subagents, sub)
		r.Tokens.Unspecified += sub.Tokens
	}
	r.ToolCalls = append(r.ToolCalls, call)
}

func addRefs(ctx *model.Context, refs []contextRef) {
	for _, ref := range refs {
		ctx.Refs = append(ctx.Refs, model.ContextRef{Type: ref.Type.V, Relevance: ref.Relevance.V, UsageMode: ref.UsageMode.V})
	}
}

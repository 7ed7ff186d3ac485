// Package session reads one STD-001 agent session (seed 001): v3.0
// tool_calls with optional phase_annotations, v2.x phases[], or the v1.0
// seven-step model.
package session

import (
	"reflect"
	"time"
	"unsafe"

	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/join"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/agentstat/agentstat/model"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Format is session's entry in the registry.
var Format = reader.Format[Doc]{
	Name:      "session",
	Title:     "STD-001 agent session (v3.0, v2.x phases, v1.0 steps)",
	Signature: "an object with session_id and any of tool_calls, phases, steps or phase_annotations; or tool_calls whose entries have call_id or tool_name",
	Match: func(d Doc) bool {
		if d.SessionID.Set && (d.ToolCalls.array || d.Phases != nil || d.Steps.Present || d.PhaseAnnotations != nil) {
			return true
		}
		return d.ToolCalls.named
	},
	Read: read,
}

// Doc is what session reads of a document: its phases are the union's
// (nil when the document has none), each seen as session's Phase.
type Doc struct {
	*reader.Shared
	*Fields
	Phases []*Phase
}

// Fields are the members only a session document has.
type Fields struct {
	SessionID        jsonscan.Str      `json:"session_id"`
	TaskTitle        jsonscan.Str      `json:"task_title"`
	TaskDescription  jsonscan.Str      `json:"task_description"`
	UserPrompt       jsonscan.Str      `json:"user_prompt"`
	StartedAt        jsonscan.Time     `json:"started_at"`
	CompletedAt      jsonscan.Time     `json:"completed_at"`
	Agent            agentField        `json:"agent"`
	PhaseAnnotations []phaseAnnotation `json:"phase_annotations"`
	ToolCalls        toolCalls         `json:"tool_calls"`
}

type toolCall struct {
	CallID              jsonscan.Str  `json:"call_id"`
	ID                  jsonscan.Str  `json:"id"`
	ToolCallID          jsonscan.Str  `json:"tool_call_id"`
	CallIDCamel         jsonscan.Str  `json:"callId"`
	ToolName            jsonscan.Str  `json:"tool_name"`
	Name                jsonscan.Str  `json:"name"`
	Tool                jsonscan.Str  `json:"tool"`
	ToolCategory        jsonscan.Str  `json:"tool_category"`
	StartedAt           jsonscan.Time `json:"started_at"`
	EndedAt             jsonscan.Time `json:"ended_at"`
	DurationMS          jsonscan.Num  `json:"duration_ms"`
	Output              *toolOutput   `json:"output"`
	ContextContribution contribField  `json:"context_contribution"`
	SubagentInfo        *subagentInfo `json:"subagent_info"`
}

func (t *toolCall) id() string {
	return reader.FirstOf(t.CallID, t.ID, t.ToolCallID, t.CallIDCamel)
}

type toolOutput struct {
	Status jsonscan.Str `json:"status"`
	Error  jsonscan.Str `json:"error"`
}

type subagentInfo struct {
	SubagentType   jsonscan.Str `json:"subagent_type"`
	ToolUses       jsonscan.Num `json:"tool_uses"`
	TokensUsed     jsonscan.Num `json:"tokens_used"`
	ToolsBreakdown []struct {
		ToolName jsonscan.Str `json:"tool_name"`
		Count    jsonscan.Num `json:"count"`
	} `json:"tools_breakdown"`
}

type phaseAnnotation struct {
	PhaseType   jsonscan.Str `json:"phase_type"`
	ContextUsed []contextRef `json:"context_used"`
}

// Phase is a v2.x phase's members: a document's phases are shared with
// structmsg, whose members are beside these in each.
type Phase struct {
	PhaseID           jsonscan.Str `json:"phase_id"`
	PhaseType         jsonscan.Str `json:"phase_type"`
	Phase             jsonscan.Str `json:"phase"`
	ToolCalls         []toolCall   `json:"tool_calls"`
	ContextUsed       []contextRef `json:"context_used"`
	ContextReferences []contextRef `json:"context_references"`
}

var (
	agentPlan   = jsonscan.PlanOf(reflect.TypeFor[agentObject]())
	contribPlan = jsonscan.PlanOf(reflect.TypeFor[contribObject]())
)

func (a *agentField) ScanFlex(s *jsonscan.Scanner, w *jsonscan.WarnList) bool {
	return jsonscan.TextOrObject(s, w, agentPlan, func(t string) { a.Name = t }, a.set)
}

func (c *contribField) ScanFlex(s *jsonscan.Scanner, w *jsonscan.WarnList) bool {
	return jsonscan.TextOrObject(s, w, contribPlan, func(t string) { c.Type = t }, c.set)
}

func read(d Doc, c *reader.Ctx) {
	r := &model.Run{
		ID:      d.SessionID.V,
		Format:  "session",
		Title:   reader.FirstOf(d.TaskTitle, d.Title),
		Request: reader.FirstOf(d.UserPrompt, d.TaskDescription),
		Summary: d.Summary.Text,
		Agent:   d.Agent.Name,
		Model:   d.Agent.Model,
	}
	if r.ID == "" {
		r.ID = c.FallbackID()
	}
	start := d.CreatedAt
	if !start.Set {
		start = d.StartedAt
	}
	r.Span = c.Span(start, d.CompletedAt)
	if !r.HasDuration {
		reader.SetDuration(&r.Span, d.Summary.TotalDurationMS, c)
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
		c.Warn(reader.WarnUnknownStatus)
		r.Status = model.StatusUnknown
	}

	// Every top-level entry counts once; nested v2.x phase entries count only
	// when their id was not seen before.
	top := &d.ToolCalls
	top.addTo(r)
	var phased toolCalls
	seen := map[string]bool{}
	if d.Phases != nil {
		ids := top.log.Cursor()
		for e, ok := ids.Next(); ok; e, ok = ids.Next() {
			seen[e.id] = true
		}
	}
	for _, ph := range d.Phases {
		for i := range ph.ToolCalls {
			id := ph.ToolCalls[i].id()
			if id != "" && seen[id] {
				continue
			}
			seen[id] = true
			phased.add(&ph.ToolCalls[i])
		}
		addRefs(&r.Context, ph.ContextUsed)
		addRefs(&r.Context, ph.ContextReferences)
	}
	for _, pa := range d.PhaseAnnotations {
		addRefs(&r.Context, pa.ContextUsed)
	}

	for _, s := range d.Steps.Objects { // v1.0 seven-step model
		st := model.Step{Name: reader.FirstOf(s.StepName, s.StepID), Status: reader.StepStatus(s.Status.V, c)}
		st.Started = s.Timestamp.In(c.Loc)
		reader.SetDuration(&st.Span, s.DurationMS, c)
		r.Steps = append(r.Steps, st)
	}

	phased.addTo(r)
	calls := top.log.Len() + phased.log.Len()
	if n := d.Summary.ToolCallsCount; n.Set && n.Int() != int64(calls) {
		c.Warn(reader.WarnCountMismatch)
	}
	if n := d.Summary.Errors; n.Set && n.Int() != int64(top.errors+phased.errors) {
		c.Warn(reader.WarnCountMismatch)
	}
	c.RunParts(r, callParts(r, c, calls, top.log, phased.log))
}

// toolCalls is a session's top-level tool_calls, each entry made a call
// as soon as it is decoded and kept in a log that writes its segments to
// the record spill (when the reader gives it one), so that a document of
// millions of calls is read in a few MB: its decoded entries (304 bytes
// each) and then its calls are never all in memory. The run's calls are
// made from the log as they are taken (callParts).
type toolCalls struct {
	log      join.EntryLog[call]
	spill    *recordspill.File // the file's, on the token path (spillOf); nil keeps the calls in memory
	errors   int               // entries whose output says they failed
	contribs []string
	subs     []model.Subagent
	array    bool // tool_calls held an array, even an empty one
	named    bool // an entry has a call_id or a tool_name
}

// call is an entry made a call, but for what needs the run or the
// --tz zone: its times and duration, as written.
type call struct {
	call       model.ToolCall // name, category, outcome and error
	start, end jsonscan.Time
	ms         jsonscan.Num
	id         string // a v2.x phase's entry with the same id is no other call
}

// add makes entry t a call.
func (s *toolCalls) add(t *toolCall) {
	e := call{call: model.ToolCall{Name: reader.FirstOf(t.ToolName, t.Name, t.Tool), Category: t.ToolCategory.V},
		start: t.StartedAt, end: t.EndedAt, ms: t.DurationMS, id: t.id()}
	if t.Output != nil {
		switch model.Fold(t.Output.Status.V) {
		case "success":
			e.call.Outcome = model.OutcomeOK
		case "failed", "error":
			e.call.Outcome = model.OutcomeError
			e.call.Error = t.Output.Error.V
			s.errors++
		}
	}
	if t.ContextContribution.Type != "" {
		s.contribs = append(s.contribs, t.ContextContribution.Type)
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
		s.subs = append(s.subs, sub)
	}
	s.named = s.named || t.CallID.Set || t.ToolName.Set
	s.log.Codec = &callCodec
	s.log.Push(s.spill, e)
}

// addTo adds what the calls say of the context to r.
func (s *toolCalls) addTo(r *model.Run) {
	r.Context.Contributions = append(r.Context.Contributions, s.contribs...)
	for _, sub := range s.subs {
		r.Context.Subagents = append(r.Context.Subagents, sub)
		r.Tokens.Unspecified += sub.Tokens
	}
}

// make is the run's call: its agent's, its times in the --tz zone, its span.
func (e *call) make(agent string, c *reader.Ctx) model.ToolCall {
	call := e.call
	call.Agent, call.Span = agent, c.Span(e.start, e.end)
	if e.ms.Set {
		call.HasDuration = false
		reader.SetDuration(&call.Span, e.ms, c)
	}
	return call
}

// callParts is the run's n calls, made from the logs in order as they
// are taken. It keeps copies of the logs: a JSON Lines chunk clears its
// documents before the calls are taken.
func callParts(r *model.Run, c *reader.Ctx, n int, logs ...join.EntryLog[call]) *model.CallParts {
	cursors := make([]join.Cursor[call], len(logs))
	for i := range logs {
		cursors[i] = logs[i].Cursor()
	}
	k := 0
	return model.PartsOf(n, n, reader.CallPart, func(int) (model.ToolCall, bool) {
		for ; k < len(cursors); k++ {
			if e, ok := cursors[k].Next(); ok {
				return e.make(r.Agent, c), true
			}
		}
		return model.ToolCall{}, false
	})
}

var callCodec = join.EntryCodec[call]{
	Encode: func(b []byte, e *call, loc *time.Location) []byte {
		c := &e.call
		b = recordspill.AppendText(recordspill.AppendText(recordspill.AppendText(b, c.Name), c.Category), c.Error)
		b = appendWrittenTime(appendWrittenTime(b, e.start, loc), e.end, loc)
		return recordspill.AppendText(recordspill.AppendNum(append(b, byte(c.Outcome)), e.ms), e.id)
	},
	Decode: func(r *recordspill.Reader, loc *time.Location) (e call) {
		c := &e.call
		c.Name, c.Category, c.Error = r.Text(), r.Text(), r.Text()
		e.start, e.end = readWrittenTime(r, loc), readWrittenTime(r, loc)
		c.Outcome, e.ms, e.id = model.Outcome(r.Take(1)[0]), r.Num(), r.Text()
		return e
	},
}

// appendWrittenTime appends a Time as written: its instant (or wall clock,
// when it had no zone), whether it was set and whether it had a zone.
func appendWrittenTime(b []byte, t jsonscan.Time, loc *time.Location) []byte {
	return recordspill.AppendBool(recordspill.AppendBool(recordspill.AppendTime(b, t.T, loc), t.Set), t.Naive)
}

func readWrittenTime(r *recordspill.Reader, loc *time.Location) jsonscan.Time {
	return jsonscan.Time{T: r.Time(loc), Set: r.Bool(), Naive: r.Bool()}
}

// DecodeFlex decodes tool_calls one entry at a time.
func (s *toolCalls) DecodeFlex(dec *jsontext.Decoder, w jsonscan.Warner, opts json.Options) error {
	return jsonscan.DecodeEach(dec, w, opts, func(array bool) { *s = toolCalls{array: array, spill: reader.SpillOf(w)} }, s.add)
}

var callPlan = jsonscan.PlanOf(reflect.TypeFor[toolCall]())

// ScanFlex reads tool_calls as DecodeFlex does: null clears them, an array
// of objects makes them; anything else gives up.
func (p *toolCalls) ScanFlex(s *jsonscan.Scanner, w *jsonscan.WarnList) bool {
	return jsonscan.Each(s, func(array bool) { *p = toolCalls{array: array} },
		func(t *toolCall) bool { return callPlan.Read(s, unsafe.Pointer(t), w) }, p.add)
}

func addRefs(ctx *model.Context, refs []contextRef) {
	for _, ref := range refs {
		ctx.Refs = append(ctx.Refs, model.ContextRef{Type: ref.Type.V, Relevance: ref.Relevance.V, UsageMode: ref.UsageMode.V})
	}
}

// agentField is a session's agent: an object naming the model, or a bare name.
type agentField struct {
	Name, Model string
}

// agentObject is an agent written as an object.
type agentObject struct {
	Name    jsonscan.Str `json:"name"`
	ModelID jsonscan.Str `json:"model_id"`
	Model   jsonscan.Str `json:"model"`
}

func (a *agentField) set(o *agentObject) {
	a.Name, a.Model = o.Name.V, reader.FirstOf(o.ModelID, o.Model)
}

func (a *agentField) DecodeFlex(dec *jsontext.Decoder, w jsonscan.Warner, opts json.Options) error {
	return jsonscan.DecodeTextOrObject(dec, w, opts, func(t string) { a.Name = t }, a.set)
}

// contribField is a context_contribution: an object with a type, or a plain string.
type contribField struct {
	Type string
}

// contribObject is a context contribution written as an object.
type contribObject struct {
	Type jsonscan.Str `json:"type"`
}

func (c *contribField) set(o *contribObject) {
	if c.Type = o.Type.V; c.Type == "" {
		c.Type = "unspecified"
	}
}

func (c *contribField) DecodeFlex(dec *jsontext.Decoder, w jsonscan.Warner, opts json.Options) error {
	return jsonscan.DecodeTextOrObject(dec, w, opts, func(t string) { c.Type = t }, c.set)
}

type contextRef struct {
	Type      jsonscan.Str `json:"type"`
	Relevance jsonscan.Str `json:"relevance"`
	UsageMode jsonscan.Str `json:"usage_mode"`
}

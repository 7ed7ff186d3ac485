// Package structmsg reads Structured Messages (seed 004): request → phases
// → rounds → plan / executions / judge; bare, or embedded in conversation
// messages as structured_context (one run per structured message).
package structmsg

import (
	"fmt"
	"math"

	"github.com/go-json-experiment/json"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/agentstat/agentstat/model"
)

// Format is structmsg's entry in the registry.
var Format = reader.Format[Doc]{
	Name:      "structmsg",
	Title:     "Structured Message (request, phases, rounds, judge), bare or in conversation messages",
	Signature: "phases[] whose entries have rounds; or request with phases; or messages / context_messages (or the object itself) carrying structured_context",
	Match: func(d Doc) bool {
		return isStructured(d) || d.Context.Present || len(d.Messages) > 0 || hasEmbedded(d.ContextMessages)
	},
	Read: read,
}

// Doc is what structmsg reads of a document: besides its own members, the
// union's that hold structured messages, whose documents are decoded into
// the union and seen through views of their own.
type Doc struct {
	*reader.Shared
	*Fields
	Phases          []*Phase  // the phases' structmsg members; nil when the document has none
	Context         Nested    // its structured_context
	ContextMessages []Message // its context_messages
	Messages        []Message // those of its messages that carry a structured_context
}

// Nested is a structured_context: the document it holds (nil when it is
// not an object), and whether the key was there at all.
type Nested struct {
	Doc     *Doc
	Present bool
}

// Message is a conversation message's place (1 for the first), id and
// structured context.
type Message struct {
	N       int
	ID      string
	Context Nested
}

// Phase is a structmsg phase's members: a document's phases are shared with
// session, whose members are beside these in each.
type Phase struct {
	ID     jsonscan.Str `json:"id"`
	Name   jsonscan.Str `json:"name"`
	Rounds []round      `json:"rounds"`
	Status jsonscan.Str `json:"status"`
}

// Fields are the members only a structmsg document has.
type Fields struct {
	Architecture jsonscan.Str `json:"architecture"`
	Request      *request     `json:"request"`
}

type request struct {
	OriginalInput jsonscan.Str `json:"original_input"`
	CoreGoal      jsonscan.Str `json:"core_goal"`
}

type round struct {
	Plan *struct {
		Tasks []struct {
			ID    jsonscan.Str `json:"id"`
			Title jsonscan.Str `json:"title"`
			Tool  jsonscan.Str `json:"tool"`
		} `json:"tasks"`
	} `json:"plan"`
	Executions []struct {
		TaskID jsonscan.Str `json:"task_id"`
		Tool   jsonscan.Str `json:"tool"`
		Result *struct {
			Success tri          `json:"success"`
			Error   jsonscan.Str `json:"error"`
		} `json:"result"`
		Timestamp jsonscan.Time `json:"timestamp"`
	} `json:"executions"`
	Judge *struct {
		TaskEvaluation []struct {
			TaskID       jsonscan.Str `json:"task_id"`
			Status       jsonscan.Str `json:"status"`
			QualityScore score        `json:"quality_score"`
			OutputValid  tri          `json:"output_valid"`
		} `json:"task_evaluation"`
		PhaseMetrics *struct {
			QualityAverage jsonscan.Num `json:"quality_average"`
		} `json:"phase_metrics"`
	} `json:"judge"`
}

func isStructured(d Doc) bool {
	for _, p := range d.Phases {
		if p.Rounds != nil {
			return true
		}
	}
	return d.Request != nil && d.Phases != nil
}

func hasEmbedded(msgs []Message) bool {
	for i := range msgs {
		if msgs[i].Context.Present {
			return true
		}
	}
	return false
}

func read(d Doc, c *reader.Ctx) {
	if isStructured(d) {
		structRun(d, reader.FirstOf(d.ID), c)
		return
	}
	conv := reader.FirstOf(d.ID)
	if conv == "" {
		conv = c.FallbackID()
	}
	if sc := d.Context; sc.Doc != nil && isStructured(*sc.Doc) {
		structRun(*sc.Doc, reader.FirstOf(sc.Doc.ID), c)
	}
	// Messages are numbered through context_messages, then messages.
	embeddedRun := func(sc Nested, msgID string, n int) {
		if sc.Doc == nil || !isStructured(*sc.Doc) {
			return
		}
		id := reader.FirstOf(sc.Doc.ID)
		if id == "" {
			id = msgID
		}
		if id == "" {
			id = fmt.Sprintf("%s#msg%d", conv, n)
		}
		structRun(*sc.Doc, id, c)
	}
	for _, m := range d.ContextMessages {
		embeddedRun(m.Context, m.ID, m.N)
	}
	for _, m := range d.Messages {
		embeddedRun(m.Context, m.ID, len(d.ContextMessages)+m.N)
	}
}

func structRun(d Doc, id string, c *reader.Ctx) {
	r := &model.Run{ID: id, Format: "structmsg", Summary: d.Summary.Text}
	if r.ID == "" {
		r.ID = c.FallbackID()
	}
	if d.Request != nil {
		r.Request = d.Request.OriginalInput.V
		r.Title = reader.FirstOf(d.Request.CoreGoal, d.Request.OriginalInput)
	}
	start := d.Timestamp
	if !start.Set {
		start = d.CreatedAt
	}
	r.Started = start.In(c.Loc)

	var statuses []model.StepStatus
	for _, ph := range d.Phases {
		name := reader.FirstOf(ph.Name, ph.ID)
		if ph.Status.Set {
			statuses = append(statuses, reader.StepStatus(ph.Status.V, c))
		} else {
			statuses = append(statuses, model.StepOther)
			c.Warn(reader.WarnMissingStatus)
		}
		for _, rd := range ph.Rounds {
			evalStatus := map[string]string{}
			tools := map[string]string{}
			if rd.Judge != nil {
				for _, ev := range rd.Judge.TaskEvaluation {
					evalStatus[ev.TaskID.V] = ev.Status.V
				}
			}
			if rd.Plan != nil {
				for _, t := range rd.Plan.Tasks {
					tools[t.ID.V] = t.Tool.V
					st := model.Step{Name: reader.FirstOf(t.Title, t.ID), Agent: "", Status: model.StepNotStarted}
					if word, ok := evalStatus[t.ID.V]; ok {
						st.Status = reader.StepStatus(word, c)
					}
					r.Steps = append(r.Steps, st)
				}
			}
			for _, ex := range rd.Executions {
				call := model.ToolCall{Name: ex.Tool.V, Span: model.Span{Started: ex.Timestamp.In(c.Loc)}}
				if ex.Result != nil && ex.Result.Success.Set {
					call.Outcome = model.OutcomeOK
					if !ex.Result.Success.V {
						call.Outcome, call.Error = model.OutcomeError, ex.Result.Error.V
					}
				}
				if tools[ex.TaskID.V] == "" {
					tools[ex.TaskID.V] = ex.Tool.V
				}
				r.ToolCalls = append(r.ToolCalls, call)
			}
			if rd.Judge == nil {
				continue
			}
			sum, n := 0.0, 0
			for _, ev := range rd.Judge.TaskEvaluation {
				e := model.Evaluation{Phase: name, Tool: tools[ev.TaskID.V], Task: ev.TaskID.V, Score: ev.QualityScore.V, HasScore: ev.QualityScore.Set}
				if ev.OutputValid.Set {
					e.Valid = model.TriFalse
					if ev.OutputValid.V {
						e.Valid = model.TriTrue
					}
				}
				if e.HasScore {
					sum, n = sum+e.Score, n+1
				}
				r.Quality = append(r.Quality, e)
			}
			// quality_average is the producer's own figure: cross-checked, never averaged in.
			if pm := rd.Judge.PhaseMetrics; pm != nil && pm.QualityAverage.Set && n > 0 && math.Abs(sum/float64(n)-pm.QualityAverage.V) > 0.05 {
				c.Warn(reader.WarnQualityMismatch)
			}
		}
	}
	r.Status = structStatus(statuses)
	c.Run(r)
}

func structStatus(phases []model.StepStatus) model.Status {
	if len(phases) == 0 {
		return model.StatusRunning
	}
	all, partial, open := true, false, false
	for _, s := range phases {
		switch s {
		case model.StepFailed:
			return model.StatusFailed
		case model.StepCompleted:
			continue
		case model.StepPartial:
			partial = true
		case model.StepInProgress:
			open = true
		}
		all = false
	}
	switch {
	case all:
		return model.StatusSuccess
	case partial && !open:
		return model.StatusPartial
	}
	return model.StatusRunning
}

// tri is a boolean that counts only when written as one.
type tri struct {
	V, Set bool
}

func (t *tri) DecodeFlex(dec *jsontext.Decoder, w jsonscan.Warner, _ json.Options) error {
	switch dec.PeekKind() {
	case 't', 'f':
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		t.V, t.Set = tok.Bool(), true
		return nil
	case 'n':
		return dec.SkipValue()
	}
	w.Warn(reader.WarnTypeMismatch)
	return dec.SkipValue()
}

// score is a number that counts only when written as a JSON number.
type score struct {
	V   float64
	Set bool
}

func (s *score) DecodeFlex(dec *jsontext.Decoder, w jsonscan.Warner, _ json.Options) error {
	if dec.PeekKind() != '0' {
		if dec.PeekKind() != 'n' {
			w.Warn(reader.WarnTypeMismatch)
		}
		return dec.SkipValue()
	}
	var n jsonscan.Num
	if err := jsonscan.DecodeNum(dec, &n, w); err != nil {
		return err
	}
	s.V, s.Set = n.V, n.Set
	return nil
}

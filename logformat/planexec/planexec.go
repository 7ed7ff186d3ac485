// Package planexec reads one PlanExecutionRecord of the Java plan executor
// (seed 000): its plan's steps, and each agent execution's think-act steps
// as tool calls.
package planexec

import (
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/agentstat/agentstat/model"
)

// Format is planexec's entry in the registry.
var Format = reader.Format[Doc]{
	Name:      "planexec",
	Title:     "PlanExecutionRecord (plan steps, agentExecutionSequence, thinkActSteps)",
	Signature: "an object with agentExecutionSequence, or with planId and userRequest",
	Match: func(d Doc) bool {
		return d.AgentExecutionSequence != nil || (d.PlanID.Set && d.UserRequest.Set)
	},
	Read: read,
}

// Doc is what planexec reads of a document.
type Doc struct {
	*reader.Shared
	*Fields
}

// Fields are the members only a planexec document has.
type Fields struct {
	UserRequest            jsonscan.Str            `json:"userRequest"`
	EndTime                jsonscan.Time           `json:"endTime"`
	Completed              *bool                   `json:"completed"`
	StepStatuses           []jsonscan.Str          `json:"stepStatuses"`
	StepAgents             []jsonscan.Str          `json:"stepAgents"`
	AgentExecutionSequence []agentExecution        `json:"agentExecutionSequence"`
	StatusCounts           map[string]jsonscan.Num `json:"statusCounts"`
}

type agentExecution struct {
	ID            jsonscan.Str   `json:"id"`
	AgentName     jsonscan.Str   `json:"agentName"`
	StartTime     jsonscan.Time  `json:"startTime"`
	EndTime       jsonscan.Time  `json:"endTime"`
	MaxSteps      jsonscan.Num   `json:"maxSteps"`
	CurrentStep   jsonscan.Num   `json:"currentStep"`
	Status        jsonscan.Str   `json:"status"`
	IsStuck       *bool          `json:"isStuck"`
	ThinkActSteps []thinkActStep `json:"thinkActSteps"`
}

type thinkActStep struct {
	ThinkStartTime jsonscan.Time `json:"thinkStartTime"`
	ThinkEndTime   jsonscan.Time `json:"thinkEndTime"`
	ActStartTime   jsonscan.Time `json:"actStartTime"`
	ActEndTime     jsonscan.Time `json:"actEndTime"`
	Status         jsonscan.Str  `json:"status"`
	ToolName       jsonscan.Str  `json:"toolName"`
	ErrorMessage   jsonscan.Str  `json:"errorMessage"`
	Error          jsonscan.Str  `json:"error"`
	ActionResult   jsonscan.Str  `json:"actionResult"`
}

func read(d Doc, c *reader.Ctx) {
	r := &model.Run{
		ID:      reader.FirstOf(d.PlanID, d.ID),
		Format:  "planexec",
		Title:   d.Title.V,
		Request: d.UserRequest.V,
		Summary: d.Summary.Text,
		Span:    c.Span(d.StartTime, d.EndTime),
	}
	if r.ID == "" {
		r.ID = c.FallbackID()
	}
	if r.Title == "" {
		r.Title = r.Request
	}

	blocked := false
	counted := map[model.StepStatus]int64{}
	for i, text := range d.Steps.Texts {
		st := model.Step{Name: text, Status: model.StepOther}
		if i < len(d.StepStatuses) {
			st.Status = reader.StepStatus(d.StepStatuses[i].V, c)
		} else {
			c.Warn(reader.WarnMissingStatus)
		}
		if i < len(d.StepAgents) {
			st.Agent = d.StepAgents[i].V
		}
		blocked = blocked || st.Status == model.StepBlocked
		counted[st.Status]++
		r.Steps = append(r.Steps, st)
	}
	if d.StatusCounts != nil && d.StepStatuses != nil {
		for word, n := range d.StatusCounts {
			s, _ := model.ParseStepStatus(word)
			if n.Set && n.Int() != counted[s] {
				c.Warn(reader.WarnCountMismatch)
				break
			}
		}
	}

	failedAgent := false
	for _, ex := range d.AgentExecutionSequence {
		switch model.Fold(ex.Status.V) {
		case "failed", "error":
			failedAgent = true
		}
		if ex.IsStuck != nil && *ex.IsStuck {
			failedAgent = true
		}
		if ex.MaxSteps.Set && ex.MaxSteps.V > 0 && ex.CurrentStep.Set {
			r.Context.StepBudget = append(r.Context.StepBudget, ex.CurrentStep.V/ex.MaxSteps.V)
		}
		for _, ta := range ex.ThinkActSteps {
			if ta.ToolName.V == "" {
				continue
			}
			call := model.ToolCall{
				Name:    ta.ToolName.V,
				Agent:   ex.AgentName.V,
				Span:    c.Span(ta.ActStartTime, ta.ActEndTime),
				Outcome: reader.CallOutcome(ta.Status, c),
			}
			if think := c.Span(ta.ThinkStartTime, ta.ThinkEndTime); think.HasDuration {
				call.ThinkMS, call.HasThink = think.DurationMS, true
			}
			if call.Outcome == model.OutcomeError {
				call.Error = reader.FirstOf(ta.ErrorMessage, ta.Error, ta.ActionResult)
			}
			r.ToolCalls = append(r.ToolCalls, call)
		}
	}

	switch {
	case d.Completed != nil && *d.Completed:
		r.Status = model.StatusSuccess
	case blocked || failedAgent:
		r.Status = model.StatusFailed
	default:
		r.Status = model.StatusRunning
	}
	c.Run(r)
}

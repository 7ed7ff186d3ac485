// Package model is the normalized model of docs/metrics.md: every input format is
// mapped onto these types by its reader, and nothing downstream needs to know
// which format a run came from.
package model

import (
	"strings"
	"time"
)

// Status is a run's normalized status.
type Status string

// The run statuses of docs/metrics.md.
const (
	StatusSuccess Status = "success"
	StatusFailed  Status = "failed"
	StatusPartial Status = "partial"
	StatusRunning Status = "running"
	StatusUnknown Status = "unknown"
)

// RunStatuses lists the run statuses in the order reports show them.
var RunStatuses = []Status{StatusSuccess, StatusFailed, StatusPartial, StatusRunning, StatusUnknown}

// StepStatus is a step's normalized status.
type StepStatus string

// The step statuses of docs/metrics.md.
const (
	StepCompleted  StepStatus = "completed"
	StepPartial    StepStatus = "partial"
	StepInProgress StepStatus = "in_progress"
	StepBlocked    StepStatus = "blocked"
	StepNotStarted StepStatus = "not_started"
	StepFailed     StepStatus = "failed"
	StepSkipped    StepStatus = "skipped"
	StepOther      StepStatus = "other"
)

// StepStatuses lists the step statuses in the order reports show them.
var StepStatuses = []StepStatus{StepCompleted, StepPartial, StepInProgress, StepBlocked, StepNotStarted, StepFailed, StepSkipped, StepOther}

var stepWords = map[string]StepStatus{
	"completed": StepCompleted, "done": StepCompleted, "success": StepCompleted, "succeeded": StepCompleted, "finished": StepCompleted,
	"partial":     StepPartial,
	"in_progress": StepInProgress, "running": StepInProgress, "executing": StepInProgress, "active": StepInProgress,
	"not_started": StepNotStarted, "pending": StepNotStarted, "planned": StepNotStarted, "queued": StepNotStarted, "todo": StepNotStarted, "idle": StepNotStarted,
	"failed": StepFailed, "failure": StepFailed, "error": StepFailed,
	"skipped": StepSkipped, "cancelled": StepSkipped, "canceled": StepSkipped,
	"blocked": StepBlocked,
}

// ParseStepStatus maps a status word onto a step status, case-insensitively
// after trimming. ok is false when the word is not in the list (StepOther).
func ParseStepStatus(word string) (s StepStatus, ok bool) {
	s, ok = stepWords[Fold(word)]
	if !ok {
		return StepOther, false
	}
	return s, true
}

// Fold trims and lower-cases a status word for matching.
func Fold(word string) string { return strings.ToLower(strings.TrimSpace(word)) }

// Outcome is how a tool call ended, when that is known.
type Outcome int8

// Tool-call outcomes. A cancelled call is one the user rejected or
// interrupted: neither a success nor a failure of the tool.
const (
	OutcomeUnknown Outcome = iota
	OutcomeOK
	OutcomeError
	OutcomeCancelled
)

// String names the outcome as reports show it.
func (o Outcome) String() string {
	switch o {
	case OutcomeOK:
		return "ok"
	case OutcomeError:
		return "error"
	case OutcomeCancelled:
		return "cancelled"
	}
	return "unknown"
}

// Span is a start, an end and a duration, each optional. A duration is known
// only when HasDuration is set; it is never negative.
type Span struct {
	Started, Ended time.Time // zero when unknown
	DurationMS     float64
	HasDuration    bool
}

// Run is one execution: the unit every report counts.
type Run struct {
	ID, Format, Source      string
	Seq                     int // position among the runs its source yielded
	FileOrd                 int // discovery order of its source; runs joined across files come after every other
	Title, Request, Summary string
	Agent, Model            string
	Project, Branch         string // the directory the agent worked in, and its git branch, where the log says
	Span
	Status    Status
	Steps     []Step
	ToolCalls []ToolCall
	Quality   []Evaluation
	Tokens    Tokens // every request's tokens, and tokens no request accounts for (Unspecified)
	Requests  Requests
	Context   Context
}

// Request is one model call that reported its token use.
type Request struct {
	Model  string
	At     time.Time // zero when the source does not say
	Tokens Tokens
}

// AddRequest records q and adds its tokens to the run's.
func (r *Run) AddRequest(q Request) {
	r.Requests = append(r.Requests, q)
	r.Tokens.Add(q.Tokens)
}

// Step is a planned unit of work.
type Step struct {
	Name, Agent string
	Status      StepStatus
	Span
}

// ToolCall is one call of a tool by an agent.
type ToolCall struct {
	Name, Category, Agent string
	Span
	Error string
	Input string // its key argument where the log has one: a command, a path, a pattern, a URL (clipped)
	// ThinkMS is the think time before the call where the format records it (planexec).
	ThinkMS  float64
	Outcome  Outcome // beside HasThink: a long session holds 150,000 calls, 8 bytes each saved
	HasThink bool
}

// Evaluation is one judged task (structmsg judge.task_evaluation).
type Evaluation struct {
	Phase, Tool, Task string
	Score             float64
	HasScore          bool
	Valid             Tri
}

// Tri is a boolean that may be unknown.
type Tri int8

// Tri values.
const (
	TriUnknown Tri = iota
	TriTrue
	TriFalse
)

// Tokens counts model tokens by kind; the four named kinds never overlap.
// Unspecified holds tokens whose kind the source does not say.
// CacheCreation1h is the part of CacheCreation written with the 1-hour TTL.
type Tokens struct {
	Input, Output, CacheRead, CacheCreation, Unspecified int64
	CacheCreation1h                                      int64
}

// Prompt is what a request sent the model: input, cache read and cache write.
func (t Tokens) Prompt() int64 { return t.Input + t.CacheRead + t.CacheCreation }

// Total is the sum of every kind.
func (t Tokens) Total() int64 {
	return t.Input + t.Output + t.CacheRead + t.CacheCreation + t.Unspecified
}

// Add adds u to t.
func (t *Tokens) Add(u Tokens) {
	t.Input += u.Input
	t.Output += u.Output
	t.CacheRead += u.CacheRead
	t.CacheCreation += u.CacheCreation
	t.Unspecified += u.Unspecified
	t.CacheCreation1h += u.CacheCreation1h
}

// Context is what a run tells about its context and budget use.
type Context struct {
	Refs          []ContextRef
	Contributions []string // context_contribution types
	Subagents     []Subagent
	// Budget ratios (use / limit), each present only where the format has both figures.
	ToolCallBudget []float64 // debugbundle toolCallCount / policy.maxToolCalls
	DurationBudget []float64 // debugbundle totalDuration / policy.maxDuration
	StepBudget     []float64 // planexec currentStep / maxSteps per agent execution
	BudgetWarnings int64
	BudgetExceeded int64
	Retries        int64
	Compactions    int64 // times the conversation was summarised to free its context window
}

// ContextRef is one reference to context material.
type ContextRef struct {
	Type, Relevance, UsageMode string
}

// Subagent is work done by a subagent on the run's behalf.
type Subagent struct {
	Type     string
	Calls    int64
	Tokens   int64
	Requests Requests // its model requests where the log tells them (Claude Code), also among the run's
}

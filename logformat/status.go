package logformat

import (
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/model"
)

// Status words, which every format writes in its own spelling, read as the
// model's step statuses and call outcomes.

// stepStatus normalizes a step status word, counting a warning for one outside the list.
func stepStatus(word string, w Warner) model.StepStatus {
	if model.Fold(word) == "" {
		w.Warn(WarnMissingStatus)
		return model.StepOther
	}
	s, ok := model.ParseStepStatus(word)
	if !ok {
		w.Warn(WarnOtherStepStatus)
	}
	return s
}

// callOutcome maps a tool-call status word through the step word list:
// completed → ok, failed → error, absent or anything else → unknown.
func callOutcome(word jsonscan.Str, w Warner) model.Outcome {
	if !word.Set || model.Fold(word.V) == "" {
		return model.OutcomeUnknown
	}
	s, ok := model.ParseStepStatus(word.V)
	switch {
	case s == model.StepCompleted:
		return model.OutcomeOK
	case s == model.StepFailed:
		return model.OutcomeError
	case !ok:
		w.Warn(WarnUnknownStatus)
	}
	return model.OutcomeUnknown
}

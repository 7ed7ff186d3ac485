package reader

import (
	"strings"
	"time"

	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/model"
	"github.com/go-json-experiment/json"
)

// SpanOf builds a span from two resolved timestamps (zero when unknown).
func SpanOf(start, end time.Time, w jsonscan.Warner) model.Span {
	s := model.Span{Started: start, Ended: end}
	if !start.IsZero() && !end.IsZero() {
		switch d := float64(end.Sub(start).Nanoseconds()) / 1e6; {
		case d < 0:
			w.Warn(WarnNegativeDuration)
			s.Ended = time.Time{}
		case d > MaxDurationMS:
			w.Warn(WarnImpossibleDuration)
		default:
			s.DurationMS, s.HasDuration = d, true
		}
	}
	return s
}

// Widen stretches [first, last] to cover t; a zero t changes nothing.
func Widen(first, last *time.Time, t time.Time) {
	if t.IsZero() {
		return
	}
	if first.IsZero() || t.Before(*first) {
		*first = t
	}
	if t.After(*last) {
		*last = t
	}
}

// SetDuration records a duration given in milliseconds, dropping a negative one.
func SetDuration(s *model.Span, ms jsonscan.Num, w jsonscan.Warner) {
	if !ms.Set {
		return
	}
	if ms.V < 0 {
		w.Warn(WarnNegativeDuration)
		return
	}
	if ms.V > MaxDurationMS {
		w.Warn(WarnImpossibleDuration)
		return
	}
	s.DurationMS, s.HasDuration = ms.V, true
}

// TopModel is the named model with the most tokens, the smallest name on a tie.
func TopModel(tokens map[string]int64) string {
	top, best := "", int64(-1)
	for m, n := range tokens {
		if m != "" && (n > best || (n == best && m < top)) {
			top, best = m, n
		}
	}
	return top
}

// MaxDurationMS is the longest duration believed: ten years. Longer ones come
// from unit mix-ups (seconds read as milliseconds, epoch values as durations).
const MaxDurationMS = 10 * 365.25 * 24 * 3600 * 1000

func FirstOf(ss ...jsonscan.Str) string {
	for _, s := range ss {
		if s.Set && s.V != "" {
			return s.V
		}
	}
	return ""
}

// StepStatus normalizes a step status word, counting a warning for one outside the list.
func StepStatus(word string, w jsonscan.Warner) model.StepStatus {
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

// CallOutcome maps a tool-call status word through the step word list:
// completed → ok, failed → error, absent or anything else → unknown.
func CallOutcome(word jsonscan.Str, w jsonscan.Warner) model.Outcome {
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

// ClipString is s cut to at most n bytes on a character's boundary, with
// an ellipsis if anything was cut.
func ClipString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// InputClip is how much of a call's key argument is kept.
const InputClip = 300

// ArgsInput is a call's key argument from its arguments as a JSON object
// in a string (Codex's function calls, OTel's gen_ai.tool.call.arguments):
// its command (a list of words or a string, under command or cmd), else its
// path, pattern, URL or query, clipped.
func ArgsInput(args string) string {
	if args == "" {
		return ""
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(args), &m); err != nil {
		return ""
	}
	for _, k := range [...]string{"command", "cmd", "file_path", "absolute_path", "path", "pattern", "url", "query"} {
		switch v := m[k].(type) {
		case string:
			return ClipString(v, InputClip)
		case []any:
			words := make([]string, 0, len(v))
			for _, w := range v {
				if s, ok := w.(string); ok {
					words = append(words, s)
				}
			}
			if len(words) > 0 {
				return ClipString(strings.Join(words, " "), InputClip)
			}
		}
	}
	return ""
}

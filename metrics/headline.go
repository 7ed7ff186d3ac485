package metrics

import (
	"slices"
)

// Figure is one headline figure: what people look at first. The Markdown
// headline, the dashboard's cards, history.jsonl, diff, --fail-on-regression,
// check and the workbook's Summary sheet read them from Headline, so a
// figure added there reaches each of them that its fields name.
type Figure struct {
	Path       string // its summary.json path
	Label      string // its name in the Markdown headline and the workbook
	Kind       string // count, rate, duration (ms), usd, score or number: how it is shown and compared
	Better     string // "up" or "down" when a change is better or worse; "" for neither
	History    string // its key in history.jsonl ("" when not kept)
	Regression string // its --fail-on-regression name ("" when none)
	Shown      bool   // a column of the Markdown headline
	Diff       bool   // diff compares it
	Card       bool   // a card of the dashboard (render/html_cards.go says how it looks)
	Get        func(*Summary) *float64
}

// Headline is every headline figure, in the order outputs list them.
var Headline = []Figure{
	{"runs.total", "Runs", "count", "", "runs", "", true, true, true, func(s *Summary) *float64 { return f64(s.Runs.Total) }},
	{"runs.success_rate", "Success rate", "rate", "up", "success_rate", "success_rate", true, true, true, func(s *Summary) *float64 { return s.Runs.SuccessRate }},
	{"tool_calls.total", "Tool calls", "count", "", "tool_calls", "", true, true, true, func(s *Summary) *float64 { return f64(s.ToolCalls.Total) }},
	{"tool_calls.errors", "Tool-call errors", "count", "", "", "", false, false, false, func(s *Summary) *float64 { return f64(s.ToolCalls.Errors) }},
	{"tool_calls.error_rate", "Tool-call error rate", "rate", "down", "error_rate", "error_rate", true, true, true, func(s *Summary) *float64 { return s.ToolCalls.ErrorRate }},
	{"cost.usd", "Cost", "usd", "down", "cost_usd", "cost", true, true, true, func(s *Summary) *float64 { return s.Cost.USD }},
	{"runs.cost_usd.p95", "Run cost p95", "usd", "down", "run_cost_p95_usd", "run_cost_p95", false, true, false, func(s *Summary) *float64 { return s.Runs.CostUSD.P95 }},
	{"cost.unpriced_tokens", "Unpriced tokens", "count", "", "", "", false, false, false, func(s *Summary) *float64 { return f64(s.Cost.UnpricedTokens) }},
	{"tool_calls.cancelled", "Cancelled tool calls", "count", "", "", "", false, false, false, func(s *Summary) *float64 { return f64(s.ToolCalls.Cancelled) }},
	{"tool_calls.cancel_rate", "Cancel rate", "rate", "down", "cancel_rate", "cancel_rate", false, true, false, func(s *Summary) *float64 { return s.ToolCalls.CancelRate }},
	{"runs.duration_ms.p50", "Run p50", "duration", "", "", "", false, false, false, func(s *Summary) *float64 { return s.Runs.DurationMS.P50 }},
	{"runs.duration_ms.p95", "Run p95", "duration", "down", "run_p95_ms", "run_p95", true, true, true, func(s *Summary) *float64 { return s.Runs.DurationMS.P95 }},
	{"tool_calls.duration_ms.p50", "Tool-call p50", "duration", "", "", "", false, false, false, func(s *Summary) *float64 { return s.ToolCalls.DurationMS.P50 }},
	{"tool_calls.duration_ms.p95", "Tool-call p95", "duration", "down", "tool_call_p95_ms", "tool_call_p95", true, true, true, func(s *Summary) *float64 { return s.ToolCalls.DurationMS.P95 }},
	{"steps.total", "Steps", "count", "", "", "", false, false, false, func(s *Summary) *float64 { return f64(s.Steps.Total) }},
	{"steps.completion_rate", "Step completion rate", "rate", "up", "", "completion_rate", false, true, false, func(s *Summary) *float64 { return s.Steps.CompletionRate }},
	{"quality.evaluations", "Quality evaluations", "count", "", "", "", false, false, false, func(s *Summary) *float64 { return f64(s.Quality.Evaluations) }},
	{"quality.mean", "Quality mean", "score", "up", "quality_mean", "quality", true, true, true, func(s *Summary) *float64 { return s.Quality.Mean }},
	{"quality.output_valid_rate", "Output valid rate", "rate", "", "", "", false, false, false, func(s *Summary) *float64 { return s.Quality.OutputValidRate }},
	{"context.tokens.total", "Tokens", "count", "", "tokens", "", true, true, true, func(s *Summary) *float64 { return f64(s.Context.Tokens.Total) }},
	{"context.tokens_per_run.mean", "Tokens per run (mean)", "number", "", "", "", false, false, false, func(s *Summary) *float64 { return s.Context.TokensPerRun.Mean }},
	{"context.cache_read_share", "Cache-read share", "rate", "", "", "", false, false, false, func(s *Summary) *float64 { return s.Context.CacheReadShare }},
	{"context.window.peak_tokens.p95", "Peak prompt p95 (tokens)", "count", "", "", "", false, false, false, func(s *Summary) *float64 { return s.Context.Window.PeakTokens.P95 }},
	{"context.window.runs_over_90", "Runs at 90% of the window", "count", "", "", "", false, false, false, func(s *Summary) *float64 { return f64(s.Context.Window.RunsOver90) }},
	{"context.window.compactions.sum", "Compactions", "count", "", "", "", false, false, false, func(s *Summary) *float64 { return ptr(s.Context.Window.Compactions.Sum) }},
	{"inputs.files_seen", "Files seen", "count", "", "", "", false, false, false, func(s *Summary) *float64 { return f64(s.Inputs.FilesSeen) }},
	{"inputs.files_parsed", "Files parsed", "count", "", "", "", false, false, false, func(s *Summary) *float64 { return f64(s.Inputs.FilesParsed) }},
	{"inputs.files_skipped", "Files skipped", "count", "", "files_skipped", "", false, true, true, func(s *Summary) *float64 { return f64(s.Inputs.FilesSkipped) }},
	{"inputs.redacted", "Values redacted", "count", "", "", "", false, false, false, func(s *Summary) *float64 { return f64(s.Inputs.Redacted) }},
}

// ToolFigure is a per-tool figure diff compares and check and
// --fail-on-regression may limit for every tool or one.
type ToolFigure struct {
	Path       string // its path within a tools[] entry
	Label      string
	Kind       string
	Better     string
	Regression string
	Get        func(ToolRow) *float64
}

// ToolFigures are the per-tool figures, in the order diff lists them.
var ToolFigures = []ToolFigure{
	{"calls", "Calls", "count", "", "", func(t ToolRow) *float64 { return f64(t.Calls) }},
	{"error_rate", "Error rate", "rate", "down", "tool_error_rate", func(t ToolRow) *float64 { return t.ErrorRate }},
	{"duration_ms.p95", "p95", "duration", "down", "tool_p95", func(t ToolRow) *float64 { return t.DurationMS.P95 }},
}

// FigureAt is the headline figure at a summary.json path.
func FigureAt(path string) (Figure, bool) {
	i := slices.IndexFunc(Headline, func(f Figure) bool { return f.Path == path })
	if i < 0 {
		return Figure{}, false
	}
	return Headline[i], true
}

// toolFigureAt is the per-tool figure at a path within a tools[] entry.
func toolFigureAt(path string) (ToolFigure, bool) {
	i := slices.IndexFunc(ToolFigures, func(f ToolFigure) bool { return f.Path == path })
	if i < 0 {
		return ToolFigure{}, false
	}
	return ToolFigures[i], true
}

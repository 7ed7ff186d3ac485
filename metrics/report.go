package metrics

import (
	"time"

	"github.com/agentstat/agentstat/pricing"
)

// SchemaVersion names the summary.json schema.
const SchemaVersion = "agentstat.summary/v1"

// Report is the immutable result of an analysis: every renderer is a
// function of it. Summary is exactly what summary.json holds.
type Report struct {
	Summary  Summary
	Runs     *RunIndex // the compact per-run index, sorted by source then id
	Title    string
	Location *time.Location
	Details  *Details       // every run's detail, when Settings.KeepDetails; Close it when done
	Prices   *pricing.Table // what the costs were figured at: run pages and tables price each request
	// ToolDetails is what each tool's page shows beyond its row in Summary.Tools, by tool name.
	ToolDetails map[string]*ToolDetail
	// History is the report runs before this one and this one last, when the
	// caller keeps a history (history.jsonl); empty otherwise.
	History []HistoryEntry
}

// Summary is summary.json (schema agentstat.summary/v1, docs/metrics.md). Rates
// are fractions in [0, 1]; a rate or statistic with no data is null.
type Summary struct {
	Schema      string         `json:"schema"`
	GeneratedAt string         `json:"generated_at"`
	TZ          string         `json:"tz"`
	Window      *Window        `json:"window,omitempty"`
	Inputs      Inputs         `json:"inputs"`
	Runs        RunsSummary    `json:"runs"`
	Cost        CostSummary    `json:"cost"`
	Steps       StepsSummary   `json:"steps"`
	ToolCalls   CallsSummary   `json:"tool_calls"`
	Tools       []ToolRow      `json:"tools"`
	Agents      []AgentRow     `json:"agents"`
	Formats     []FormatRow    `json:"formats"`
	Projects    []ProjectRow   `json:"projects"`
	Models      []ModelRow     `json:"models"`
	Quality     QualitySummary `json:"quality"`
	Context     ContextSummary `json:"context"`
	Daily       []DayRow       `json:"daily"`
	Errors      []ErrorRow     `json:"errors"`
	Check       *CheckResult   `json:"check,omitempty"`
}

// Window is what the runs were kept by, when something was given: the
// --since/--until content-time window and the --project.
type Window struct {
	Since   string `json:"since,omitempty"`
	Until   string `json:"until,omitempty"`
	Project string `json:"project,omitempty"`
}

// Inputs is the data-quality account: every seen file is parsed, skipped
// with one reason, or filtered (all its runs outside the window).
type Inputs struct {
	FilesSeen     int64             `json:"files_seen"`
	FilesParsed   int64             `json:"files_parsed"`
	FilesSkipped  int64             `json:"files_skipped"`
	FilesFiltered int64             `json:"files_filtered"`
	RunsFiltered  int64             `json:"runs_filtered"`
	ByFormat      map[string]int64  `json:"by_format"`
	SkippedBy     map[string]int64  `json:"skipped_by_reason"`
	Skipped       []SkippedFile     `json:"skipped"`
	Warnings      map[string]int64  `json:"warnings"`
	WarningFiles  map[string]string `json:"warning_files"` // per kind, the first file by path that raised it (none for cross-file checks)
	Redacted      int64             `json:"redacted"`
	TextWithheld  bool              `json:"text_withheld,omitempty"` // --no-text: no prompt, title, step name, task or error text from a log
}

// SkippedFile is one file that fed no run, with the reason.
type SkippedFile struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	Detail string `json:"detail,omitempty"`
}

// Stats summarises a distribution; every figure but count and sum is null without data.
type Stats struct {
	Count int64    `json:"count"`
	Sum   float64  `json:"sum"`
	Mean  *float64 `json:"mean"`
	P50   *float64 `json:"p50"`
	P90   *float64 `json:"p90"`
	P95   *float64 `json:"p95"`
	P99   *float64 `json:"p99"`
	Max   *float64 `json:"max"`
}

// RunsSummary is the volume and completion of runs.
type RunsSummary struct {
	Total       int64            `json:"total"`
	ByStatus    map[string]int64 `json:"by_status"`
	ByFormat    map[string]int64 `json:"by_format"`
	SuccessRate *float64         `json:"success_rate"`
	DurationMS  Stats            `json:"duration_ms"`
	Histogram   []HistogramBin   `json:"duration_histogram"`
	CostUSD     Stats            `json:"cost_usd"` // over runs with a priced request
}

// CostSummary is what the tokens cost in USD, at the prices of Pricing.
// USD is null when no request was priced; tokens of models the table does
// not price are counted apart, never priced at 0.
type CostSummary struct {
	USD            *float64         `json:"usd"`
	UnpricedTokens int64            `json:"unpriced_tokens"`
	UnpricedModels map[string]int64 `json:"unpriced_models"`
	Pricing        PricingInfo      `json:"pricing"`
}

// PricingInfo names the price table: "built-in", then any --pricing files.
type PricingInfo struct {
	Source string `json:"source"`
	Date   string `json:"date"`
	Models int    `json:"models"`
}

// HistogramBin counts durations in [FromMS, ToMS); ToMS is null for the last bin.
type HistogramBin struct {
	FromMS float64  `json:"from_ms"`
	ToMS   *float64 `json:"to_ms"`
	Count  int64    `json:"count"`
}

// StepsSummary is the planned units of work.
type StepsSummary struct {
	Total          int64            `json:"total"`
	ByStatus       map[string]int64 `json:"by_status"`
	CompletionRate *float64         `json:"completion_rate"`
}

// CallsSummary is every tool call.
type CallsSummary struct {
	Total        int64          `json:"total"`
	ToolNames    int64          `json:"tool_names"` // distinct tool names; tools[] lists the MaxTools most called
	OutcomeKnown int64          `json:"outcome_known"`
	Errors       int64          `json:"errors"`
	ErrorRate    *float64       `json:"error_rate"`
	Cancelled    int64          `json:"cancelled"`
	CancelRate   *float64       `json:"cancel_rate"`
	DurationMS   Stats          `json:"duration_ms"`
	Histogram    []HistogramBin `json:"duration_histogram"`
}

// ToolRow is one tool, keyed by name exactly as written.
type ToolRow struct {
	Name       string   `json:"name"`
	Category   string   `json:"category"`
	Calls      int64    `json:"calls"`
	Share      *float64 `json:"share"`
	Errors     int64    `json:"errors"`
	ErrorRate  *float64 `json:"error_rate"`
	Cancelled  int64    `json:"cancelled"`
	CancelRate *float64 `json:"cancel_rate"`
	DurationMS Stats    `json:"duration_ms"`
}

// AgentRow is one agent: runs it took part in and the calls it made.
type AgentRow struct {
	Name      string   `json:"name"`
	Runs      int64    `json:"runs"`
	ToolCalls int64    `json:"tool_calls"`
	Errors    int64    `json:"errors"`
	ErrorRate *float64 `json:"error_rate"`
	CostUSD   *float64 `json:"cost_usd"`
}

// FormatRow is one input format.
type FormatRow struct {
	Format      string      `json:"format"`
	Files       int64       `json:"files"`
	Runs        int64       `json:"runs"`
	ToolCalls   int64       `json:"tool_calls"`
	Errors      int64       `json:"errors"`
	ErrorRate   *float64    `json:"error_rate"`
	SuccessRate *float64    `json:"success_rate"`
	Tokens      TokenCounts `json:"tokens"`
	CostUSD     *float64    `json:"cost_usd"`
}

// ProjectRow is one project: the directory its runs worked in (ProjectOf),
// and its label, the last path elements that tell it from the others.
type ProjectRow struct {
	Project     string      `json:"project"`
	Label       string      `json:"label"`
	Runs        int64       `json:"runs"`
	SuccessRate *float64    `json:"success_rate"`
	ToolCalls   int64       `json:"tool_calls"`
	Errors      int64       `json:"errors"`
	ErrorRate   *float64    `json:"error_rate"`
	Cancelled   int64       `json:"cancelled"`
	Tokens      TokenCounts `json:"tokens"`
	CostUSD     *float64    `json:"cost_usd"`
}

// ModelRow is the requests made to one model: runs that made one, tokens,
// and their cost (null when the price table does not price the model).
type ModelRow struct {
	Model    string      `json:"model"`
	Requests int64       `json:"requests"`
	Runs     int64       `json:"runs"`
	Tokens   TokenCounts `json:"tokens"`
	CostUSD  *float64    `json:"cost_usd"`
}

// TokenCounts splits tokens by kind; the four named kinds never overlap and
// unspecified holds tokens whose kind the source does not say.
type TokenCounts struct {
	Total         int64 `json:"total"`
	Input         int64 `json:"input"`
	Output        int64 `json:"output"`
	CacheRead     int64 `json:"cache_read"`
	CacheCreation int64 `json:"cache_creation"`
	CacheWrite1h  int64 `json:"cache_creation_1h"` // of cache_creation, written with the 1-hour TTL
	Unspecified   int64 `json:"unspecified"`
}

// QualitySummary is the judged tasks.
type QualitySummary struct {
	Evaluations        int64          `json:"evaluations"`
	Mean               *float64       `json:"mean"`
	Median             *float64       `json:"median"`
	P10                *float64       `json:"p10"`
	Distribution       []ScoreBin     `json:"distribution"`
	OutputValidChecked int64          `json:"output_valid_checked"`
	OutputValidRate    *float64       `json:"output_valid_rate"`
	ByPhase            []QualityGroup `json:"by_phase"`
	ByTool             []QualityGroup `json:"by_tool"`
}

// ScoreBin counts scores in [From, To), the last bin including 10.
type ScoreBin struct {
	From  int   `json:"from"`
	To    int   `json:"to"`
	Count int64 `json:"count"`
}

// QualityGroup is quality within one phase or for one tool.
type QualityGroup struct {
	Phase           string   `json:"phase,omitempty"`
	Tool            string   `json:"tool,omitempty"`
	Evaluations     int64    `json:"evaluations"`
	Mean            *float64 `json:"mean"`
	OutputValidRate *float64 `json:"output_valid_rate"`
}

// ContextSummary is tokens, context references and budget use.
type ContextSummary struct {
	Tokens              TokenCounts      `json:"tokens"`
	TokensPerRun        Stats            `json:"tokens_per_run"`
	CacheReadShare      *float64         `json:"cache_read_share"`
	RefsByType          map[string]int64 `json:"refs_by_type"`
	RefsByRelevance     map[string]int64 `json:"refs_by_relevance"`
	RefsByUsageMode     map[string]int64 `json:"refs_by_usage_mode"`
	ContributionsByType map[string]int64 `json:"contributions_by_type"`
	Subagents           SubagentSummary  `json:"subagents"`
	Budget              BudgetSummary    `json:"budget"`
	Window              WindowSummary    `json:"window"`
}

// WindowSummary is context-window use over the runs that made a request:
// each run's largest prompt (input + cache read + cache write), its share of
// that request's model's window (where the price table knows the window),
// and how often runs were compacted.
type WindowSummary struct {
	Runs        int64 `json:"runs"`
	PeakTokens  Stats `json:"peak_tokens"`
	PeakShare   Stats `json:"peak_share"`
	RunsOver90  int64 `json:"runs_over_90"`
	Compactions Stats `json:"compactions"`
}

// SubagentSummary is work delegated to subagents, never counted as the run's own calls.
type SubagentSummary struct {
	Invocations int64            `json:"invocations"`
	Calls       int64            `json:"calls"`
	Tokens      int64            `json:"tokens"`
	Requests    int64            `json:"requests"` // where the logs tell them (Claude Code)
	CostUSD     *float64         `json:"cost_usd"` // of those requests; also in the runs' cost
	ByType      map[string]int64 `json:"by_type"`
}

// BudgetSummary is use of the limits a run was given, as fractions of them.
type BudgetSummary struct {
	ToolCallUse Stats `json:"tool_call_use"`
	DurationUse Stats `json:"duration_use"`
	StepUse     Stats `json:"step_use"`
	Warnings    int64 `json:"warnings"`
	Exceeded    int64 `json:"exceeded"`
	Retries     int64 `json:"retries"`
}

// DayRow is one day in the --tz zone.
type DayRow struct {
	Date          string             `json:"date"`
	Runs          int64              `json:"runs"`
	ToolCalls     int64              `json:"tool_calls"`
	OutcomeKnown  int64              `json:"outcome_known"`
	Errors        int64              `json:"errors"`
	ErrorRate     *float64           `json:"error_rate"`
	SuccessRate   *float64           `json:"success_rate"`
	DurationMSP50 *float64           `json:"duration_ms_p50"`
	DurationMSP95 *float64           `json:"duration_ms_p95"`
	Tokens        int64              `json:"tokens"`
	TokensByKind  TokenCounts        `json:"tokens_by_kind"`
	CostUSD       *float64           `json:"cost_usd"`
	CostByModel   map[string]float64 `json:"cost_by_model"`
	ByStatus      map[string]int64   `json:"by_status"`
}

// ToolDetail is one tool's calls by day, durations and error messages.
type ToolDetail struct {
	Daily     []ToolDay      // by date
	Histogram []HistogramBin // its timed calls' durations, in the bins of tool_calls.duration_histogram
	Errors    []ToolError    // its most frequent error messages (up to 50), normalised as errors[] has them
}

// ToolDay is one tool's calls on one day in the --tz zone.
type ToolDay struct {
	Date                                   string
	Calls, OutcomeKnown, Errors, Cancelled int64
}

// ToolError is how often one normalised error message came from one tool.
type ToolError struct {
	Message string
	Count   int64
}

// ErrorRow is one error message, normalised (numbers, paths and ids folded).
type ErrorRow struct {
	Message       string `json:"message"`
	Count         int64  `json:"count"`
	Tool          string `json:"tool"`
	ExampleRun    string `json:"example_run"`
	ExampleSource string `json:"example_source"`
}

// RunRow is one run in the compact per-run index.
type RunRow struct {
	ID         string    `json:"id"`
	Format     string    `json:"format"`
	Source     string    `json:"source"`
	Page       string    `json:"page"`
	Title      string    `json:"title"`
	Status     string    `json:"status"`
	Agent      string    `json:"agent,omitempty"`
	Model      string    `json:"model,omitempty"`
	Project    string    `json:"project"`
	Started    time.Time `json:"started"`
	Ended      time.Time `json:"ended"`
	DurationMS *float64  `json:"duration_ms"`
	ToolCalls  int       `json:"tool_calls"`
	Errors     int       `json:"errors"`
	Steps      int       `json:"steps"`
	Tokens     int64     `json:"tokens"`
	CostUSD    *float64  `json:"cost_usd"`
	Cancelled  int       `json:"cancelled"`
	Tools      string    `json:"tools"`       // its tools' names, a line each (the first 24)
	ErrorTexts string    `json:"error_texts"` // its first eight error messages, normalised as errors[] has them, a line each
	// FailedTools is the tools that failed in it (the first 24), a "name\tfailures" line each, most failures first.
	FailedTools string `json:"failed_tools"`
}

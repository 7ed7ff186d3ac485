package metrics

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Threshold is one limit `agentstat check` enforces.
type Threshold struct {
	Metric  string  // the summary.json path of the figure, e.g. tool_calls.error_rate
	Tool    string  // for per-tool limits
	Project string  // for per-project limits (ProjectRow.Project or its label)
	Limit   float64 // fraction, milliseconds or quality score, as the metric is
	Max     bool    // the figure must stay at or below Limit (else at or above)
	Kind    string  // rate, duration or score: how Limit is shown
}

// ThresholdResult is one threshold's verdict, recorded in summary.json.
type ThresholdResult struct {
	Metric   string   `json:"metric"`
	Tool     string   `json:"tool,omitempty"`
	Project  string   `json:"project,omitempty"`
	Op       string   `json:"op"`
	Limit    float64  `json:"limit"`
	Kind     string   `json:"kind"`
	Actual   *float64 `json:"actual"`
	Violated bool     `json:"violated"`
}

// Scope is what a threshold limits besides the whole tree: a tool, or
// "project:NAME"; "" for the whole tree.
func (r ThresholdResult) Scope() string {
	if r.Project != "" {
		return "project:" + r.Project
	}
	return r.Tool
}

// CheckResult is the verdict of every threshold.
type CheckResult struct {
	Passed     bool              `json:"passed"`
	Violations int               `json:"violations"`
	NoData     int               `json:"no_data"`
	Thresholds []ThresholdResult `json:"thresholds"`
}

// ThresholdFlag describes one check flag: its figure overall and per tool.
type ThresholdFlag struct {
	Flag       string // without the dashes
	Metric     string // overall figure
	ToolMetric string // per-tool figure ("" when none)
	Max        bool
	Kind       string
	Help       string
}

// ThresholdFlags lists the flags of `agentstat check`.
var ThresholdFlags = []ThresholdFlag{
	{"max-error-rate", "tool_calls.error_rate", "error_rate", true, "rate", "highest tool-call error `RATE`, e.g. 0.05 or 5%; TOOL=RATE for one tool, project:NAME=RATE for one project"},
	{"min-success-rate", "runs.success_rate", "", false, "rate", "lowest run success `RATE`; project:NAME=RATE for one project"},
	{"min-completion-rate", "steps.completion_rate", "", false, "rate", "lowest step completion `RATE`"},
	{"min-quality", "quality.mean", "", false, "score", "lowest quality mean `SCORE` (0-10)"},
	{"max-p95", "tool_calls.duration_ms.p95", "duration_ms.p95", true, "duration", "highest tool-call p95 `DURATION`, e.g. 5s; TOOL=DURATION for one tool"},
	{"max-run-p95", "runs.duration_ms.p95", "", true, "duration", "highest run p95 `DURATION`, e.g. 10m"},
	{"max-cost", "cost.usd", "", true, "usd", "highest cost of all runs, in `USD`, e.g. 25 or $25; project:NAME=USD for one project"},
	{"max-run-cost-p95", "runs.cost_usd.p95", "", true, "usd", "highest p95 of the cost of a run, in `USD`"},
}

// ParseThreshold reads one value of a check flag: VALUE, or TOOL=VALUE where
// the flag has a per-tool form.
func ParseThreshold(f ThresholdFlag, text string) (Threshold, error) {
	t := Threshold{Metric: f.Metric, Max: f.Max, Kind: f.Kind}
	value := strings.TrimSpace(text)
	if rest, ok := strings.CutPrefix(value, "project:"); ok {
		i := strings.LastIndexByte(rest, '=')
		metric, ok := projectMetrics[f.Metric]
		switch {
		case !ok:
			return t, fmt.Errorf("--%s takes no project: %q (per project: --max-error-rate, --min-success-rate, --max-cost)", f.Flag, text)
		case i <= 0:
			return t, fmt.Errorf("--%s %q: use project:NAME=VALUE", f.Flag, text)
		}
		t.Project, t.Metric, value = strings.TrimSpace(rest[:i]), metric, strings.TrimSpace(rest[i+1:])
	} else if i := strings.LastIndexByte(value, '='); i >= 0 {
		if f.ToolMetric == "" {
			return t, fmt.Errorf("--%s takes no tool name: %q", f.Flag, text)
		}
		t.Tool, t.Metric, value = strings.TrimSpace(value[:i]), "tools."+f.ToolMetric, strings.TrimSpace(value[i+1:])
		if t.Tool == "" {
			return t, fmt.Errorf("--%s: empty tool name in %q", f.Flag, text)
		}
	}
	var err error
	switch f.Kind {
	case "rate":
		t.Limit, err = parseRate(value)
	case "duration":
		t.Limit, err = parseDurationMS(value)
	case "usd":
		t.Limit, err = strconv.ParseFloat(strings.TrimPrefix(value, "$"), 64)
		if err != nil || !(t.Limit >= 0) || math.IsInf(t.Limit, 1) { // NaN too
			err = fmt.Errorf("not an amount in USD (use 25 or $25)")
		}
	default:
		t.Limit, err = strconv.ParseFloat(value, 64)
		if err == nil && !(t.Limit >= 0 && t.Limit <= 10) { // NaN too
			err = fmt.Errorf("a quality score is between 0 and 10")
		}
	}
	if err != nil {
		return t, fmt.Errorf("--%s %q: %v", f.Flag, text, err)
	}
	return t, nil
}

func parseRate(s string) (float64, error) {
	pct := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil {
		return 0, fmt.Errorf("not a rate (use 0.05 or 5%%)")
	}
	if pct {
		v /= 100
	}
	if !(v >= 0 && v <= 1) { // NaN too
		return 0, fmt.Errorf("a rate is between 0 and 1 (or 0%% and 100%%)")
	}
	return v, nil
}

// parseDurationMS reads a Go duration (5s, 1m30s, 250ms) or a bare number of milliseconds.
func parseDurationMS(s string) (float64, error) {
	if v, err := strconv.ParseFloat(s, 64); err == nil && v >= 0 && !math.IsInf(v, 1) {
		return v, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("not a duration (use 5s, 1m30s or milliseconds)")
	}
	return float64(d) / float64(time.Millisecond), nil
}

// Check evaluates the thresholds against a summary. A threshold whose figure
// has no data (n/a) is not a violation; it is counted in NoData.
func Check(s *Summary, ts []Threshold) *CheckResult {
	res := &CheckResult{Passed: true, Thresholds: []ThresholdResult{}}
	for _, t := range ts {
		r := ThresholdResult{Metric: t.Metric, Tool: t.Tool, Project: t.Project, Op: ">=", Limit: t.Limit, Kind: t.Kind, Actual: figure(s, t)}
		if t.Max {
			r.Op = "<="
		}
		switch {
		case r.Actual == nil:
			res.NoData++
		case t.Max && *r.Actual > t.Limit, !t.Max && *r.Actual < t.Limit:
			r.Violated = true
			res.Violations++
			res.Passed = false
		}
		res.Thresholds = append(res.Thresholds, r)
	}
	return res
}

// projectMetrics are the figures a threshold may limit for one project, by
// the overall figure's path.
var projectMetrics = map[string]string{
	"tool_calls.error_rate": "projects.error_rate",
	"runs.success_rate":     "projects.success_rate",
	"cost.usd":              "projects.cost_usd",
}

func figure(s *Summary, t Threshold) *float64 {
	if t.Project != "" {
		for _, p := range s.Projects {
			if sameProject(p.Project, t.Project) || p.Label == t.Project {
				switch t.Metric {
				case "projects.error_rate":
					return p.ErrorRate
				case "projects.success_rate":
					return p.SuccessRate
				case "projects.cost_usd":
					return p.CostUSD
				}
			}
		}
		return nil
	}
	if t.Tool != "" {
		f, ok := toolFigureAt(strings.TrimPrefix(t.Metric, "tools."))
		for _, tool := range s.Tools {
			if ok && tool.Name == t.Tool {
				return f.Get(tool)
			}
		}
		return nil
	}
	if f, ok := FigureAt(t.Metric); ok {
		return f.Get(s)
	}
	return nil
}

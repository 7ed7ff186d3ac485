package metrics

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/agentstat/agentstat/model"
)

// maxErrorRows bounds the error-message list in summary.json.
const maxErrorRows = 100

// rate is num/den, or nil (n/a) when the denominator is empty.
func rate(num, den int64) *float64 {
	if den == 0 {
		return nil
	}
	return ptr(float64(num) / float64(den))
}

func stats(d *Dist) Stats {
	s := Stats{Count: d.Count(), Sum: d.Sum()}
	if s.Count == 0 {
		return s
	}
	mean, _ := d.Mean()
	s.Mean = ptr(mean)
	s.P50 = quantile(d, 50)
	s.P90 = quantile(d, 90)
	s.P95 = quantile(d, 95)
	s.P99 = quantile(d, 99)
	mx, _ := d.Max()
	s.Max = ptr(mx)
	return s
}

func quantile(d *Dist, p float64) *float64 {
	v, ok := d.Quantile(p)
	if !ok {
		return nil
	}
	return ptr(v)
}

func tokenCounts(t model.Tokens) TokenCounts {
	return TokenCounts{Total: t.Total(), Input: t.Input, Output: t.Output, CacheRead: t.CacheRead, CacheCreation: t.CacheCreation, CacheWrite1h: t.CacheCreation1h, Unspecified: t.Unspecified}
}

// Summary turns the accumulated figures into summary.json's shape. It sorts
// everything it lists, so its bytes never depend on the order of arrival.
func (a *Accumulator) Summary() Summary {
	s := Summary{Schema: SchemaVersion, TZ: a.loc.String()}

	warnings := copyCounts(a.Warnings)
	if dup := duplicateRuns(a.IDs); dup > 0 {
		warnings[reader.WarnDuplicateRunID] += dup
	}
	skipped := slices.Clone(a.Skipped)
	slices.SortFunc(skipped, func(x, y SkippedFile) int {
		return cmp.Or(cmp.Compare(x.Path, y.Path), cmp.Compare(x.Reason, y.Reason))
	})
	skippedBy := map[string]int64{}
	for _, f := range skipped {
		skippedBy[f.Reason]++
	}
	s.Inputs = Inputs{
		FilesSeen: a.FilesSeen, FilesParsed: a.FilesParsed, FilesSkipped: int64(len(skipped)),
		FilesFiltered: a.FilesFiltered, RunsFiltered: a.RunsFiltered,
		ByFormat: copyCounts(a.FilesByFormat), SkippedBy: skippedBy, Skipped: skipped, Warnings: warnings, Redacted: a.Redacted, TextWithheld: a.noText,
		WarningFiles: map[string]string{},
	}
	for kind, path := range a.WarnFiles {
		if !a.keepSecrets {
			path, _ = RedactText(path) // as a skipped file's path is
		}
		s.Inputs.WarningFiles[kind] = path
	}
	if s.Inputs.Skipped == nil {
		s.Inputs.Skipped = []SkippedFile{}
	}

	byStatus := map[string]int64{}
	for _, st := range model.RunStatuses {
		byStatus[string(st)] = a.RunsByStatus[st]
	}
	decided := a.Runs - a.RunsByStatus[model.StatusRunning] - a.RunsByStatus[model.StatusUnknown]
	runsByFormat := map[string]int64{}
	for k, f := range a.Formats {
		runsByFormat[k] = f.Runs
	}
	s.Runs = RunsSummary{Total: a.Runs, ByStatus: byStatus, ByFormat: runsByFormat,
		SuccessRate: rate(a.RunsByStatus[model.StatusSuccess], decided), DurationMS: stats(&a.RunDur), Histogram: histogram(a.RunHist[:]), CostUSD: stats(&a.RunCost)}
	s.Cost = a.costSummary()

	stepsBy := map[string]int64{}
	for _, st := range model.StepStatuses {
		stepsBy[string(st)] = a.StepsBy[st]
	}
	s.Steps = StepsSummary{Total: a.Steps, ByStatus: stepsBy, CompletionRate: rate(a.StepsBy[model.StepCompleted], a.Steps)}

	s.ToolCalls = CallsSummary{Total: a.Calls.Calls, OutcomeKnown: a.Calls.Known, Errors: a.Calls.Errors,
		ErrorRate: rate(a.Calls.Errors, a.Calls.Known), Cancelled: a.Calls.Cancelled, CancelRate: cancelRate(a.Calls), DurationMS: stats(&a.CallDur), Histogram: histogram(a.CallHist[:])}

	// The most called tools, a row each: a log may name hundreds of thousands of tools.
	names := slices.Collect(maps.Keys(a.Tools))
	slices.SortFunc(names, func(x, y string) int {
		return cmp.Or(cmp.Compare(a.Tools[y].Calls, a.Tools[x].Calls), cmp.Compare(x, y))
	})
	s.ToolCalls.ToolNames = int64(len(names))
	s.Tools = make([]ToolRow, 0, min(len(names), MaxTools))
	for _, name := range names[:min(len(names), MaxTools)] {
		t := a.Tools[name]
		s.Tools = append(s.Tools, ToolRow{Name: name, Category: topKey(t.Categories), Calls: t.Calls,
			Share: rate(t.Calls, a.Calls.Calls), Errors: t.Errors, ErrorRate: rate(t.Errors, t.Known),
			Cancelled: t.Cancelled, CancelRate: cancelRate(t.CallCounts), DurationMS: stats(&t.Dur)})
	}

	s.Agents = []AgentRow{}
	for name, g := range a.Agents {
		s.Agents = append(s.Agents, AgentRow{Name: name, Runs: g.Runs, ToolCalls: g.Calls, Errors: g.Errors, ErrorRate: rate(g.Errors, g.Known), CostUSD: a.cost(g.Usage)})
	}
	slices.SortFunc(s.Agents, func(x, y AgentRow) int {
		return cmp.Or(cmp.Compare(y.ToolCalls, x.ToolCalls), cmp.Compare(y.Runs, x.Runs), cmp.Compare(x.Name, y.Name))
	})

	s.Formats = []FormatRow{}
	for name, f := range a.Formats {
		s.Formats = append(s.Formats, FormatRow{Format: name, Files: a.FilesByFormat[name], Runs: f.Runs, ToolCalls: f.Calls,
			Errors: f.Errors, ErrorRate: rate(f.Errors, f.Known), SuccessRate: rate(f.Success, f.Decided), Tokens: tokenCounts(f.Tokens), CostUSD: a.cost(f.Usage)})
	}
	slices.SortFunc(s.Formats, func(x, y FormatRow) int { return cmp.Compare(x.Format, y.Format) })
	s.Projects = a.projectRows()

	s.Models = []ModelRow{}
	byModel := a.Usage.byModel()
	for name, m := range a.Models {
		s.Models = append(s.Models, ModelRow{Model: name, Requests: m.Requests, Runs: m.Runs, Tokens: tokenCounts(m.Tokens), CostUSD: a.cost(byModel[name])})
	}
	slices.SortFunc(s.Models, func(x, y ModelRow) int {
		return cmp.Or(cmp.Compare(deref(y.CostUSD), deref(x.CostUSD)), cmp.Compare(y.Tokens.Total, x.Tokens.Total), cmp.Compare(x.Model, y.Model))
	})

	s.Quality = a.qualitySummary()

	tok := tokenCounts(a.Tokens)
	s.Context = ContextSummary{
		Tokens: tok, TokensPerRun: stats(&a.TokensPerRun),
		CacheReadShare:      rate(tok.CacheRead, tok.Input+tok.CacheRead+tok.CacheCreation),
		RefsByType:          copyCounts(a.RefsByType),
		RefsByRelevance:     copyCounts(a.RefsByRel),
		RefsByUsageMode:     copyCounts(a.RefsByUsage),
		ContributionsByType: copyCounts(a.Contribs),
		Subagents: SubagentSummary{Invocations: a.Subagents.Invocations, Calls: a.Subagents.Calls, Tokens: a.Subagents.Tokens,
			Requests: a.Subagents.Requests, CostUSD: a.cost(a.SubUsage), ByType: copyCounts(a.Subagents.ByType)},
		Budget: BudgetSummary{ToolCallUse: stats(&a.BudgetTool), DurationUse: stats(&a.BudgetDur), StepUse: stats(&a.BudgetStep),
			Warnings: a.BudgetWarn, Exceeded: a.BudgetExceed, Retries: a.Retries},
		Window: WindowSummary{Runs: a.Window.Runs, PeakTokens: stats(&a.Window.Peak), PeakShare: stats(&a.Window.Share),
			RunsOver90: a.Window.Over90, Compactions: stats(&a.Window.Compactions)},
	}

	s.Daily = []DayRow{}
	for date, d := range a.Days {
		bs := map[string]int64{}
		for _, st := range model.RunStatuses {
			bs[string(st)] = d.ByStatus[st]
		}
		s.Daily = append(s.Daily, DayRow{Date: date, Runs: d.Runs, ToolCalls: d.Calls, OutcomeKnown: d.Known, Errors: d.Errors,
			ErrorRate: rate(d.Errors, d.Known), SuccessRate: rate(d.Success, d.Decided),
			DurationMSP50: quantile(&d.Dur, 50), DurationMSP95: quantile(&d.Dur, 95), Tokens: d.Tokens.Total(), TokensByKind: tokenCounts(d.Tokens), ByStatus: bs,
			CostUSD: a.cost(d.Usage), CostByModel: a.costByModel(d.Usage)})
	}
	slices.SortFunc(s.Daily, func(x, y DayRow) int { return cmp.Compare(x.Date, y.Date) })

	s.Errors = []ErrorRow{}
	for msg, e := range a.Errors {
		s.Errors = append(s.Errors, ErrorRow{Message: msg, Count: e.Count, Tool: topKey(e.Tools), ExampleRun: e.ExRunID, ExampleSource: e.ExSource})
	}
	slices.SortFunc(s.Errors, func(x, y ErrorRow) int {
		return cmp.Or(cmp.Compare(y.Count, x.Count), cmp.Compare(x.Message, y.Message))
	})
	if len(s.Errors) > maxErrorRows {
		s.Errors = s.Errors[:maxErrorRows]
	}
	return s
}

func (a *Accumulator) qualitySummary() QualitySummary {
	q := &a.Quality
	out := QualitySummary{
		Evaluations:        q.Scores.Count(),
		Median:             quantile(&q.Scores, 50),
		P10:                quantile(&q.Scores, 10),
		OutputValidChecked: q.ValidAll,
		OutputValidRate:    rate(q.ValidTrue, q.ValidAll),
	}
	if m, ok := q.Scores.Mean(); ok {
		out.Mean = ptr(m)
	}
	for i, n := range q.Bins {
		out.Distribution = append(out.Distribution, ScoreBin{From: i, To: i + 1, Count: n})
	}
	group := func(g *QualityScores) QualityGroup {
		r := QualityGroup{Evaluations: g.Scores.Count(), OutputValidRate: rate(g.ValidTrue, g.ValidAll)}
		if m, ok := g.Scores.Mean(); ok {
			r.Mean = ptr(m)
		}
		return r
	}
	out.ByPhase, out.ByTool = []QualityGroup{}, []QualityGroup{}
	for _, name := range sortedKeys(q.ByPhase) {
		g := group(q.ByPhase[name])
		g.Phase = name
		out.ByPhase = append(out.ByPhase, g)
	}
	for _, name := range sortedKeys(q.ByTool) {
		g := group(q.ByTool[name])
		g.Tool = name
		out.ByTool = append(out.ByTool, g)
	}
	return out
}

func histogram(counts []int64) []HistogramBin {
	bins := make([]HistogramBin, len(counts))
	from := 0.0
	for i, n := range counts {
		bins[i] = HistogramBin{FromMS: from, Count: n}
		if i < len(HistogramEdgesMS) {
			bins[i].ToMS = ptr(HistogramEdgesMS[i])
			from = HistogramEdgesMS[i]
		}
	}
	return bins
}

// RunIndex returns the per-run rows sorted by source, then id, then start
// (nil with Settings.NoIndex). It sorts the accumulator's own rows and hands
// them out: the index is the render phase's largest table, and a copy
// doubled it.
func (a *Accumulator) RunIndex() *RunIndex {
	if a.noIndex {
		return nil
	}
	a.Index.sort()
	return &a.Index
}

// topKey is the most frequent key, the smallest on a tie; "" for none.
func topKey(m map[string]int64) string {
	best, bestN := "", int64(0)
	for k, n := range m {
		if n > bestN || (n == bestN && k < best) {
			best, bestN = k, n
		}
	}
	return best
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Report finalizes the accumulated figures into a report generated at now.
func (a *Accumulator) Report(now time.Time, title string) *Report {
	s := a.Summary()
	s.GeneratedAt = generatedAt(now, a.loc)
	if sc := a.scope; !sc.Since.IsZero() || !sc.Until.IsZero() || sc.Project != "" {
		s.Window = &Window{Project: sc.Project}
		if !sc.Since.IsZero() {
			s.Window.Since = sc.Since.In(a.loc).Format(time.RFC3339)
		}
		if !sc.Until.IsZero() {
			s.Window.Until = sc.Until.In(a.loc).Format(time.RFC3339)
		}
	}
	return &Report{Summary: s, Runs: a.RunIndex(), Title: title, Location: a.loc, Details: a.spill, Prices: a.prices,
		ToolDetails: a.toolDetails(s.Tools[:min(len(s.Tools), MaxToolPages)])}
}

// generatedAt is the report time: SOURCE_DATE_EPOCH when set, for reproducible output.
func generatedAt(now time.Time, loc *time.Location) string {
	return now.In(loc).Format(time.RFC3339)
}

// cancelRate is the share of calls the user cancelled among those whose end is known.
func cancelRate(g CallCounts) *float64 { return rate(g.Cancelled, g.Known+g.Cancelled) }

// cost prices u; nil when nothing in it is priced.
func (a *Accumulator) cost(u usage) *float64 {
	usd, priced, _ := costOf(u, a.prices)
	if !priced {
		return nil
	}
	return ptr(usd)
}

// costByModel is u's cost by priced model.
func (a *Accumulator) costByModel(u usage) map[string]float64 {
	out := map[string]float64{}
	for name, m := range u.byModel() {
		if c := a.cost(m); c != nil {
			out[name] = *c
		}
	}
	return out
}

func (a *Accumulator) costSummary() CostSummary {
	usd, priced, unpriced := costOf(a.Usage, a.prices)
	c := CostSummary{UnpricedModels: map[string]int64{},
		Pricing: PricingInfo{Source: a.prices.Source, Date: a.prices.Date, Models: a.prices.Models()}}
	if priced {
		c.USD = ptr(usd)
	}
	for m, n := range unpriced {
		c.UnpricedModels[m] = n
		c.UnpricedTokens += n
	}
	return c
}

// deref is *p, or -1 for nil: unpriced sorts after every priced figure.
func deref(p *float64) float64 {
	if p == nil {
		return -1
	}
	return *p
}

// Bounds on the tools reported: summary.json's tools[] lists the MaxTools
// most called, and the MaxToolPages most called have a ToolDetail (a page
// on the dashboard), each with its maxToolErrors most frequent messages.
const (
	MaxTools      = 10_000
	MaxToolPages  = 500
	maxToolErrors = 50
)

// toolDetails is the ToolDetail of each of the tools, by name.
func (a *Accumulator) toolDetails(tools []ToolRow) map[string]*ToolDetail {
	out := make(map[string]*ToolDetail, len(tools))
	for _, row := range tools {
		name, t := row.Name, a.Tools[row.Name]
		d := &ToolDetail{Histogram: histogram(t.Hist[:])}
		for date, g := range t.Days {
			d.Daily = append(d.Daily, ToolDay{Date: date, Calls: g.Calls, OutcomeKnown: g.Known, Errors: g.Errors, Cancelled: g.Cancelled})
		}
		slices.SortFunc(d.Daily, func(x, y ToolDay) int { return cmp.Compare(x.Date, y.Date) })
		out[name] = d
	}
	for msg, e := range a.Errors {
		for tool, n := range e.Tools {
			if d := out[tool]; d != nil {
				d.Errors = append(d.Errors, ToolError{msg, n})
			}
		}
	}
	for _, d := range out {
		slices.SortFunc(d.Errors, func(x, y ToolError) int {
			return cmp.Or(cmp.Compare(y.Count, x.Count), cmp.Compare(x.Message, y.Message))
		})
		d.Errors = slices.Clip(d.Errors[:min(len(d.Errors), maxToolErrors)])
	}
	return out
}

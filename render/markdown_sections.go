package render

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/agentstat/agentstat/metrics"
)

// report.md's later sections: context, projects, cost, days and data quality.

func contextSection(b *strings.Builder, s *metrics.Summary) {
	c := &s.Context
	b.WriteString("## Tokens and context\n\n")
	t := newTable(">Total", ">Input", ">Output", ">Cache read", ">Cache creation", ">Unspecified kind", ">Cache-read share", ">Mean per run")
	var perRun string
	if c.TokensPerRun.Mean != nil {
		perRun = Count(int64(*c.TokensPerRun.Mean + 0.5))
	} else {
		perRun = NA
	}
	t.add(Count(c.Tokens.Total), Count(c.Tokens.Input), Count(c.Tokens.Output), Count(c.Tokens.CacheRead),
		Count(c.Tokens.CacheCreation), Count(c.Tokens.Unspecified), Rate(c.CacheReadShare), perRun)
	t.write(b)
	if w := &c.Window; w.Runs > 0 {
		b.WriteString("### Context window\n\n")
		fmt.Fprintf(b, "The largest prompt of each of %s runs (input + cache read + cache write), and its share of the model's context window.\n\n", Count(w.Runs))
		t = newTable("", ">p50", ">p95", ">Max")
		t.add("Peak prompt (tokens)", statCount(w.PeakTokens.P50), statCount(w.PeakTokens.P95), statCount(w.PeakTokens.Max))
		if w.PeakShare.Count > 0 {
			t.add("Share of the window", Rate(w.PeakShare.P50), Rate(w.PeakShare.P95), Rate(w.PeakShare.Max))
		}
		t.add("Compactions per run", statCount(w.Compactions.P50), statCount(w.Compactions.P95), statCount(w.Compactions.Max))
		t.write(b)
		fmt.Fprintf(b, "%s runs reached 90%% of their window; %s compactions in all.\n\n", Count(w.RunsOver90), Count(int64(w.Compactions.Sum)))
	}
	countTable(b, "Context references by type", "Type", c.RefsByType)
	countTable(b, "Context references by relevance", "Relevance", c.RefsByRelevance)
	countTable(b, "Context references by usage mode", "Usage mode", c.RefsByUsageMode)
	countTable(b, "Context contributions by type", "Type", c.ContributionsByType)
	if c.Subagents.Invocations > 0 {
		b.WriteString("### Subagents\n\n")
		fmt.Fprintf(b, "%s subagent invocations made %s calls of their own with %s tokens (not counted among the runs' tool calls)",
			Count(c.Subagents.Invocations), Count(c.Subagents.Calls), Count(c.Subagents.Tokens))
		if n := c.Subagents.Requests; n > 0 {
			fmt.Fprintf(b, "; %s of their model requests are in the logs, costing %s (part of the runs' cost)", Count(n), USD(c.Subagents.CostUSD))
		}
		b.WriteString(".\n\n")
		countTable(b, "Subagents by type", "Type", c.Subagents.ByType)
	}
	bu := &c.Budget
	if bu.ToolCallUse.Count+bu.DurationUse.Count+bu.StepUse.Count+bu.Warnings+bu.Exceeded+bu.Retries > 0 {
		b.WriteString("### Budget use\n\n")
		t = newTable("Budget", ">Measured", ">Mean use", ">p95 use", ">Max use")
		for _, row := range []struct {
			name string
			st   metrics.Stats
		}{{"Tool calls / maxToolCalls", bu.ToolCallUse}, {"Duration / maxDuration", bu.DurationUse}, {"Steps / maxSteps (per agent execution)", bu.StepUse}} {
			if row.st.Count > 0 {
				t.add(row.name, Count(row.st.Count), Rate(row.st.Mean), Rate(row.st.P95), Rate(row.st.Max))
			}
		}
		t.write(b)
		fmt.Fprintf(b, "Budget warnings: %s · budgets exceeded: %s · retries: %s.\n\n", Count(bu.Warnings), Count(bu.Exceeded), Count(bu.Retries))
	}
}

// projectsSection lists the projects, when the runs span more than one.
func projectsSection(b *strings.Builder, s *metrics.Summary) {
	if len(s.Projects) < 2 {
		return
	}
	b.WriteString("## Projects\n\n")
	what := fmt.Sprintf("%d projects: the directory each run worked in (else its first directory under the scanned root)", len(s.Projects))
	folded(b, what, func() {
		t := newTable("Project", ">Runs", ">Success rate", ">Tool calls", ">Errors", ">Error rate", ">Cancelled", ">Tokens", ">Cost", "Path")
		for i, p := range s.Projects {
			if i == mdProjects {
				break
			}
			t.add(p.Label, Count(p.Runs), Rate(p.SuccessRate), Count(p.ToolCalls), Count(p.Errors), Rate(p.ErrorRate),
				Count(p.Cancelled), Count(p.Tokens.Total), USD(p.CostUSD), p.Project)
		}
		t.write(b)
	})
}

// statCount shows a statistic of counts (tokens, compactions), rounded.
func statCount(v *float64) string {
	if v == nil {
		return NA
	}
	return Count(int64(math.Round(*v)))
}

// costSection is what the tokens cost: by model, with the tokens no price
// covers named, and the runs that cost most when the runs are listed.
func costSection(b *strings.Builder, r *metrics.Report, base string) {
	s := &r.Summary
	c := &s.Cost
	if len(s.Models) == 0 && c.UnpricedTokens == 0 {
		return
	}
	b.WriteString("## Cost and models\n\n")
	line := fmt.Sprintf("%s at the %s prices of %s.", USD(c.USD), c.Pricing.Source, c.Pricing.Date)
	if st := s.Runs.CostUSD; st.Count > 0 {
		line += fmt.Sprintf(" Per run: p50 %s, p95 %s, max %s.", USD(st.P50), USD(st.P95), USD(st.Max))
	}
	if c.UnpricedTokens > 0 {
		names := slices.Sorted(maps.Keys(c.UnpricedModels))
		line += fmt.Sprintf(" Not priced: %s tokens of %s (no price known; add one with --pricing).", Count(c.UnpricedTokens), strings.Join(names, ", "))
	}
	b.WriteString(MarkdownText(line) + "\n\n")
	t := newTable("Model", ">Requests", ">Runs", ">Tokens", ">Input", ">Output", ">Cache read", ">Cache write", ">Cost")
	for i, m := range s.Models {
		if i == mdModels {
			break
		}
		t.add(m.Model, Count(m.Requests), Count(m.Runs), Count(m.Tokens.Total), Count(m.Tokens.Input), Count(m.Tokens.Output),
			Count(m.Tokens.CacheRead), Count(m.Tokens.CacheCreation), USD(m.CostUSD))
	}
	t.write(b)
	if r.Runs == nil {
		return
	}
	top := mostExpensive(r.Runs, mdTopRuns)
	if len(top) == 0 {
		return
	}
	folded(b, fmt.Sprintf("The %d most expensive runs", len(top)), func() {
		t := newTable("Run", "Model", ">Tokens", ">Cost", "Source")
		for _, row := range top {
			t.add(row.Title, row.Model, Count(row.Tokens), USD(row.CostUSD), row.Source)
			t.link(0, runHref(base, row.Page))
		}
		t.write(b)
	})
}

// mostExpensive is the n priced runs that cost most, the dearest first
// (ties in index order).
func mostExpensive(runs *metrics.RunIndex, n int) []metrics.RunRow {
	var top []metrics.RunRow
	for _, row := range runs.All() {
		if row.CostUSD == nil {
			continue
		}
		i, _ := slices.BinarySearchFunc(top, *row.CostUSD, func(r metrics.RunRow, c float64) int { return cmp.Compare(c, *r.CostUSD) })
		for i < len(top) && *top[i].CostUSD == *row.CostUSD {
			i++
		}
		if i < n {
			top = slices.Insert(top, i, row)
			top = top[:min(len(top), n)]
		}
	}
	return top
}

func dailySection(b *strings.Builder, s *metrics.Summary) {
	if len(s.Daily) == 0 {
		return
	}
	b.WriteString("## Daily\n\n")
	days := s.Daily
	what := fmt.Sprintf("%d days", len(days))
	if len(days) > mdDays {
		what = fmt.Sprintf("The last %d of %d days (all are in summary.json)", mdDays, len(days))
		days = days[len(days)-mdDays:]
	}
	folded(b, what, func() {
		t := newTable("Date", ">Runs", ">Success rate", ">Tool calls", ">Errors", ">Error rate", ">Run p50", ">Run p95", ">Tokens", ">Cost")
		for _, d := range days {
			t.add(d.Date, Count(d.Runs), Rate(d.SuccessRate), Count(d.ToolCalls), Count(d.Errors), Rate(d.ErrorRate),
				Millis(d.DurationMSP50), Millis(d.DurationMSP95), Count(d.Tokens), USD(d.CostUSD))
		}
		t.write(b)
	})
}

func dataQualitySection(b *strings.Builder, s *metrics.Summary) {
	in := &s.Inputs
	b.WriteString("## Data quality\n\n")
	fmt.Fprintf(b, "%s files seen: %s parsed, %s skipped", Count(in.FilesSeen), Count(in.FilesParsed), Count(in.FilesSkipped))
	if in.FilesFiltered > 0 || in.RunsFiltered > 0 {
		fmt.Fprintf(b, ", %s outside the time window (%s runs left out)", Count(in.FilesFiltered), Count(in.RunsFiltered))
	}
	b.WriteString(".\n\n")
	if in.Redacted > 0 {
		fmt.Fprintf(b, "%s values that looked like credentials were redacted (shown as %s).\n\n", Count(in.Redacted), MarkdownText(metrics.Redacted))
	}
	countTable(b, "Files parsed by format", "Format", in.ByFormat)
	countTable(b, "Files skipped by reason", "Reason", in.SkippedBy)
	if len(in.Warnings) > 0 {
		b.WriteString("### Warnings\n\n")
		t := newTable("Kind", ">Count", "First file")
		names, counts := sortedCounts(in.Warnings)
		for i := range names {
			t.add(names[i], Count(counts[i]), in.WarningFiles[names[i]])
		}
		t.write(b)
		b.WriteString(warningFileNote + "\n\n")
	}
	if len(in.Skipped) > 0 {
		folded(b, fmt.Sprintf("%s skipped files", Count(int64(len(in.Skipped)))), func() {
			t := newTable("File", "Reason", "Detail")
			for i, f := range in.Skipped {
				if i == mdSkippedRows {
					break
				}
				t.add(f.Path, f.Reason, clipText(f.Detail, 160))
			}
			t.write(b)
			if len(in.Skipped) > mdSkippedRows {
				fmt.Fprintf(b, "…and %d more skipped files (all are in summary.json).\n\n", len(in.Skipped)-mdSkippedRows)
			}
		})
	}
}

package render

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/agentstat/agentstat/metrics"
	"github.com/agentstat/agentstat/model"
	"github.com/agentstat/agentstat/pricing"
)

// maxModelsCharted bounds the models the cost-per-day chart stacks; the rest
// are one series, "other models".
const maxModelsCharted = 8

// htmlTopRuns is how many of the most expensive runs the dashboard lists.
const htmlTopRuns = 20

// modelColors are the cost chart's series colours, by the models' rank.
var modelColors = []string{"#0969da", "#bf8700", "#8250df", "#2da44e", "#cf222e", "#1b7c83", "#bc4c00", "#6e7781", "#8c959f"}

// costSection is cost and tokens by model: cost per day stacked by model,
// the models, the runs that cost most, and context-window use.
func (h *htmlWriter) costSection() (sectionView, bool) {
	s := &h.r.Summary
	if len(s.Models) == 0 && s.Cost.UnpricedTokens == 0 {
		return sectionView{}, false
	}
	sec := sectionView{Title: "Cost and models", Charts: []chartView{costPerDayChart(s), tokenChart(s)}}

	models := htmlTable("Models", "Model", ">Requests", ">Runs", ">Tokens", ">Input", ">Output", ">Cache read", ">Cache write", ">Cost")
	for _, m := range s.Models {
		t := m.Tokens
		name := txt(m.Model)
		name.Href = h.listLink("model", m.Model)
		models.Rows = append(models.Rows, []cellView{name, num(Count(m.Requests), float64(m.Requests)), num(Count(m.Runs), float64(m.Runs)),
			num(Count(t.Total), float64(t.Total)), num(Count(t.Input), float64(t.Input)), num(Count(t.Output), float64(t.Output)),
			num(Count(t.CacheRead), float64(t.CacheRead)), num(Count(t.CacheCreation), float64(t.CacheCreation)), numPtr(USD(m.CostUSD), m.CostUSD)})
	}
	models.Note = fmt.Sprintf("Each request counts for the model that made it. Prices: %s, of %s (%d models); --pricing adds or overrides them.",
		s.Cost.Pricing.Source, s.Cost.Pricing.Date, s.Cost.Pricing.Models)
	if n := s.Cost.UnpricedTokens; n > 0 {
		models.Note += fmt.Sprintf(" %s tokens of models without a price (%s) are not priced, never priced at 0.",
			Count(n), strings.Join(slices.Sorted(maps.Keys(s.Cost.UnpricedModels)), ", "))
	}
	sec.Tables = append(sec.Tables, models)

	if h.r.Runs != nil {
		top := htmlTable("The most expensive runs", "Run", "Model", ">Tokens", ">Cost", "Source")
		for _, r := range mostExpensive(h.r.Runs, htmlTopRuns) {
			name := txt(clipText(cmp.Or(strings.TrimSpace(r.Title), r.ID), 120))
			if !h.o.SingleFile {
				name.Href = "runs/" + r.Page
			}
			top.Rows = append(top.Rows, []cellView{name, txt(r.Model), num(Count(r.Tokens), float64(r.Tokens)), numPtr(USD(r.CostUSD), r.CostUSD), txt(r.Source)})
		}
		if st := s.Runs.CostUSD; st.Count > 0 {
			top.Note = fmt.Sprintf("Per priced run: p50 %s, p95 %s, max %s.", USD(st.P50), USD(st.P95), USD(st.Max))
			sec.Tables = append(sec.Tables, top)
		}
	}

	if w := &s.Context.Window; w.Runs > 0 {
		win := htmlTable("Context window", "", ">p50", ">p95", ">Max")
		win.Rows = append(win.Rows, []cellView{txt("Peak prompt (tokens)"), numPtr(countPtr(w.PeakTokens.P50), w.PeakTokens.P50),
			numPtr(countPtr(w.PeakTokens.P95), w.PeakTokens.P95), numPtr(countPtr(w.PeakTokens.Max), w.PeakTokens.Max)})
		if w.PeakShare.Count > 0 {
			win.Rows = append(win.Rows, []cellView{txt("Share of the window"), numPtr(Rate(w.PeakShare.P50), w.PeakShare.P50),
				numPtr(Rate(w.PeakShare.P95), w.PeakShare.P95), numPtr(Rate(w.PeakShare.Max), w.PeakShare.Max)})
		}
		win.Rows = append(win.Rows, []cellView{txt("Compactions per run"), numPtr(countPtr(w.Compactions.P50), w.Compactions.P50),
			numPtr(countPtr(w.Compactions.P95), w.Compactions.P95), numPtr(countPtr(w.Compactions.Max), w.Compactions.Max)})
		win.Note = fmt.Sprintf("Each run's largest prompt (input + cache read + cache write) over %s runs; %s reached 90%% of their model's window; %s compactions in all.",
			Count(w.Runs), Count(w.RunsOver90), Count(int64(w.Compactions.Sum)))
		sec.Tables = append(sec.Tables, win)
	}
	return sec, true
}

// costPerDayChart stacks each period's cost by model, the costliest models
// first, the rest as one series.
func costPerDayChart(s *metrics.Summary) chartView {
	unit, ps := periods(s.Daily)
	labels := make([]string, len(ps))
	for i, p := range ps {
		labels[i] = p.label
	}
	var priced []string // by cost, as models[] is sorted
	for _, m := range s.Models {
		if m.CostUSD != nil {
			priced = append(priced, m.Model)
		}
	}
	shown, rest := priced[:min(len(priced), maxModelsCharted)], len(priced) > maxModelsCharted
	bar := charts.NewBar()
	// One scrolling line of model names: wrapped, they ran over the axis.
	bar.SetGlobalOptions(append(commonOpts(unit, "USD"), charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "bottom", Type: "scroll"}))...)
	bar.SetXAxis(labels)
	series := func(name string, i int, cost func(p period) float64) {
		data := make([]opts.BarData, len(ps))
		for k, p := range ps {
			data[k] = opts.BarData{Value: math.Round(cost(p)*1e6) / 1e6}
		}
		bar.AddSeries(name, data, charts.WithBarChartOpts(opts.BarChart{Stack: "cost"}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: modelColors[min(i, len(modelColors)-1)]}))
	}
	for i, m := range shown {
		series(m, i, func(p period) float64 { return p.cost[m] })
	}
	if rest {
		series("other models", len(modelColors)-1, func(p period) float64 {
			other := 0.0
			for m, c := range p.cost {
				if !slices.Contains(shown, m) {
					other += c
				}
			}
			return other
		})
	}
	return chartView{ID: "chart-cost-per-day", Title: "Cost per " + unit + " by model", Option: optionJSON(bar, nil),
		Description: "Stacked bars: what each " + unit + "'s requests cost in USD, by the model that made them (a request counts on the day it was made)."}
}

// prices is the report's price table (the built-in one when the report
// was made without: a test's report).
func (h *htmlWriter) prices() *pricing.Table {
	if h.r.Prices != nil {
		return h.r.Prices
	}
	return pricing.Builtin()
}

// runUsage is a run page's cost (by model) and context-window facts; empty
// when the run made no request.
func runUsage(prices *pricing.Table, r *model.Run) (cost, window string) {
	if len(r.Requests) == 0 {
		return "", ""
	}
	type use struct {
		requests int
		usd      float64
		priced   bool
	}
	by := map[string]*use{}
	var names []string
	var peak int64
	var total float64 // in request order, as metrics.RunCost sums it
	priced := false
	peakModel := ""
	for _, q := range r.Requests {
		u := by[q.Model]
		if u == nil {
			u = &use{}
			by[q.Model] = u
			names = append(names, q.Model)
		}
		u.requests++
		if c, ok := prices.Cost(q.Model, q.Tokens); ok {
			u.usd, u.priced = u.usd+c, true
			total, priced = total+c, true
		}
		if p := q.Tokens.Prompt(); p > peak {
			peak, peakModel = p, q.Model
		}
	}
	parts := make([]string, len(names))
	for i, m := range names {
		u := by[m]
		price := "not priced"
		if u.priced {
			price = USD(&u.usd)
		}
		parts[i] = fmt.Sprintf("%s: %s, %s", orDash(m), plural(int64(u.requests), "request"), price)
	}
	var usd *float64
	if priced {
		usd = new(metrics.RoundUSD(total))
	}
	cost = USD(usd) + " (" + strings.Join(parts, "; ") + ")"
	window = "largest prompt " + Count(peak) + " tokens"
	if p, ok := prices.Lookup(peakModel); ok && p.MaxInput > 0 {
		share := float64(peak) / float64(p.MaxInput)
		window += fmt.Sprintf(", %s of %s's %s", Rate(&share), peakModel, Count(p.MaxInput))
	}
	if n := r.Context.Compactions; n > 0 {
		window += "; " + plural(n, "compaction")
	}
	return cost, window
}

// plural is n and a noun, with an s when n is not one.
func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return Count(n) + " " + noun + "s"
}

// projectsSection is the projects: runs and error rate by project, and
// their table, when the runs span more than one.
func (h *htmlWriter) projectsSection() (sectionView, bool) {
	s := &h.r.Summary
	if len(s.Projects) < 2 {
		return sectionView{}, false
	}
	shown := s.Projects[:min(len(s.Projects), maxToolsCharted)]
	names, runs := make([]string, len(shown)), make([]int64, len(shown))
	for i, p := range shown {
		names[i], runs[i] = p.Label, p.Runs
	}
	chart := countsChart("chart-projects", "Runs by project", "project", "runs",
		fmt.Sprintf("Runs in each of the %d projects with most runs.", len(shown)), names, runs, nil)
	t := htmlTable("Projects", "Project", ">Runs", ">Success rate", ">Tool calls", ">Errors", ">Error rate", ">Cancelled", ">Tokens", ">Cost", "Path")
	for _, p := range s.Projects {
		name := txt(p.Label)
		name.Href = cmp.Or(h.projectPages[p.Project], h.listLink("project", p.Label))
		runs, errs := num(Count(p.Runs), float64(p.Runs)), num(Count(p.Errors), float64(p.Errors))
		runs.Href, errs.Href = h.listLink("project", p.Label), h.listLink("project", p.Label, "errors", "1")
		t.Rows = append(t.Rows, []cellView{name, runs, numPtr(Rate(p.SuccessRate), p.SuccessRate),
			num(Count(p.ToolCalls), float64(p.ToolCalls)), errs, numPtr(Rate(p.ErrorRate), p.ErrorRate),
			num(Count(p.Cancelled), float64(p.Cancelled)), num(Count(p.Tokens.Total), float64(p.Tokens.Total)), numPtr(USD(p.CostUSD), p.CostUSD), txt(p.Project)})
	}
	t.Note = "A run's project is the directory its agent worked in, where the log records one; else the first directory of its file under the scanned root."
	return sectionView{Title: "Projects", Charts: []chartView{chart}, Tables: []tableView{t}}, true
}

// listLink is the link to the run list showing the runs of a filter (pairs
// of name and value, as the list's URL fragment holds them); "" when there
// is no run list (--single-file) or its runs are not in it.
func (h *htmlWriter) listLink(pairs ...string) string {
	if h.o.SingleFile || h.r.Runs == nil {
		return ""
	}
	v := url.Values{}
	for i := 0; i+1 < len(pairs); i += 2 {
		v.Set(pairs[i], pairs[i+1])
	}
	if len(v) == 0 {
		return "runs.html"
	}
	return "runs.html#" + v.Encode()
}

// The run list's columns that a link may sort by (agentstat.js's cols).
const (
	listColumnTokens = 8
	listColumnCost   = 9
)

// projectLabel is a project's label, as summary.json's projects[] has it.
func (h *htmlWriter) projectLabel(project string) string {
	if l, ok := h.labels[project]; ok {
		return l
	}
	return project
}

package render

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/agentstat/agentstat/metrics"
)

// maxDrillPages bounds the tool pages and the project pages of a report:
// the most called tools and the projects with most runs get one (a tree of
// 300,000 tool names would otherwise be 300,000 pages); the others' names
// link to the run list.
const maxDrillPages = metrics.MaxToolPages

// drillRuns is how many runs a tool's or a project's page lists in each of its run tables.
const drillRuns = 20

// detailView is a tool's or a project's page, as detail.html writes it.
type detailView struct {
	Page     page
	Heading  string
	Facts    []factView
	Links    []pageLink
	Sections []sectionView
}

type factView struct{ Label, Value string }

// drillPageName is the file name of a tool's or a project's page: the name
// made safe, and a digest of it, so that names alike once made safe differ.
func drillPageName(dir, name string) string {
	sum := sha256.Sum256([]byte(name))
	return dir + "/" + metrics.SafeName(name, 48) + "-" + hex.EncodeToString(sum[:6]) + ".html"
}

// drillPages picks the tools and projects that get a page (none with
// --single-file, which writes one page, or without the run index).
func (h *htmlWriter) drillPages() {
	h.toolPages, h.projectPages = map[string]string{}, map[string]string{}
	if h.o.SingleFile || h.r.Runs == nil {
		return
	}
	s := &h.r.Summary
	for _, t := range s.Tools[:min(len(s.Tools), maxDrillPages)] {
		h.toolPages[t.Name] = drillPageName("tools", t.Name)
	}
	for _, p := range s.Projects[:min(len(s.Projects), maxDrillPages)] {
		h.projectPages[p.Project] = drillPageName("projects", p.Project)
	}
}

// runRank is a run that a drill-down page lists, and the figure it is ranked by.
type runRank struct {
	at  int // its place in the run index
	key float64
}

// topRuns keeps the n runs of highest key, the first in index order on ties.
type topRuns struct {
	n    int
	runs []runRank
}

func (t *topRuns) add(at int, key float64) {
	if key <= 0 || (len(t.runs) == t.n && key <= t.runs[len(t.runs)-1].key) {
		return
	}
	i, _ := slices.BinarySearchFunc(t.runs, key, func(r runRank, k float64) int {
		if r.key >= k {
			return -1
		}
		return 1
	})
	t.runs = slices.Insert(t.runs, i, runRank{at, key})
	if len(t.runs) > t.n {
		t.runs = t.runs[:t.n]
	}
}

// projectDrill is what one pass over the run index gathers for a project's page.
type projectDrill struct {
	days            map[string]*metrics.DayRow
	cost            map[string]float64   // by day
	failed          map[string]*[2]int64 // by tool: failures, runs with one
	errorRuns       map[string]int64     // by message: runs where it occurred
	costly, failing topRuns
}

// drillWrite writes every tool's and project's page that drillPages picked.
func (h *htmlWriter) drillWrite() error {
	if len(h.toolPages) == 0 && len(h.projectPages) == 0 {
		return nil
	}
	toolRuns := map[string]*topRuns{}
	for name := range h.toolPages {
		toolRuns[name] = &topRuns{n: drillRuns}
	}
	projects := map[string]*projectDrill{}
	for p := range h.projectPages {
		projects[p] = &projectDrill{days: map[string]*metrics.DayRow{}, cost: map[string]float64{}, failed: map[string]*[2]int64{}, errorRuns: map[string]int64{},
			costly: topRuns{n: drillRuns}, failing: topRuns{n: drillRuns}}
	}
	for i, r := range h.r.Runs.All() {
		p := projects[r.Project]
		for line := range strings.Lines(r.FailedTools) {
			name, n := failedTool(line)
			if t := toolRuns[name]; t != nil {
				t.add(i, float64(n))
			}
			if p == nil {
				continue
			}
			f := p.failed[name]
			if f == nil {
				f = new([2]int64)
				p.failed[name] = f
			}
			f[0] += int64(n)
			f[1]++
		}
		if p == nil {
			continue
		}
		if !r.Started.IsZero() {
			date := r.Started.In(h.loc).Format("2006-01-02")
			d := p.days[date]
			if d == nil {
				d = &metrics.DayRow{Date: date, ByStatus: map[string]int64{}}
				p.days[date] = d
			}
			d.Runs++
			d.ByStatus[r.Status]++
			d.ToolCalls += int64(r.ToolCalls)
			d.Errors += int64(r.Errors)
			if r.CostUSD != nil {
				p.cost[date] += *r.CostUSD
			}
		}
		for line := range strings.Lines(r.ErrorTexts) {
			p.errorRuns[strings.TrimSuffix(line, "\n")]++
		}
		if r.CostUSD != nil {
			p.costly.add(i, *r.CostUSD)
		}
		p.failing.add(i, float64(r.Errors))
	}
	for _, t := range h.r.Summary.Tools {
		if page, ok := h.toolPages[t.Name]; ok {
			if err := h.toolPage(page, &t, toolRuns[t.Name]); err != nil {
				return err
			}
		}
	}
	for _, p := range h.r.Summary.Projects {
		if page, ok := h.projectPages[p.Project]; ok {
			if err := h.projectPage(page, &p, projects[p.Project]); err != nil {
				return err
			}
		}
	}
	return nil
}

// failedTool parses a line of RunRow.FailedTools.
func failedTool(line string) (string, int) {
	name, n, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "\t")
	count, _ := strconv.Atoi(n)
	return name, count
}

func (h *htmlWriter) toolPage(file string, t *metrics.ToolRow, failing *topRuns) error {
	d := h.r.ToolDetails[t.Name]
	if d == nil {
		d = &metrics.ToolDetail{}
	}
	v := detailView{Page: h.page("Tool "+clipText(t.Name, 120)+" · agentstat", "../assets/", file, true), Heading: "Tool: " + t.Name}
	v.Facts = []factView{{"Category", cmp.Or(t.Category, NA)},
		{"Calls", Count(t.Calls) + " (" + Rate(t.Share) + " of all calls)"},
		{"Errors", Count(t.Errors) + " (error rate " + Rate(t.ErrorRate) + ")"},
		{"Cancelled", Count(t.Cancelled) + " (" + Rate(t.CancelRate) + ")"},
		{"Duration", fmt.Sprintf("p50 %s, p95 %s, p99 %s, max %s over %s timed calls", Millis(t.DurationMS.P50), Millis(t.DurationMS.P95),
			Millis(t.DurationMS.P99), Millis(t.DurationMS.Max), Count(t.DurationMS.Count))}}
	v.Links = []pageLink{{Label: "Runs that called it", Href: "../" + h.listLink("tool", t.Name)}}
	if t.Errors > 0 {
		v.Links = append(v.Links, pageLink{Label: "Runs where it failed", Href: "../" + h.listLink("failed", t.Name)})
	}
	days := make([]metrics.DayRow, len(d.Daily))
	for i, x := range d.Daily {
		days[i] = metrics.DayRow{Date: x.Date, ToolCalls: x.Calls, OutcomeKnown: x.OutcomeKnown, Errors: x.Errors}
	}
	over := sectionView{Title: "Calls over time", Charts: []chartView{callsPerDayChart(days),
		histogramChart("chart-call-durations", "Duration distribution", "tool calls", d.Histogram)}}
	v.Sections = append(v.Sections, over)
	if len(d.Errors) > 0 {
		errs := htmlTable("Error messages", ">Count", "Message")
		for _, e := range d.Errors {
			msg := txt(e.Message)
			msg.Href = "../" + h.listLink("failed", t.Name, "error", e.Message)
			errs.Rows = append(errs.Rows, []cellView{num(Count(e.Count), float64(e.Count)), msg})
		}
		errs.Note = "Messages normalised as on the dashboard; a message opens the runs where this tool failed and the message occurred."
		runs := h.rankedRuns("Runs where it failed most", "Failures", failing, true)
		v.Sections = append(v.Sections, sectionView{Title: "Failures", Tables: []tableView{errs, runs}})
	}
	return h.execute(file, "detail.html", v)
}

func (h *htmlWriter) projectPage(file string, p *metrics.ProjectRow, d *projectDrill) error {
	v := detailView{Page: h.page("Project "+clipText(p.Label, 120)+" · agentstat", "../assets/", file, true), Heading: "Project: " + p.Label}
	v.Facts = []factView{{"Directory", p.Project},
		{"Runs", Count(p.Runs) + " (success rate " + Rate(p.SuccessRate) + ")"},
		{"Tool calls", Count(p.ToolCalls) + " (" + plural(p.Errors, "error") + ", error rate " + Rate(p.ErrorRate) + "; " + Count(p.Cancelled) + " cancelled)"},
		{"Tokens", Count(p.Tokens.Total)},
		{"Cost", USD(p.CostUSD)}}
	v.Links = []pageLink{{Label: "Its runs", Href: "../" + h.listLink("project", p.Label)}}
	if p.Errors > 0 {
		v.Links = append(v.Links, pageLink{Label: "Its runs with errors", Href: "../" + h.listLink("project", p.Label, "errors", "1")})
	}
	days := make([]metrics.DayRow, 0, len(d.days))
	for _, x := range d.days {
		days = append(days, *x)
	}
	slices.SortFunc(days, func(x, y metrics.DayRow) int { return cmp.Compare(x.Date, y.Date) })
	runs, _ := runsPerDayChart(&metrics.Summary{Daily: days})
	over := sectionView{Title: "Runs over time", Charts: []chartView{runs}}
	if len(d.cost) > 0 {
		const all = "all models"
		for i := range days {
			days[i].CostByModel = map[string]float64{all: d.cost[days[i].Date]}
		}
		c := costPerDayChart(&metrics.Summary{Daily: days, Models: []metrics.ModelRow{{Model: all, CostUSD: new(0.0)}}})
		c.Title = strings.TrimSuffix(c.Title, " by model")
		c.Description = "What the runs started in each period cost in USD (a run counts whole on the day it started)."
		over.Charts = append(over.Charts, c)
	}
	v.Sections = append(v.Sections, over)

	tools := htmlTable("Tools that failed", "Tool", ">Failures", ">Runs with a failure")
	names := make([]string, 0, len(d.failed))
	for name := range d.failed {
		names = append(names, name)
	}
	slices.SortFunc(names, func(x, y string) int { return cmp.Or(cmp.Compare(d.failed[y][0], d.failed[x][0]), cmp.Compare(x, y)) })
	for _, name := range names[:min(len(names), maxToolsCharted)] {
		f := d.failed[name]
		tool, runs := txt(name), num(Count(f[1]), float64(f[1]))
		if page, ok := h.toolPages[name]; ok {
			tool.Href = "../" + page
		}
		runs.Href = "../" + h.listLink("project", p.Label, "failed", name)
		tools.Rows = append(tools.Rows, []cellView{tool, num(Count(f[0]), float64(f[0])), runs})
	}
	errs := htmlTable("Most common errors", ">Runs", "Message")
	msgs := make([]string, 0, len(d.errorRuns))
	for m := range d.errorRuns {
		msgs = append(msgs, m)
	}
	slices.SortFunc(msgs, func(x, y string) int { return cmp.Or(cmp.Compare(d.errorRuns[y], d.errorRuns[x]), cmp.Compare(x, y)) })
	for _, m := range msgs[:min(len(msgs), mdErrors)] {
		msg := txt(m)
		msg.Href = "../" + h.listLink("project", p.Label, "error", m)
		errs.Rows = append(errs.Rows, []cellView{num(Count(d.errorRuns[m]), float64(d.errorRuns[m])), msg})
	}
	errs.Note = "Runs where each normalised message occurred (among each run's first eight messages); a message opens them."
	failures := sectionView{Title: "Failures"}
	for _, t := range []tableView{tools, errs, h.rankedRuns("Runs with most errors", "Errors", &d.failing, false)} {
		if len(t.Rows) > 0 {
			failures.Tables = append(failures.Tables, t)
		}
	}
	if len(failures.Tables) > 0 {
		v.Sections = append(v.Sections, failures)
	}
	if costly := h.rankedRuns("Most expensive runs", "Cost", &d.costly, false); len(costly.Rows) > 0 {
		v.Sections = append(v.Sections, sectionView{Title: "Cost", Tables: []tableView{costly}})
	}
	return h.execute(file, "detail.html", v)
}

// rankedRuns is a table of the runs t kept, with the figure they were
// ranked by; a project's page leaves out the project column.
func (h *htmlWriter) rankedRuns(title, figure string, t *topRuns, withProject bool) tableView {
	cols := []string{"Run", ">" + figure, "Status", "Project", "Started", ">Tool calls", ">Errors"}
	if figure == "Errors" {
		cols = cols[:len(cols)-1]
	}
	if !withProject {
		cols = slices.Delete(cols, 3, 4)
	}
	tab := htmlTable(title, cols...)
	for _, rr := range t.runs {
		r := h.r.Runs.At(rr.at)
		v := h.runRow(&r, "../")
		run := txt(v.Name)
		run.Href = v.Href
		key := num(Count(int64(rr.key)), rr.key)
		if figure == "Cost" {
			key = numPtr(USD(r.CostUSD), r.CostUSD)
		}
		started := txt(v.Started)
		started.Sort = v.StartedSort
		row := []cellView{run, key, txt(v.Status)}
		if withProject {
			row = append(row, txt(v.Project))
		}
		row = append(row, started, num(v.ToolCalls, float64(r.ToolCalls)))
		if figure != "Errors" {
			row = append(row, num(v.Errors, float64(r.Errors)))
		}
		tab.Rows = append(tab.Rows, row)
	}
	return tab
}

// callsPerDayChart is a tool's calls each day, stacked by outcome.
func callsPerDayChart(days []metrics.DayRow) chartView {
	unit, ps := periods(days)
	labels := make([]string, len(ps))
	ok, failed, other := make([]opts.BarData, len(ps)), make([]opts.BarData, len(ps)), make([]opts.BarData, len(ps))
	for i, p := range ps {
		labels[i] = p.label
		ok[i], failed[i], other[i] = opts.BarData{Value: p.known - p.errors}, opts.BarData{Value: p.errors}, opts.BarData{Value: p.calls - p.known}
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(commonOpts(unit, "tool calls")...)
	bar.SetXAxis(labels)
	stack := charts.WithBarChartOpts(opts.BarChart{Stack: "calls"})
	bar.AddSeries("ok", ok, stack, charts.WithItemStyleOpts(opts.ItemStyle{Color: "#2da44e"}))
	bar.AddSeries("error", failed, stack, charts.WithItemStyleOpts(opts.ItemStyle{Color: "#cf222e"}))
	bar.AddSeries("cancelled or unknown", other, stack, charts.WithItemStyleOpts(opts.ItemStyle{Color: "#8c959f"}))
	return chartView{ID: "chart-calls-per-day", Title: "Calls per " + unit + " by outcome", Option: optionJSON(bar, nil),
		Description: fmt.Sprintf("Stacked bars: calls started each %s, by outcome. Only %ss with calls have a place; %s stands for the %ss without between two of them.", unit, unit, gapLabel, unit)}
}

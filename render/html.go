package render

import (
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/agentstat/agentstat/metrics"
	"github.com/agentstat/agentstat/model"
	"github.com/agentstat/agentstat/templates"
)

// Listing limits keep index.html light at any size.
const (
	htmlRecentRuns  = 100
	htmlRunsPerPage = 1000
	htmlSkipped     = 1000
)

// strictCSP forbids inline scripts and handlers, remote scripts and styles,
// and any connection: everything a page needs is in assets/ beside it.
// Style attributes are allowed: ECharts' tooltips position and colour
// themselves with them, and a style attribute can neither run a script nor,
// with img-src and font-src closed, load anything.
const strictCSP = "default-src 'none'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'"

var pageTemplates = template.Must(template.New("").ParseFS(templates.FS, "*.html"))

// markdown renders free text that holds Markdown (summaries, notes); raw
// HTML is dropped and dangerous link schemes are not rendered as links.
var markdown = goldmark.New(goldmark.WithExtensions(extension.GFM))

// page is what every page template's head and foot need.
type page struct {
	Title, CSP, Assets, GeneratedAt, TZ, Canonical string
	HasCharts                                      bool
	InlineCSS                                      template.CSS
	InlineJS                                       []template.JS
}

// HTML writes the dashboard: index.html, a page per run under runs/, the
// paginated run list, and assets/.
func HTML(d *Dir, r *metrics.Report, o Options) error {
	h := &htmlWriter{d: d, r: r, o: o, loc: r.Location, labels: map[string]string{}}
	for _, p := range r.Summary.Projects {
		h.labels[p.Project] = p.Label
	}
	if h.loc == nil {
		h.loc = time.UTC
	}
	h.drillPages()
	h.newest = r.Runs.NewestFirst()
	if o.SingleFile {
		return h.index()
	}
	for _, name := range []string{"echarts.min.js", "agentstat.js", "agentstat.css", "echarts-LICENSE.txt", "echarts-NOTICE.txt", "d3-LICENSE.txt"} {
		if err := copyAsset(d, name); err != nil {
			return err
		}
	}
	if err := h.index(); err != nil {
		return err
	}
	h.rank = make([]int32, len(h.newest))
	for k, i := range h.newest {
		h.rank[i] = int32(k)
	}
	if err := h.runLists(); err != nil {
		return err
	}
	if err := h.drillWrite(); err != nil {
		return err
	}
	return h.runPages()
}

func copyAsset(d *Dir, name string) error {
	src, err := templates.FS.Open("assets/" + name)
	if err != nil {
		return err
	}
	defer src.Close()
	return d.WriteFile("assets/"+name, func(w io.Writer) error {
		_, err := io.Copy(w, src)
		return err
	})
}

type htmlWriter struct {
	d      *Dir
	r      *metrics.Report
	o      Options
	loc    *time.Location
	labels map[string]string // each project's label
	// toolPages and projectPages are the pages of the tools and projects that have one, by name and by project.
	toolPages, projectPages map[string]string
	newest                  []int32 // the run index's positions, newest run first (the run list's order)
	rank                    []int32 // each run's place in newest, by its position in the index
}

func (h *htmlWriter) page(title, assets, self string, charts bool) page {
	p := page{Title: title, CSP: strictCSP, Assets: assets, GeneratedAt: h.r.Summary.GeneratedAt, TZ: h.r.Summary.TZ, HasCharts: charts}
	if h.o.BaseURL != "" {
		p.Canonical = strings.TrimSuffix(h.o.BaseURL, "/") + "/" + self
	}
	return p
}

func (h *htmlWriter) title() string {
	if h.r.Title != "" {
		return h.r.Title
	}
	return "agentstat report"
}

// inline makes a page self-contained: scripts and styles inlined once, and a
// policy that allows exactly those by hash.
func inline(p *page) error {
	css, err := fs.ReadFile(templates.FS, "assets/agentstat.css")
	if err != nil {
		return err
	}
	var hashes []string
	for _, name := range []string{"echarts.min.js", "agentstat.js"} {
		js, err := fs.ReadFile(templates.FS, "assets/"+name)
		if err != nil {
			return err
		}
		p.InlineJS = append(p.InlineJS, template.JS(js))
		sum := sha256.Sum256(js)
		hashes = append(hashes, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
	}
	sum := sha256.Sum256(css)
	p.InlineCSS = template.CSS(css)
	p.CSP = "default-src 'none'; script-src " + strings.Join(hashes, " ") + "; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; img-src data:; base-uri 'none'; form-action 'none'"
	return nil
}

func (h *htmlWriter) execute(name, tmpl string, data any) error {
	return h.d.WriteFile(name, func(w io.Writer) error { return pageTemplates.ExecuteTemplate(w, tmpl, data) })
}

// violated reports whether a threshold on one of metrics was violated.
func violated(c *metrics.CheckResult, names ...string) bool {
	if c == nil {
		return false
	}
	for _, t := range c.Thresholds {
		if t.Violated && slices.Contains(names, t.Metric) {
			return true
		}
	}
	return false
}

type cellView struct {
	Text, Sort, Href string
	Num              bool
}

type headView struct {
	Text string
	Num  bool
}

type tableView struct {
	Title string
	Head  []headView
	Rows  [][]cellView
	Note  string
}

type sectionView struct {
	Title  string
	Charts []chartView
	Tables []tableView
}

type checkRowView struct{ Metric, Tool, Limit, Actual, Verdict, Class string }

type checkView struct {
	Passed  bool
	Verdict string
	Rows    []checkRowView
}

type runRowView struct {
	Name, Href, Status, Format, Project, Started, StartedSort, Duration, DurationSort, Source string
	ToolCalls, Errors, Tokens, Cost, CostSort                                                 string
}

func htmlTable(title string, cols ...string) tableView {
	t := tableView{Title: title}
	for _, c := range cols {
		t.Head = append(t.Head, headView{Text: strings.TrimPrefix(c, ">"), Num: strings.HasPrefix(c, ">")})
	}
	return t
}

func txt(s string) cellView { return cellView{Text: s} }

func num(text string, sort float64) cellView {
	return cellView{Text: text, Num: true, Sort: strconv.FormatFloat(sort, 'g', -1, 64)}
}

func numPtr(text string, v *float64) cellView {
	c := cellView{Text: text, Num: true}
	if v != nil {
		c.Sort = strconv.FormatFloat(*v, 'g', -1, 64)
	}
	return c
}

func (h *htmlWriter) when(t time.Time) (string, string) {
	if t.IsZero() {
		return NA, ""
	}
	return t.In(h.loc).Format("2006-01-02 15:04:05"), strconv.FormatInt(t.UnixMilli(), 10)
}

func (h *htmlWriter) runRow(r *metrics.RunRow, prefix string) runRowView {
	name := r.Title
	if strings.TrimSpace(name) == "" {
		name = r.ID
	}
	v := runRowView{Name: clipText(name, 120), Status: r.Status, Format: r.Format, Project: h.projectLabel(r.Project), Source: r.Source,
		Duration: Millis(r.DurationMS), ToolCalls: Count(int64(r.ToolCalls)), Errors: Count(int64(r.Errors)), Tokens: Count(r.Tokens), Cost: USD(r.CostUSD)}
	if r.CostUSD != nil {
		v.CostSort = strconv.FormatFloat(*r.CostUSD, 'g', -1, 64)
	}
	if !h.o.SingleFile {
		v.Href = prefix + "runs/" + r.Page
	}
	v.Started, v.StartedSort = h.when(r.Started)
	if r.DurationMS != nil {
		v.DurationSort = strconv.FormatFloat(*r.DurationMS, 'g', -1, 64)
	}
	return v
}

func (h *htmlWriter) index() error {
	s := &h.r.Summary
	data := struct {
		Page                  page
		Meta                  string
		Check                 *checkView
		Cards                 []cardView
		Sections              []sectionView
		Runs                  []runRowView
		RunsNote, AllRunsHref string
		RunCount              string
	}{Page: h.page(h.title(), "assets/", "index.html", true)}
	if h.o.SingleFile {
		if err := inline(&data.Page); err != nil {
			return err
		}
	}
	data.Meta = fmt.Sprintf("%s runs from %s files (%s skipped)", Count(s.Runs.Total), Count(s.Inputs.FilesParsed), Count(s.Inputs.FilesSkipped))
	data.Meta += windowText(s.Window)
	if s.Inputs.TextWithheld {
		data.Meta += " · texts withheld (--no-text)"
	}
	data.Check = checkSummary(s.Check)
	data.Cards = h.cards(s)
	data.Sections = h.sections()

	recent := h.newest
	if len(recent) > htmlRecentRuns {
		recent = recent[:htmlRecentRuns]
	}
	data.Runs = make([]runRowView, len(recent))
	for i, k := range recent {
		r := h.r.Runs.At(int(k))
		data.Runs[i] = h.runRow(&r, "")
	}
	data.RunsNote = fmt.Sprintf("The %d most recent runs.", len(recent))
	if !h.o.SingleFile && h.r.Runs.Len() > 0 {
		data.AllRunsHref, data.RunCount = "runs.html", Count(int64(h.r.Runs.Len()))
	}
	return h.execute("index.html", "index.html", data)
}

func checkSummary(c *metrics.CheckResult) *checkView {
	if c == nil {
		return nil
	}
	v := &checkView{Passed: c.Passed, Verdict: fmt.Sprintf("All %d thresholds hold.", len(c.Thresholds))}
	if !c.Passed {
		v.Verdict = fmt.Sprintf("%d of %d thresholds violated.", c.Violations, len(c.Thresholds))
	}
	for _, t := range c.Thresholds {
		row := checkRowView{Metric: t.Metric, Tool: t.Scope(), Limit: t.Op + " " + ThresholdValue(t.Kind, &t.Limit), Actual: ThresholdValue(t.Kind, t.Actual), Verdict: "ok", Class: "outcome-ok"}
		switch {
		case t.Violated:
			row.Verdict, row.Class = "VIOLATED", "outcome-error"
		case t.Actual == nil:
			row.Verdict, row.Class = "no data", ""
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

func (h *htmlWriter) sections() []sectionView {
	s := &h.r.Summary
	var out []sectionView
	if len(h.r.History) >= 2 {
		out = append(out, sectionView{Title: "Across report runs", Charts: trendCharts(h.r.History)})
	}

	runsPerDay, rates := runsPerDayChart(s)
	fmtNames := make([]string, len(s.Formats))
	fmtRuns := make([]int64, len(s.Formats))
	for i, f := range s.Formats {
		fmtNames[i], fmtRuns[i] = f.Format, f.Runs
	}
	formats := htmlTable("Formats", "Format", ">Files", ">Runs", ">Success rate", ">Tool calls", ">Error rate", ">Tokens", ">Cost")
	for _, f := range s.Formats {
		name, runs := txt(f.Format), num(Count(f.Runs), float64(f.Runs))
		name.Href, runs.Href = h.listLink("format", f.Format), h.listLink("format", f.Format)
		formats.Rows = append(formats.Rows, []cellView{name, num(Count(f.Files), float64(f.Files)), runs,
			numPtr(Rate(f.SuccessRate), f.SuccessRate), num(Count(f.ToolCalls), float64(f.ToolCalls)), numPtr(Rate(f.ErrorRate), f.ErrorRate),
			num(Count(f.Tokens.Total), float64(f.Tokens.Total)), numPtr(USD(f.CostUSD), f.CostUSD)})
	}
	out = append(out, sectionView{Title: "Runs over time", Charts: []chartView{runsPerDay, rates,
		histogramChart("chart-run-durations", "Run duration distribution", "runs", s.Runs.Histogram),
		countsChart("chart-formats", "Runs by format", "format", "runs", "Runs read from each input format.", fmtNames, fmtRuns, nil)},
		Tables: []tableView{formats}})
	if projects, ok := h.projectsSection(); ok {
		out = append(out, projects)
	}
	if cost, ok := h.costSection(); ok {
		out = append(out, cost)
	}

	volume, durations := toolCharts(s)
	tools := htmlTable("", "Tool", "Category", ">Calls", ">Share", ">Errors", ">Error rate", ">Cancelled", ">p50", ">p95", ">p99", ">Max")
	for _, t := range s.Tools[:min(len(s.Tools), maxDrillPages)] {
		name, errs := txt(t.Name), num(Count(t.Errors), float64(t.Errors))
		name.Href, errs.Href = cmp.Or(h.toolPages[t.Name], h.listLink("tool", t.Name)), h.listLink("failed", t.Name)
		tools.Rows = append(tools.Rows, []cellView{name, txt(t.Category), num(Count(t.Calls), float64(t.Calls)), numPtr(Rate(t.Share), t.Share),
			errs, numPtr(Rate(t.ErrorRate), t.ErrorRate), num(Count(t.Cancelled), float64(t.Cancelled)), numPtr(Millis(t.DurationMS.P50), t.DurationMS.P50),
			numPtr(Millis(t.DurationMS.P95), t.DurationMS.P95), numPtr(Millis(t.DurationMS.P99), t.DurationMS.P99), numPtr(Millis(t.DurationMS.Max), t.DurationMS.Max)})
	}
	if n := s.ToolCalls.ToolNames; n > int64(len(tools.Rows)) {
		tools.Note = fmt.Sprintf("The %s most called of %s tools; summary.json and the workbook list the %s most called.", Count(int64(len(tools.Rows))), Count(n), Count(int64(len(s.Tools))))
	}
	errs := htmlTable("Most common errors", ">Count", "Tool", "Message", "Example run")
	shown := s.Errors[:min(len(s.Errors), mdErrors)]
	example := exampleRuns(h.r.Runs, shown, h.r.Runs.Len())
	for _, e := range shown {
		ex := txt(e.ExampleRun)
		if i, ok := example[runKey{e.ExampleSource, e.ExampleRun}]; ok && !h.o.SingleFile {
			ex.Href = "runs/" + h.r.Runs.At(i).Page
		}
		msg := txt(e.Message)
		msg.Href = h.listLink("error", e.Message)
		errs.Rows = append(errs.Rows, []cellView{num(Count(e.Count), float64(e.Count)), txt(e.Tool), msg, ex})
	}
	errs.Note = "Messages are normalised: numbers, paths and ids are folded. A message opens the runs where it occurred."
	toolSection := sectionView{Title: "Tools", Charts: []chartView{volume, durations,
		histogramChart("chart-call-durations", "Tool-call duration distribution", "tool calls", s.ToolCalls.Histogram)}, Tables: []tableView{tools}}
	if len(errs.Rows) > 0 {
		toolSection.Tables = append(toolSection.Tables, errs)
	}
	out = append(out, toolSection)

	stepNames := make([]string, len(model.StepStatuses))
	stepCounts := make([]int64, len(model.StepStatuses))
	for i, st := range model.StepStatuses {
		stepNames[i], stepCounts[i] = string(st), s.Steps.ByStatus[string(st)]
	}
	agents := htmlTable("Agents", "Agent", ">Runs", ">Tool calls", ">Errors", ">Error rate", ">Cost")
	for _, a := range s.Agents {
		agents.Rows = append(agents.Rows, []cellView{txt(a.Name), num(Count(a.Runs), float64(a.Runs)), num(Count(a.ToolCalls), float64(a.ToolCalls)),
			num(Count(a.Errors), float64(a.Errors)), numPtr(Rate(a.ErrorRate), a.ErrorRate), numPtr(USD(a.CostUSD), a.CostUSD)})
	}
	work := sectionView{Title: "Steps and agents", Charts: []chartView{countsChart("chart-steps", "Steps by status", "status", "steps",
		fmt.Sprintf("Planned steps by normalized status; completion rate %s.", Rate(s.Steps.CompletionRate)), stepNames, stepCounts, statusColor)}}
	if len(agents.Rows) > 0 {
		work.Tables = append(work.Tables, agents)
	}
	out = append(out, work)

	if s.Quality.Evaluations > 0 || s.Quality.OutputValidChecked > 0 {
		dist, byPhase := qualityCharts(&s.Quality)
		q := htmlTable("Quality by phase", "Phase", ">Evaluations", ">Mean", ">Output valid")
		for _, g := range s.Quality.ByPhase {
			q.Rows = append(q.Rows, []cellView{txt(g.Phase), num(Count(g.Evaluations), float64(g.Evaluations)), numPtr(Score(g.Mean), g.Mean), numPtr(Rate(g.OutputValidRate), g.OutputValidRate)})
		}
		q.Note = fmt.Sprintf("Mean %s, median %s, p10 %s; output valid %s.", Score(s.Quality.Mean), Score(s.Quality.Median), Score(s.Quality.P10), Rate(s.Quality.OutputValidRate))
		out = append(out, sectionView{Title: "Quality", Charts: []chartView{dist, byPhase}, Tables: []tableView{q}})
	}

	ctxCharts := []chartView{tokensPerDayChart(s)}
	if c, ok := tokensLogChart(s); ok {
		ctxCharts = append(ctxCharts, c)
	}
	if names, counts := sortedCounts(s.Context.RefsByType); len(names) > 0 {
		ctxCharts = append(ctxCharts, countsChart("chart-refs", "Context references by type", "type", "references", "Context material the runs referred to, by type.", names, counts, nil))
	}
	if names, counts := sortedCounts(s.Context.ContributionsByType); len(names) > 0 {
		ctxCharts = append(ctxCharts, countsChart("chart-contributions", "Context contributions by type", "type", "tool calls", "What tool calls contributed to the context, by type.", names, counts, nil))
	}
	tok := s.Context.Tokens
	tokTable := htmlTable("Tokens", ">Total", ">Input", ">Output", ">Cache read", ">Cache creation", ">Unspecified", ">Cache-read share", ">Mean per run")
	tokTable.Rows = [][]cellView{{num(Count(tok.Total), float64(tok.Total)), num(Count(tok.Input), float64(tok.Input)), num(Count(tok.Output), float64(tok.Output)),
		num(Count(tok.CacheRead), float64(tok.CacheRead)), num(Count(tok.CacheCreation), float64(tok.CacheCreation)), num(Count(tok.Unspecified), float64(tok.Unspecified)),
		numPtr(Rate(s.Context.CacheReadShare), s.Context.CacheReadShare), numPtr(countPtr(s.Context.TokensPerRun.Mean), s.Context.TokensPerRun.Mean)}}
	bu := s.Context.Budget
	sub := &s.Context.Subagents
	subCost := ""
	if sub.Requests > 0 {
		subCost = fmt.Sprintf(", %s requests costing %s (part of the runs' cost)", Count(sub.Requests), USD(sub.CostUSD))
	}
	tokTable.Note = fmt.Sprintf("Subagents: %s invocations, %s calls of their own, %s tokens%s. Budget warnings %s, exceeded %s, retries %s.",
		Count(sub.Invocations), Count(sub.Calls), Count(sub.Tokens), subCost, Count(bu.Warnings), Count(bu.Exceeded), Count(bu.Retries))
	out = append(out, sectionView{Title: "Tokens and context", Charts: ctxCharts, Tables: []tableView{tokTable}})

	in := &s.Inputs
	skipped := htmlTable("Skipped files", "File", "Reason", "Detail")
	for i, f := range in.Skipped {
		if i == htmlSkipped {
			skipped.Note = fmt.Sprintf("The first %d of %d skipped files; summary.json lists them all.", htmlSkipped, len(in.Skipped))
			break
		}
		skipped.Rows = append(skipped.Rows, []cellView{txt(f.Path), txt(f.Reason), txt(clipText(f.Detail, 200))})
	}
	warn := htmlTable("Warnings", "Kind", ">Count", "First file")
	names, counts := sortedCounts(in.Warnings)
	for i := range names {
		warn.Rows = append(warn.Rows, []cellView{txt(names[i]), num(Count(counts[i]), float64(counts[i])), txt(in.WarningFiles[names[i]])})
	}
	warn.Note = warningFileNote
	dq := sectionView{Title: "Data quality"}
	summary := htmlTable("", ">Seen", ">Parsed", ">Skipped", ">Outside the window", ">Values redacted")
	summary.Rows = [][]cellView{{num(Count(in.FilesSeen), float64(in.FilesSeen)), num(Count(in.FilesParsed), float64(in.FilesParsed)),
		num(Count(in.FilesSkipped), float64(in.FilesSkipped)), num(Count(in.FilesFiltered), float64(in.FilesFiltered)), num(Count(in.Redacted), float64(in.Redacted))}}
	summary.Note = "Values that looked like credentials (API keys, tokens, private keys, passwords) are shown as " + metrics.Redacted + "."
	dq.Tables = append(dq.Tables, summary)
	if len(skipped.Rows) > 0 {
		dq.Tables = append(dq.Tables, skipped)
	}
	if len(warn.Rows) > 0 {
		dq.Tables = append(dq.Tables, warn)
	}
	out = append(out, dq)
	return out
}

// warningFileNote says what the data-quality tables' "First file" is.
const warningFileNote = "First file: the first by path of the files that raised the warning (none for checks across files)."

func sortedCounts(m map[string]int64) ([]string, []int64) {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.SortFunc(names, func(x, y string) int { return cmp.Or(cmp.Compare(m[y], m[x]), cmp.Compare(x, y)) })
	counts := make([]int64, len(names))
	for i, n := range names {
		counts[i] = m[n]
	}
	return names, counts
}

type pageLink struct {
	Label, Href string
	Current     bool
}

// runKey is a run by its source and id, as an error's example names it.
type runKey struct{ source, id string }

// exampleRuns finds the errors' example runs among the first n of runs:
// the position of the last run of each source and id. It keeps a few
// entries, where a map of every run held the whole index again.
func exampleRuns(runs *metrics.RunIndex, errs []metrics.ErrorRow, n int) map[runKey]int {
	want := map[runKey]bool{}
	for _, e := range errs {
		want[runKey{e.ExampleSource, e.ExampleRun}] = true
	}
	found := map[runKey]int{}
	for i, r := range runs.All() {
		if i >= n {
			break
		}
		if k := (runKey{r.Source, r.ID}); want[k] {
			found[k] = i
		}
	}
	return found
}

// countPtr shows a mean count rounded, or n/a.
func countPtr(v *float64) string {
	if v == nil {
		return NA
	}
	return Count(int64(math.Round(*v)))
}

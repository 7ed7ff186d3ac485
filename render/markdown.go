package render

import (
	"cmp"
	"fmt"
	"html"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/agentstat/agentstat/analyze"
)

// Listing limits keep report.md readable on a big tree; summary.json has everything.
const (
	mdTopTools    = 10
	mdAllTools    = 100
	mdErrors      = 20
	mdAgents      = 50
	mdModels      = 50
	mdProjects    = 50
	mdTopRuns     = 10
	mdDays        = 62
	mdSkippedRows = 500
)

// table is a GitHub-flavoured Markdown table; every cell is escaped.
type table struct {
	head  []string
	right []bool // right-align the column (numbers)
	rows  [][]string
	links map[[2]int]string // by row and column: the address a cell links to
}

func newTable(cols ...string) *table {
	t := &table{}
	for _, c := range cols {
		right := strings.HasPrefix(c, ">")
		t.head = append(t.head, strings.TrimPrefix(c, ">"))
		t.right = append(t.right, right)
	}
	return t
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// link has the last row's cell in column col link to href, an address
// agentstat made (the --base-url, checked by publishedAt, and a page name);
// nothing when href is "".
func (t *table) link(col int, href string) {
	if href == "" {
		return
	}
	if t.links == nil {
		t.links = map[[2]int]string{}
	}
	t.links[[2]int{len(t.rows) - 1, col}] = href
}

func (t *table) write(b *strings.Builder) {
	line := func(row int, cells []string) {
		b.WriteString("|")
		for col, c := range cells {
			b.WriteString(" ")
			if href, ok := t.links[[2]int{row, col}]; ok {
				b.WriteString("[" + MarkdownText(c) + "](" + href + ")")
			} else {
				b.WriteString(MarkdownText(c))
			}
			b.WriteString(" |")
		}
		b.WriteString("\n")
	}
	line(-1, t.head)
	b.WriteString("|")
	for _, r := range t.right {
		if r {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for i, r := range t.rows {
		line(i, r)
	}
	b.WriteString("\n")
}

// Markdown writes report.md: a headline, then a section per metric family,
// then the data-quality account. It renders on GitHub and through goldmark
// with the GFM extension.
func Markdown(w io.Writer, r *analyze.Report, o Options) error {
	var b strings.Builder
	s := &r.Summary
	title := r.Title
	if title == "" {
		title = "agentstat report"
	}
	fmt.Fprintf(&b, "# %s\n\n", MarkdownText(title))
	fmt.Fprintf(&b, "Generated %s · times in %s", MarkdownText(s.GeneratedAt), MarkdownText(s.TZ))
	b.WriteString(MarkdownText(windowText(s.Window)))
	if s.Inputs.TextWithheld {
		b.WriteString(" · texts withheld (--no-text)")
	}
	fmt.Fprintf(&b, " · %s files read, %s skipped\n\n", Count(s.Inputs.FilesParsed), Count(s.Inputs.FilesSkipped))
	base, published := publishedAt(o.BaseURL)
	if published {
		fmt.Fprintf(&b, "[Open the dashboard](%s/index.html) · [every run](%s/runs.html)\n\n", base, base)
	} else {
		base = ""
	}

	headline(&b, s, r.History)
	if s.Check != nil {
		checkSection(&b, s.Check)
	}
	runsSection(&b, s)
	projectsSection(&b, s)
	costSection(&b, r, base)
	toolsSection(&b, s)
	errorsSection(&b, r, base)
	agentsSection(&b, s)
	qualitySection(&b, s)
	contextSection(&b, s)
	dailySection(&b, s)
	dataQualitySection(&b, s)
	_, err := io.WriteString(w, b.String())
	return err
}

// publishedAt is --base-url fit for a Markdown link: http(s), no space or
// parenthesis, without a trailing slash.
func publishedAt(u string) (string, bool) {
	u = strings.TrimSuffix(u, "/")
	ok := (strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://")) && !strings.ContainsAny(u, " ()<>\n\r\t")
	return u, ok
}

// folded writes a section's body inside <details>, which GitHub shows
// closed: long tables stay out of the way of a pull request's first screen.
func folded(b *strings.Builder, summary string, body func()) {
	fmt.Fprintf(b, "<details><summary>%s</summary>\n\n", html.EscapeString(summary))
	body()
	b.WriteString("</details>\n\n")
}

// windowText says which runs were kept, after a " · ", or "" for all.
func windowText(w *analyze.Window) string {
	if w == nil {
		return ""
	}
	var out string
	if w.Project != "" {
		out += " · runs of project " + w.Project
	}
	if w.Since != "" || w.Until != "" {
		out += fmt.Sprintf(" · runs started from %s until %s", orDash(w.Since), orDash(w.Until))
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func headline(b *strings.Builder, s *analyze.Summary, hist []analyze.HistoryEntry) {
	var cols, values []string
	var shown []analyze.Figure
	for _, f := range analyze.Headline {
		if f.Shown {
			shown = append(shown, f)
			cols = append(cols, ">"+f.Label)
			values = append(values, diffValue(f.Kind, f.Get(s)))
		}
	}
	t := newTable(cols...)
	t.add(values...)
	if len(hist) >= 2 {
		prev, cur := hist[len(hist)-2], hist[len(hist)-1]
		changes := make([]string, len(shown))
		for i, f := range shown {
			changes[i] = change(f.Kind, prev.Value(f.History), cur.Value(f.History))
		}
		t.add(changes...)
		t.write(b)
		fmt.Fprintf(b, "The second row is the change since the previous report (%s).\n\n", MarkdownText(prev.GeneratedAt))
		return
	}
	t.write(b)
}

// ChangeCount shows the change of a count.
func ChangeCount(old, cur int64) string {
	if cur >= old {
		return "+" + Count(cur-old)
	}
	return "−" + Count(old-cur)
}

// ChangePoints shows the change of a rate in percentage points.
func ChangePoints(old, cur *float64) string {
	if old == nil || cur == nil {
		return NA
	}
	return signed((*cur-*old)*100, 1) + " pp"
}

// ChangeRelative shows the relative change of a figure.
func ChangeRelative(old, cur *float64) string {
	if old == nil || cur == nil || *old == 0 {
		return NA
	}
	return signed((*cur / *old - 1)*100, 1) + "%"
}

// ChangeScore shows the change of a quality score.
func ChangeScore(old, cur *float64) string {
	if old == nil || cur == nil {
		return NA
	}
	return signed(*cur-*old, 2)
}

func signed(v float64, prec int) string {
	s := strconv.FormatFloat(math.Abs(v), 'f', prec, 64)
	if v < 0 && strings.Trim(s, "0.") != "" {
		return "−" + s
	}
	return "+" + s
}

func checkSection(b *strings.Builder, c *analyze.CheckResult) {
	b.WriteString("## Thresholds\n\n")
	if c.Passed {
		fmt.Fprintf(b, "All %d thresholds hold", len(c.Thresholds))
	} else {
		fmt.Fprintf(b, "**%d of %d thresholds violated**", c.Violations, len(c.Thresholds))
	}
	if c.NoData > 0 {
		fmt.Fprintf(b, " (%d without data)", c.NoData)
	}
	b.WriteString(".\n\n")
	t := newTable("Metric", "Tool or project", "Limit", "Actual", "Verdict")
	for _, th := range c.Thresholds {
		verdict := "ok"
		switch {
		case th.Violated:
			verdict = "VIOLATED"
		case th.Actual == nil:
			verdict = "no data"
		}
		t.add(th.Metric, th.Scope(), th.Op+" "+ThresholdValue(th.Kind, &th.Limit), ThresholdValue(th.Kind, th.Actual), verdict)
	}
	t.write(b)
}

// ThresholdValue shows a threshold figure in its kind's unit.
func ThresholdValue(kind string, v *float64) string {
	switch kind {
	case "rate":
		return Rate(v)
	case "duration":
		return Millis(v)
	case "usd":
		return USD(v)
	}
	return Score(v)
}

func statsRow(name string, st analyze.Stats) []string {
	return []string{name, Count(st.Count), Millis(st.Mean), Millis(st.P50), Millis(st.P90), Millis(st.P95), Millis(st.P99), Millis(st.Max)}
}

func runsSection(b *strings.Builder, s *analyze.Summary) {
	b.WriteString("## Runs\n\n")
	fmt.Fprintf(b, "%s runs; success rate %s (success among runs that finished: not running, not unknown).\n\n", Count(s.Runs.Total), Rate(s.Runs.SuccessRate))
	t := newTable("Status", ">Runs", ">Share")
	for _, st := range []string{"success", "failed", "partial", "running", "unknown"} {
		if n := s.Runs.ByStatus[st]; n > 0 {
			t.add(st, Count(n), Rate(share(n, s.Runs.Total)))
		}
	}
	t.write(b)

	b.WriteString("### Durations\n\n")
	t = newTable("", ">Count", ">Mean", ">p50", ">p90", ">p95", ">p99", ">Max")
	t.rows = append(t.rows, statsRow("Runs", s.Runs.DurationMS), statsRow("Tool calls", s.ToolCalls.DurationMS))
	t.write(b)

	b.WriteString("### Formats\n\n")
	t = newTable("Format", ">Files", ">Runs", ">Success rate", ">Tool calls", ">Error rate", ">Tokens", ">Cost")
	for _, f := range s.Formats {
		t.add(f.Format, Count(f.Files), Count(f.Runs), Rate(f.SuccessRate), Count(f.ToolCalls), Rate(f.ErrorRate), Count(f.Tokens.Total), USD(f.CostUSD))
	}
	t.write(b)

	if s.Steps.Total == 0 {
		return // transcripts plan no steps
	}
	b.WriteString("### Steps\n\n")
	fmt.Fprintf(b, "%s steps; completion rate %s.\n\n", Count(s.Steps.Total), Rate(s.Steps.CompletionRate))
	t = newTable("Status", ">Steps", ">Share")
	for _, st := range []string{"completed", "partial", "in_progress", "blocked", "not_started", "failed", "skipped", "other"} {
		if n := s.Steps.ByStatus[st]; n > 0 {
			t.add(st, Count(n), Rate(share(n, s.Steps.Total)))
		}
	}
	t.write(b)
}

func share(n, total int64) *float64 {
	if total == 0 {
		return nil
	}
	v := float64(n) / float64(total)
	return &v
}

func toolRow(t analyze.ToolRow) []string {
	return []string{t.Name, t.Category, Count(t.Calls), Rate(t.Share), Count(t.Errors), Rate(t.ErrorRate), Count(t.Cancelled),
		Millis(t.DurationMS.P50), Millis(t.DurationMS.P95), Millis(t.DurationMS.Max)}
}

func toolTable() *table {
	return newTable("Tool", "Category", ">Calls", ">Share", ">Errors", ">Error rate", ">Cancelled", ">p50", ">p95", ">Max")
}

func toolsSection(b *strings.Builder, s *analyze.Summary) {
	b.WriteString("## Tools\n\n")
	fmt.Fprintf(b, "%s tool calls, %s that succeeded or failed, %s errors; error rate %s.",
		Count(s.ToolCalls.Total), Count(s.ToolCalls.OutcomeKnown), Count(s.ToolCalls.Errors), Rate(s.ToolCalls.ErrorRate))
	if s.ToolCalls.Cancelled > 0 {
		fmt.Fprintf(b, " %s cancelled by the user (cancel rate %s), counted apart from errors.", Count(s.ToolCalls.Cancelled), Rate(s.ToolCalls.CancelRate))
	}
	b.WriteString("\n\n")
	if len(s.Tools) == 0 {
		b.WriteString("No tool calls.\n\n")
		return
	}
	t := toolTable()
	for i, tool := range s.Tools {
		if i == mdAllTools {
			break
		}
		t.rows = append(t.rows, toolRow(tool))
	}
	t.write(b)
	if n := s.ToolCalls.ToolNames; n > mdAllTools {
		fmt.Fprintf(b, "…and %s more tools (summary.json lists the %s most called).\n\n", Count(n-mdAllTools), Count(int64(len(s.Tools))))
	}

	slow := slices.Clone(s.Tools)
	slow = slices.DeleteFunc(slow, func(t analyze.ToolRow) bool { return t.DurationMS.P95 == nil })
	slices.SortStableFunc(slow, func(x, y analyze.ToolRow) int { return cmp.Compare(*y.DurationMS.P95, *x.DurationMS.P95) })
	if len(slow) > 0 {
		folded(b, "Slowest tools (by p95)", func() {
			t := toolTable()
			for _, tool := range slow[:min(mdTopTools, len(slow))] {
				t.rows = append(t.rows, toolRow(tool))
			}
			t.write(b)
		})
	}

	failing := slices.Clone(s.Tools)
	failing = slices.DeleteFunc(failing, func(t analyze.ToolRow) bool { return t.Errors == 0 })
	slices.SortStableFunc(failing, func(x, y analyze.ToolRow) int { return cmp.Compare(y.Errors, x.Errors) })
	if len(failing) > 0 {
		folded(b, "Most failing tools", func() {
			t := toolTable()
			for _, tool := range failing[:min(mdTopTools, len(failing))] {
				t.rows = append(t.rows, toolRow(tool))
			}
			t.write(b)
		})
	}
}

// runHref is a run's page under base (the published dashboard), "" when
// there is none.
func runHref(base, page string) string {
	if base == "" || page == "" {
		return ""
	}
	return base + "/runs/" + page
}

func errorsSection(b *strings.Builder, r *analyze.Report, base string) {
	s := &r.Summary
	if len(s.Errors) == 0 {
		return
	}
	b.WriteString("## Most common errors\n\n")
	folded(b, fmt.Sprintf("%d error messages, normalised: numbers, paths and ids folded so that one error counts as one line", len(s.Errors)), func() {
		t := newTable(">Count", "Tool", "Message", "Example run", "Source")
		shown := s.Errors[:min(len(s.Errors), mdErrors)]
		pages := map[runKey]int{}
		if base != "" {
			pages = exampleRuns(r.Runs, shown, r.Runs.Len())
		}
		for _, e := range shown {
			page := ""
			if i, ok := pages[runKey{e.ExampleSource, e.ExampleRun}]; ok {
				page = r.Runs.At(i).Page
			}
			t.add(Count(e.Count), e.Tool, e.Message, e.ExampleRun, e.ExampleSource)
			t.link(3, runHref(base, page))
		}
		t.write(b)
	})
}

func agentsSection(b *strings.Builder, s *analyze.Summary) {
	if len(s.Agents) == 0 {
		return
	}
	b.WriteString("## Agents\n\n")
	t := newTable("Agent", ">Runs", ">Tool calls", ">Errors", ">Error rate", ">Cost")
	for i, a := range s.Agents {
		if i == mdAgents {
			break
		}
		t.add(a.Name, Count(a.Runs), Count(a.ToolCalls), Count(a.Errors), Rate(a.ErrorRate), USD(a.CostUSD))
	}
	t.write(b)
}

func qualitySection(b *strings.Builder, s *analyze.Summary) {
	q := &s.Quality
	if q.Evaluations == 0 && q.OutputValidChecked == 0 {
		return // no evaluated task
	}
	b.WriteString("## Quality\n\n")
	t := newTable(">Evaluations", ">Mean", ">Median", ">p10", ">Output valid")
	t.add(Count(q.Evaluations), Score(q.Mean), Score(q.Median), Score(q.P10), Rate(q.OutputValidRate))
	t.write(b)
	b.WriteString("### Score distribution\n\n")
	t = newTable("Score", ">Tasks")
	for i, bin := range q.Distribution {
		label := fmt.Sprintf("%d to under %d", bin.From, bin.To)
		if i == len(q.Distribution)-1 {
			label = fmt.Sprintf("%d to %d", bin.From, bin.To)
		}
		t.add(label, Count(bin.Count))
	}
	t.write(b)
	if len(q.ByPhase) > 0 {
		b.WriteString("### By phase\n\n")
		t = newTable("Phase", ">Evaluations", ">Mean", ">Output valid")
		for _, g := range q.ByPhase {
			t.add(g.Phase, Count(g.Evaluations), Score(g.Mean), Rate(g.OutputValidRate))
		}
		t.write(b)
	}
	if len(q.ByTool) > 0 {
		b.WriteString("### By tool\n\n")
		t = newTable("Tool", ">Evaluations", ">Mean", ">Output valid")
		for _, g := range q.ByTool {
			t.add(g.Tool, Count(g.Evaluations), Score(g.Mean), Rate(g.OutputValidRate))
		}
		t.write(b)
	}
}

func countTable(b *strings.Builder, title, key string, m map[string]int64) {
	if len(m) == 0 {
		return
	}
	fmt.Fprintf(b, "### %s\n\n", title)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y string) int { return cmp.Or(cmp.Compare(m[y], m[x]), cmp.Compare(x, y)) })
	t := newTable(key, ">Count")
	for _, k := range keys {
		t.add(k, Count(m[k]))
	}
	t.write(b)
}

func contextSection(b *strings.Builder, s *analyze.Summary) {
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
			st   analyze.Stats
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
func projectsSection(b *strings.Builder, s *analyze.Summary) {
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
func costSection(b *strings.Builder, r *analyze.Report, base string) {
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
func mostExpensive(runs *analyze.RunIndex, n int) []analyze.RunRow {
	var top []analyze.RunRow
	for _, row := range runs.All() {
		if row.CostUSD == nil {
			continue
		}
		i, _ := slices.BinarySearchFunc(top, *row.CostUSD, func(r analyze.RunRow, c float64) int { return cmp.Compare(c, *r.CostUSD) })
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

func dailySection(b *strings.Builder, s *analyze.Summary) {
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

func dataQualitySection(b *strings.Builder, s *analyze.Summary) {
	in := &s.Inputs
	b.WriteString("## Data quality\n\n")
	fmt.Fprintf(b, "%s files seen: %s parsed, %s skipped", Count(in.FilesSeen), Count(in.FilesParsed), Count(in.FilesSkipped))
	if in.FilesFiltered > 0 || in.RunsFiltered > 0 {
		fmt.Fprintf(b, ", %s outside the time window (%s runs left out)", Count(in.FilesFiltered), Count(in.RunsFiltered))
	}
	b.WriteString(".\n\n")
	if in.Redacted > 0 {
		fmt.Fprintf(b, "%s values that looked like credentials were redacted (shown as %s).\n\n", Count(in.Redacted), MarkdownText(analyze.Redacted))
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

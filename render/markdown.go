package render

import (
	"cmp"
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/agentstat/agentstat/metrics"
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
func Markdown(w io.Writer, r *metrics.Report, o Options) error {
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
func windowText(w *metrics.Window) string {
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

func headline(b *strings.Builder, s *metrics.Summary, hist []metrics.HistoryEntry) {
	var cols, values []string
	var shown []metrics.Figure
	for _, f := range metrics.Headline {
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

func checkSection(b *strings.Builder, c *metrics.CheckResult) {
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

func statsRow(name string, st metrics.Stats) []string {
	return []string{name, Count(st.Count), Millis(st.Mean), Millis(st.P50), Millis(st.P90), Millis(st.P95), Millis(st.P99), Millis(st.Max)}
}

func runsSection(b *strings.Builder, s *metrics.Summary) {
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

func toolRow(t metrics.ToolRow) []string {
	return []string{t.Name, t.Category, Count(t.Calls), Rate(t.Share), Count(t.Errors), Rate(t.ErrorRate), Count(t.Cancelled),
		Millis(t.DurationMS.P50), Millis(t.DurationMS.P95), Millis(t.DurationMS.Max)}
}

func toolTable() *table {
	return newTable("Tool", "Category", ">Calls", ">Share", ">Errors", ">Error rate", ">Cancelled", ">p50", ">p95", ">Max")
}

func toolsSection(b *strings.Builder, s *metrics.Summary) {
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
	slow = slices.DeleteFunc(slow, func(t metrics.ToolRow) bool { return t.DurationMS.P95 == nil })
	slices.SortStableFunc(slow, func(x, y metrics.ToolRow) int { return cmp.Compare(*y.DurationMS.P95, *x.DurationMS.P95) })
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
	failing = slices.DeleteFunc(failing, func(t metrics.ToolRow) bool { return t.Errors == 0 })
	slices.SortStableFunc(failing, func(x, y metrics.ToolRow) int { return cmp.Compare(y.Errors, x.Errors) })
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

func errorsSection(b *strings.Builder, r *metrics.Report, base string) {
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

func agentsSection(b *strings.Builder, s *metrics.Summary) {
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

func qualitySection(b *strings.Builder, s *metrics.Summary) {
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

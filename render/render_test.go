package render

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"html"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/agentstat/agentstat/discover"
	"github.com/agentstat/agentstat/metrics"
	"github.com/agentstat/agentstat/model"
	"github.com/agentstat/agentstat/pipeline"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

const goldenDir = "../testdata/golden"

func testReport(t *testing.T, roots ...string) *metrics.Report {
	t.Helper()
	r, err := pipeline.Report(context.Background(), pipeline.Options{Roots: roots, Now: time.Unix(1767225600, 0), Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// golden compares got with testdata/golden/name; -update rewrites it, and a
// mismatch leaves name.got beside it for a diff.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(goldenDir, name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./render -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		os.WriteFile(path+".got", got, 0o644)
		t.Errorf("%s differs from the golden file; see %s.got", name, path)
	}
}

func TestGolden(t *testing.T) {
	r := testReport(t, "../testdata/logs")
	var md, js bytes.Buffer
	if err := Markdown(&md, r, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := JSON(&js, r); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.md", md.Bytes())
	golden(t, "summary.json", js.Bytes())

	// The HTML: the dashboard, the run list and one run page, byte for byte.
	rd, err := reportWithDetails("../testdata/logs")
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Details.Close()
	out := filepath.Join(t.TempDir(), "site")
	if err := Write(context.Background(), out, []string{"html"}, rd, Options{}); err != nil {
		t.Fatal(err)
	}
	page := ""
	for _, run := range rd.Runs.All() {
		if run.ID == "1702886400000-abc123" {
			page = run.Page
		}
	}
	pages := map[string]string{"index.html": "index.html", "runs.html": "runs.html", "run-bundle.html": "runs/" + page,
		"tool-bash.html": drillPageName("tools", "Bash"), "project-session.html": drillPageName("projects", "session")}
	for name, path := range pages {
		b, err := os.ReadFile(filepath.Join(out, path))
		if err != nil {
			t.Fatal(err)
		}
		golden(t, name, b)
	}
}

func TestMarkdownText(t *testing.T) {
	for in, want := range map[string]string{
		"a|b":                       `a\|b`,
		"line1\nline2\r\n\tx":       "line1 line2 x",
		"<script>alert(1)</script>": `\<script\>alert(1)\</script\>`,
		"a & b; &amp;":              `a \& b; \&amp;`,
		"_lead and trail_":          `\_lead and trail\_`,
		"[x](javascript:alert(1))":  `\[x\](javascript:alert(1))`,
		"**bold** _it_ `code`":      "\\*\\*bold\\*\\* \\_it\\_ \\`code\\`",
		"back\\slash":               `back\\slash`,
		"bell\x07":                  "bell",
		"not_started":               "not_started",
	} {
		if got := MarkdownText(in); got != want {
			t.Errorf("MarkdownText(%q) = %q, want %q", in, got, want)
		}
	}
}

// The report renders through goldmark with GFM as tables, and text from a log
// never becomes HTML or a link.
func TestMarkdownRendersSafely(t *testing.T) {
	dir := t.TempDir()
	hostile := `{"session_id": "x|y<script>", "task_title": "<img src=x onerror=alert(1)> | [click](javascript:alert(1))",
	 "status": "success", "created_at": "2026-01-01T00:00:00Z",
	 "tool_calls": [{"call_id": "1", "tool_name": "<b>Bash</b>|\n# heading", "output": {"status": "failed", "error": "<script>window.pwned=1</script>\n| fake | row |"}}]}`
	os.WriteFile(filepath.Join(dir, "hostile.json"), []byte(hostile), 0o644)
	r := testReport(t, dir)
	var md bytes.Buffer
	if err := Markdown(&md, r, Options{}); err != nil {
		t.Fatal(err)
	}
	var html bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert(md.Bytes(), &html); err != nil {
		t.Fatal(err)
	}
	out := html.String()
	for _, bad := range []string{"<script", "<img", "<b>", "href=\"javascript", "<h1>heading"} {
		if strings.Contains(out, bad) {
			t.Errorf("rendered report contains %q", bad)
		}
	}
	if !strings.Contains(out, "&lt;b&gt;Bash&lt;/b&gt;|") && !strings.Contains(out, "&lt;b&gt;Bash&lt;/b&gt;") {
		t.Errorf("the hostile tool name is not shown as text")
	}
	// Every table row has as many cells as its header: no cell escaped its column.
	tables := strings.Count(out, "<table>")
	if tables < 5 {
		t.Errorf("only %d tables rendered", tables)
	}
	for _, tbl := range strings.Split(out, "<table>")[1:] {
		tbl = tbl[:strings.Index(tbl, "</table>")]
		head := cellRE.FindAllStringIndex(tbl[:strings.Index(tbl, "</thead>")], -1)
		for _, row := range strings.Split(tbl[strings.Index(tbl, "</thead>"):], "<tr>")[1:] {
			if n := len(cellRE.FindAllStringIndex(row, -1)); n != len(head) {
				t.Errorf("row with %d cells under %d headers: %s", n, len(head), row)
			}
		}
	}
}

var cellRE = regexp.MustCompile(`<t[hd][ >]`)

func TestWriteAtomic(t *testing.T) {
	r := testReport(t, "../testdata/logs")
	out := filepath.Join(t.TempDir(), "report")
	if err := Write(context.Background(), out, FormatNames(), r, Options{}); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if err := Write(context.Background(), out, []string{"json"}, r, Options{}); err != nil {
		t.Fatalf("replacing a previous report: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "report.md")); !os.IsNotExist(err) {
		t.Errorf("the old report.md survived a replace")
	}
	second, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if !bytes.Equal(first, second) {
		t.Errorf("same report, other bytes")
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(out), discover.TempPrefix+"*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary directories left: %v", leftovers)
	}

	foreign := filepath.Join(t.TempDir(), "mine")
	os.MkdirAll(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "thesis.tex"), []byte("precious"), 0o644)
	if err := Write(context.Background(), foreign, []string{"json"}, r, Options{}); err == nil {
		t.Fatalf("replaced a directory that is not a report")
	}
	if b, _ := os.ReadFile(filepath.Join(foreign, "thesis.tex")); string(b) != "precious" {
		t.Errorf("the foreign directory was touched")
	}
	if err := Write(context.Background(), foreign, []string{"json"}, r, Options{Force: true}); err != nil {
		t.Errorf("--force: %v", err)
	}
}

func TestHumanFormats(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct{ got, want string }{
		{Rate(nil), "n/a"}, {Rate(f(0.5)), "50.0%"}, {Rate(f(1)), "100%"}, {Rate(f(0.0004)), "0.04%"},
		{Millis(f(0.25)), "0.25 ms"}, {Millis(f(850)), "850 ms"}, {Millis(f(12345)), "12.3 s"},
		{Millis(f(125000)), "2m 05s"}, {Millis(f(7380000)), "2h 03m"}, {Millis(nil), "n/a"},
		{Millis(f(0)), "0 ms"}, {Millis(f(0.996)), "1 ms"}, {Millis(f(999.7)), "1.0 s"}, {Millis(f(59970)), "1m 00s"},
		{Millis(f(3599700)), "1h 00m"}, {Millis(f(3600000)), "1h 00m"}, {Millis(f(59940)), "59.9 s"},
		{Rate(f(0.9996)), "99.96%"}, {Rate(f(16)), "1,600%"}, {Rate(f(1.004)), "100.4%"}, {Rate(f(2.5)), "250.0%"}, {Rate(f(0.99999)), ">99.99%"}, {Rate(f(0.0000004)), "<0.01%"}, {Rate(f(0.998)), "99.8%"},
		{Count(1234567), "1,234,567"}, {Count(-1234), "-1,234"}, {Count(12), "12"},
		{CompactCount(999999), "999,999"}, {CompactCount(1_000_000), "1.00 M"}, {CompactCount(1_878_884_370), "1.88 B"},
		{CompactCount(99_950_000), "100 M"}, {CompactCount(12_345_678), "12.3 M"}, {CompactCount(4_200_000_000_000), "4.20 T"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// The dashboard's cards: none without data, counts that fit, red only for a
// broken threshold (or lost files).
func TestCards(t *testing.T) {
	dir := t.TempDir()
	// Claude Code transcripts alone: no run says success or failure, no quality.
	r := testReport(t, filepath.Join("..", "testdata", "logs", "claudecode"))
	r.Summary.Context.Tokens.Total = 1_878_884_370
	tenth := 0.1
	r.Summary.ToolCalls.ErrorRate = &tenth
	r.Summary.Check = metrics.Check(&r.Summary, []metrics.Threshold{{Metric: "tool_calls.error_rate", Max: true, Limit: 0, Kind: "rate"}})
	if err := Write(context.Background(), dir, []string{"html"}, r, Options{SingleFile: true}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, gone := range []string{`<div class="label">Success rate</div>`, `<div class="label">Quality mean</div>`} {
		if strings.Contains(page, gone) {
			t.Errorf("a card without data: %s", gone)
		}
	}
	if !strings.Contains(page, `<div class="value" title="1,878,884,370">1.88 B</div>`) {
		t.Error("the tokens card is not compacted with its exact figure on hover")
	}
	if !strings.Contains(page, `<div class="card bad"><div class="label">Tool-call error rate</div>`) {
		t.Error("the error-rate card is not red though its threshold is violated")
	}
	// One self-contained file links nothing it does not hold.
	for _, dangling := range []string{`href=""`, `echarts-LICENSE.txt`, `href="runs/`} {
		if strings.Contains(page, dangling) {
			t.Errorf("--single-file page holds %s", dangling)
		}
	}
}

// The Markdown of a transcript-only tree leaves out what it cannot have
// (steps, quality), folds long tables, and links the published dashboard.
func TestMarkdownForPullRequests(t *testing.T) {
	r := testReport(t, filepath.Join("..", "testdata", "logs", "claudecode"), filepath.Join("..", "testdata", "logs", "codex"))
	var md bytes.Buffer
	if err := Markdown(&md, r, Options{BaseURL: "https://team.example/agents/"}); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	for _, gone := range []string{"### Steps", "## Quality", "| blocked | 0 |"} {
		if strings.Contains(out, gone) {
			t.Errorf("report holds %q", gone)
		}
	}
	for _, want := range []string{"[Open the dashboard](https://team.example/agents/index.html)", "<details><summary>", "</details>"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Count(out, "<details>") != strings.Count(out, "</details>") {
		t.Error("unbalanced <details>")
	}
	// Runs open their pages on the published dashboard: the most expensive, and each error's example.
	for _, row := range r.Runs.All() {
		if row.CostUSD != nil && !strings.Contains(out, "](https://team.example/agents/runs/"+row.Page+")") {
			t.Errorf("the run %s is not linked to its page", row.ID)
		}
	}
	if e := r.Summary.Errors[0]; !strings.Contains(out, "| ["+MarkdownText(e.ExampleRun)+"](https://team.example/agents/runs/") {
		t.Errorf("the example run of %q is not linked", e.Message)
	}
	md.Reset()
	if err := Markdown(&md, r, Options{BaseURL: "javascript:alert(1)"}); err != nil || strings.Contains(md.String(), "javascript:") {
		t.Errorf("a base URL that is not http(s) was linked: %v", err)
	}
}

func reportWithDetails(root string) (*metrics.Report, error) {
	return pipeline.Report(context.Background(), pipeline.Options{Roots: []string{root}, Now: time.Unix(1767225600, 0), Jobs: 2, Settings: metrics.Settings{KeepDetails: true}})
}

// A run's page is the same whether its calls come whole or a few at a
// time, whatever chunk the cap, a failure or the timeline's end falls in.
func TestRunPageFromChunks(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	r := &model.Run{ID: "long", Format: "session", Source: "s.json", Title: "long"}
	for i := range maxPageCalls + 700 {
		c := model.ToolCall{Name: fmt.Sprint("T", i%9), Span: model.Span{Started: t0.Add(time.Duration(i) * time.Second), DurationMS: 5, HasDuration: true}, Outcome: model.OutcomeOK}
		switch {
		case i%97 == 0 || i > maxPageCalls+600:
			c.Outcome, c.Error = model.OutcomeError, fmt.Sprint("failed ", i)
		case i%13 == 0:
			c.Started = time.Time{} // untimed: not on the timeline
		case i == maxPageCalls+5:
			c.Started = t0.Add(-time.Hour) // the earliest, after the timeline's end
		}
		r.ToolCalls = append(r.ToolCalls, c)
	}
	page := func(chunk int) string {
		dir := t.TempDir()
		h := &htmlWriter{d: &Dir{root: dir}, r: &metrics.Report{}, loc: time.UTC}
		var err error
		if chunk == 0 {
			err = h.runPage(r)
		} else {
			err = h.runPageOf(r, len(r.ToolCalls), func(use func([]model.ToolCall) bool) error {
				for calls := range slices.Chunk(slices.Clone(r.ToolCalls), chunk) {
					if !use(calls) {
						break
					}
					clear(calls) // a chunk is valid until the next
				}
				return nil
			})
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "runs", metrics.RunPage(r)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	whole := page(0)
	if !strings.Contains(whole, "Listed: 2,") || !strings.Contains(whole, "chart-timeline") {
		t.Fatalf("the page lacks its note or timeline")
	}
	for _, chunk := range []int{1, 7, 300, 4096} {
		if page(chunk) != whole {
			t.Errorf("chunks of %d: another page", chunk)
		}
	}
}

// A run with more calls than a page lists shows the first ones and every
// later failure, and says so.
func TestRunPageCapsCalls(t *testing.T) {
	dir := t.TempDir()
	var calls []string
	for i := 1; i <= maxPageCalls+500; i++ {
		status := "success"
		if i == 100 || i == maxPageCalls+100 || i == maxPageCalls+200 {
			status = "failed"
		}
		calls = append(calls, fmt.Sprintf(`{"call_id":"c%d","tool_name":"T%d","duration_ms":5,"output":{"status":%q}}`, i, i, status))
	}
	doc := `{"session_id":"big","status":"success","created_at":"2026-01-01T00:00:00Z","tool_calls":[` + strings.Join(calls, ",") + `]}`
	if err := os.WriteFile(filepath.Join(dir, "big.json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := reportWithDetails(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer rep.Details.Close()
	write := func() string {
		out := filepath.Join(t.TempDir(), "r")
		if err := Write(context.Background(), out, []string{"html"}, rep, Options{}); err != nil {
			t.Fatal(err)
		}
		pages, _ := filepath.Glob(filepath.Join(out, "runs", "*.html"))
		if len(pages) != 1 {
			t.Fatalf("%d run pages", len(pages))
		}
		b, _ := os.ReadFile(pages[0])
		return string(b)
	}
	page := write()
	defer func(n int) { pageWholeCalls = n }(pageWholeCalls)
	pageWholeCalls = 100 // the page made as the calls are read
	if write() != page {
		t.Error("the page of calls read in chunks differs")
	}
	if n := strings.Count(page, `<tr><td class="num">`); n != maxPageCalls+2 {
		t.Errorf("%d call rows, want %d", n, maxPageCalls+2)
	}
	for _, want := range []string{"Listed: 2,002 of 2,500 calls", ">T2100<", ">T2200<", ">T2000<", "(3 errors)"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, ">T2001<") {
		t.Error("a successful call past the cap is listed")
	}
}

// A long run's timeline draws its first maxTimelineCalls timed calls,
// measured from the earliest timed call of all, and says so.
// Past maxTimelineCalls a run's timeline counts every timed call in bins of
// time from the earliest start, whichever call that is.
func TestTimelineOfALongRun(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	r := &model.Run{}
	for i := range maxTimelineCalls + 50 {
		c := model.ToolCall{Name: "Bash", Span: model.Span{Started: t0.Add(time.Duration(i+1) * time.Second)}, Outcome: model.OutcomeOK}
		switch i {
		case maxTimelineCalls + 10:
			c.Started = t0 // the earliest comes after the first 300
		case 7:
			c.Outcome = model.OutcomeError
		}
		r.ToolCalls = append(r.ToolCalls, c, model.ToolCall{Name: "untimed"})
	}
	tl, ok := timelineChart(r)
	if !ok {
		t.Fatal("no timeline")
	}
	// 350 s in bins of 5 s (1 s and 2 s give 150 bins or more): 71 bins.
	if want := "All 350 timed calls, counted by when they started in bins of 5.0 s from the first, stacked by outcome."; tl.Description != want {
		t.Errorf("description %q, want %q", tl.Description, want)
	}
	var opt struct {
		XAxis  []struct{ Data []string }
		Series []struct {
			Name string
			Data []struct{ Value int }
		}
	}
	if err := json.Unmarshal([]byte(tl.Option), &opt); err != nil {
		t.Fatal(err)
	}
	if len(opt.XAxis) != 1 || len(opt.XAxis[0].Data) != 71 || opt.XAxis[0].Data[0] != "+0 ms" || opt.XAxis[0].Data[1] != "+5.0 s" || opt.XAxis[0].Data[70] != "+5m 50s" {
		t.Errorf("bins %v", opt.XAxis)
	}
	sums := map[string][]int{}
	for _, s := range opt.Series {
		total := 0
		for _, d := range s.Data {
			total += d.Value
		}
		sums[s.Name] = []int{s.Data[0].Value, s.Data[1].Value, total}
	}
	// Bin 0 holds the earliest and the calls 1–4 s after it; the failed call started at 8 s.
	if want := map[string][]int{"ok": {5, 4, 349}, "error": {0, 1, 1}, "cancelled": {0, 0, 0}, "unknown": {0, 0, 0}}; !reflect.DeepEqual(sums, want) {
		t.Errorf("first bins and totals by outcome %v, want %v", sums, want)
	}
}

func TestTimelineSize(t *testing.T) {
	for _, tc := range []struct {
		calls    int
		class    string
		interval int
	}{{1, "", 0}, {13, "", 0}, {14, "tall", 0}, {23, "tall", 0}, {24, "taller", 0}, {53, "taller", 0},
		{54, "tallest", 0}, {93, "tallest", 0}, {94, "tallest", 1}, {186, "tallest", 1}, {187, "tallest", 2}, {300, "tallest", 3}} {
		if class, interval := timelineSize(tc.calls); class != tc.class || interval != tc.interval {
			t.Errorf("%d calls: %q, interval %d; want %q, %d", tc.calls, class, interval, tc.class, tc.interval)
		}
	}
}

// Periods with runs that are not next to each other have a gap between
// them, by day, by week and by month (over a year's end); next ones do not.
func TestPeriodsMarkGaps(t *testing.T) {
	rows := func(dates ...string) (out []metrics.DayRow) {
		for _, d := range dates {
			out = append(out, metrics.DayRow{Date: d, Runs: 1})
		}
		return out
	}
	labels := func(ps []period) (out []string) {
		for _, p := range ps {
			out = append(out, p.label)
		}
		return out
	}
	unit, ps := periods(rows("2026-01-30", "2026-01-31", "2026-02-01", "2026-02-04"))
	if want := []string{"2026-01-30", "2026-01-31", "2026-02-01", gapLabel, "2026-02-04"}; unit != "day" || !slices.Equal(labels(ps), want) {
		t.Errorf("days: %s %v, want %v", unit, labels(ps), want)
	}
	var weekly []string // 200 days: every day of 26 weeks, then one day 3 weeks on
	for d := time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC); len(weekly) < 200; d = d.AddDate(0, 0, 1) {
		weekly = append(weekly, d.Format(time.DateOnly))
	}
	weekly = append(weekly, "2026-07-15")
	unit, ps = periods(rows(weekly...))
	got := labels(ps)
	if unit != "week" || got[0] != "2025-12-01" || got[len(got)-2] != gapLabel || got[len(got)-1] != "2026-07-13" || slices.Index(got, gapLabel) != len(got)-2 {
		t.Errorf("weeks: %s %v", unit, got)
	}
	var monthly []string // 1,300 days from 2023-01-01: months up to 2026-07, then 2026-12
	for d := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC); len(monthly) < 1300; d = d.AddDate(0, 0, 1) {
		monthly = append(monthly, d.Format(time.DateOnly))
	}
	monthly = append(monthly, "2026-12-31")
	unit, ps = periods(rows(monthly...))
	got = labels(ps)
	if unit != "month" || slices.Contains(got[:len(got)-2], gapLabel) || got[len(got)-2] != gapLabel || got[len(got)-1] != "2026-12" {
		t.Errorf("months: %s %v", unit, got)
	}
}

// An error's example run links to the last run of its source and id among
// the first n (the workbook's sheet ends at maxSheetRows), as a map of
// every run, overwritten in index order, did.
func TestExampleRuns(t *testing.T) {
	runs := metrics.NewRunIndex(
		metrics.RunRow{Source: "a", ID: "1", Page: "p0"},
		metrics.RunRow{Source: "a", ID: "2", Page: "p1"},
		metrics.RunRow{Source: "a", ID: "1", Page: "p2"},
		metrics.RunRow{Source: "b", ID: "1", Page: "p3"},
		metrics.RunRow{Source: "a", ID: "1", Page: "p4"},
	)
	errs := []metrics.ErrorRow{{ExampleSource: "a", ExampleRun: "1"}, {ExampleSource: "b", ExampleRun: "1"}, {ExampleSource: "c", ExampleRun: "1"}}
	for n, want := range map[int]map[runKey]int{
		5: {{"a", "1"}: 4, {"b", "1"}: 3},
		4: {{"a", "1"}: 2, {"b", "1"}: 3},
		1: {{"a", "1"}: 0},
		0: {},
	} {
		if got := exampleRuns(runs, errs, n); !maps.Equal(got, want) {
			t.Errorf("first %d: %v, want %v", n, got, want)
		}
	}
	if got := exampleRuns(nil, errs, 0); len(got) != 0 {
		t.Errorf("no index: %v", got)
	}
}

// The Parquet tables are the same whether a run's calls come whole or
// from the spill a chunk at a time.
func TestTablesChunked(t *testing.T) {
	defer func(n int) { tableChunk = n }(tableChunk)
	var dirs []string
	for _, chunk := range []int{4096, 1} {
		tableChunk = chunk
		r, err := reportWithDetails(filepath.Join("..", "testdata", "logs"))
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "tables")
		err = Tables(context.Background(), out, r.Details, time.UTC, TablesOptions{})
		r.Details.Close()
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, out)
	}
	files := 0
	err := filepath.WalkDir(dirs[0], func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dirs[0], p)
		a, _ := os.ReadFile(p)
		b, err := os.ReadFile(filepath.Join(dirs[1], rel))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs with calls a chunk at a time (%v)", rel, err)
		}
		files++
		return nil
	})
	if err != nil || files < 5 {
		t.Fatalf("%d files compared: %v", files, err)
	}
}

// The export's zstd (a 1 MB window) writes the bytes parquet-go's own does
// for any page (at most 256 KB), and what it writes of more decodes back.
func TestPageZstd(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	words := []string{"Read", "Bash", "error", "exit code 1", "2026-03-01T10:00:00Z", "日志", "\x00\x01"}
	for _, size := range []int{0, 1, 100, 64 << 10, 256 << 10, 3 << 20} {
		var src []byte
		for len(src) < size {
			src = append(src, words[rng.IntN(len(words))]...)
		}
		src = src[:size]
		got, err := pageZstd.Encode(nil, src)
		if err != nil {
			t.Fatal(err)
		}
		if size <= 256<<10 {
			want, _ := parquet.Zstd.Encode(nil, src)
			if !bytes.Equal(got, want) {
				t.Errorf("%d bytes: %d compressed, parquet-go's %d, or other bytes", size, len(got), len(want))
			}
		}
		back, err := pageZstd.Decode(nil, got)
		if err != nil || !bytes.Equal(back, src) {
			t.Errorf("%d bytes: decoded %d bytes (%v)", size, len(back), err)
		}
	}
}

// Trend charts give a figure of another scale an axis of its own: runs
// beside tool calls, run p95 beside tool-call p95.
func TestTrendAxes(t *testing.T) {
	one := func(runs, calls, runP95, callP95 float64) metrics.HistoryEntry {
		return metrics.HistoryEntry{Schema: metrics.HistorySchema, GeneratedAt: "2026-01-01T00:00:00Z",
			Figures: map[string]*float64{"runs": &runs, "tool_calls": &calls, "run_p95_ms": &runP95, "tool_call_p95_ms": &callP95}}
	}
	charts := trendCharts([]metrics.HistoryEntry{one(10, 5000, 600000, 200), one(12, 6000, 500000, 300)})
	for _, c := range charts {
		var opt struct {
			YAxis  []struct{ Name string } `json:"yAxis"`
			Series []struct {
				Name       string `json:"name"`
				YAxisIndex int    `json:"yAxisIndex"`
			} `json:"series"`
		}
		if err := json.Unmarshal([]byte(c.Option), &opt); err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		switch c.ID {
		case "chart-trend-volume", "chart-trend-p95":
			if len(opt.YAxis) != 2 || len(opt.Series) != 2 || opt.Series[0].YAxisIndex != 0 || opt.Series[1].YAxisIndex != 1 {
				t.Errorf("%s: axes %+v, series %+v", c.ID, opt.YAxis, opt.Series)
			}
		default:
			if len(opt.YAxis) != 1 {
				t.Errorf("%s: %d axes", c.ID, len(opt.YAxis))
			}
		}
	}
}

// Every href and src of every page of a report resolves to a file inside
// the output directory (a fragment is a view of the page it follows).
func TestLinksResolve(t *testing.T) {
	out := filepath.Join(t.TempDir(), "site")
	r, err := reportWithDetails(filepath.Join("..", "testdata", "logs"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Details.Close()
	if err := Write(context.Background(), out, FormatNames(), r, Options{}); err != nil {
		t.Fatal(err)
	}
	attr := regexp.MustCompile(`(?:href|src)="([^"]*)"`)
	pages, links := 0, 0
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		pages++
		b, _ := os.ReadFile(p)
		for _, m := range attr.FindAllSubmatch(b, -1) {
			link := html.UnescapeString(string(m[1]))
			links++
			if link == "" || strings.Contains(link, "://") || strings.HasPrefix(link, "/") || strings.HasPrefix(link, "data:") {
				t.Errorf("%s: link %q does not stay in the report", p, link)
				continue
			}
			file, _, _ := strings.Cut(link, "#")
			file, _, _ = strings.Cut(file, "?")
			if file == "" {
				continue // a fragment of the page itself
			}
			target := filepath.Join(filepath.Dir(p), filepath.FromSlash(file))
			if rel, err := filepath.Rel(out, target); err != nil || strings.HasPrefix(rel, "..") {
				t.Errorf("%s: link %q leaves the report", p, link)
			} else if _, err := os.Stat(target); err != nil {
				t.Errorf("%s: link %q does not resolve", p, link)
			}
		}
		return nil
	})
	if pages < r.Runs.Len() || links < 3*pages {
		t.Errorf("%d pages, %d links checked", pages, links)
	}
}

// A run page's subagents, each with its requests priced by hand: Sonnet 4.5
// at $3 a million input tokens and $15 a million output tokens.
func TestSubagentCost(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	r := &model.Run{ID: "s", Format: "claudecode", Source: "s.jsonl", Context: model.Context{Subagents: []model.Subagent{
		{Type: "Explore", Calls: 3, Tokens: 110_000, Requests: model.Requests{
			{Model: "claude-sonnet-4-5", At: at, Tokens: model.Tokens{Input: 100_000}},
			{Model: "claude-sonnet-4-5", At: at, Tokens: model.Tokens{Output: 10_000}}}}, // $0.30 + $0.15, both under the 200k tier
		{Type: "Plan", Calls: 1, Tokens: 10, Requests: model.Requests{{Model: "no-such-model", At: at, Tokens: model.Tokens{Input: 10}}}},
		{Type: "session", Calls: 2, Tokens: 500}, // a log that tells no requests
	}}}
	dir := t.TempDir()
	h := &htmlWriter{d: &Dir{root: dir}, r: &metrics.Report{}, loc: time.UTC}
	if err := h.runPage(r); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "runs", metrics.RunPage(r)))
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{
		`<tr><td class="text">Explore</td><td class="num">3</td><td class="num">2</td><td class="num">110,000</td><td class="num">$0.4500</td></tr>`,
		`<tr><td class="text">Plan</td><td class="num">1</td><td class="num">1</td><td class="num">10</td><td class="num">n/a</td></tr>`,
		`<tr><td class="text">session</td><td class="num">2</td><td class="num">n/a</td><td class="num">500</td><td class="num">n/a</td></tr>`,
	} {
		if !strings.Contains(string(b), row) {
			t.Errorf("the page lacks the row %s", row)
		}
	}
}

package render

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/agentstat/agentstat/metrics"
)

// browser starts headless Chromium (Debian's chromium) for one test. With
// AGENTSTAT_REQUIRE_BROWSER set (CI sets it) a missing browser fails the
// test instead of skipping it.
func browser(t *testing.T) (context.Context, *pageLog) {
	t.Helper()
	path := ""
	for _, p := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if found, err := exec.LookPath(p); err == nil {
			path = found
			break
		}
	}
	if path == "" {
		if os.Getenv("AGENTSTAT_REQUIRE_BROWSER") != "" {
			t.Fatal("no chromium on PATH (apt-get install chromium)")
		}
		t.Skip("no chromium on PATH: browser tests skipped (apt-get install chromium)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true), chromedp.Flag("no-first-run", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 2000),
		chromedp.Env("TMPDIR="+t.TempDir())) // Chromium leaves an org.chromium.Chromium.* directory there
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	pl := &pageLog{}
	err := chromedp.Listen(ctx, func(ev any) {
		pl.mu.Lock()
		defer pl.mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				pl.errors = append(pl.errors, "console: "+strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			pl.errors = append(pl.errors, "exception: "+e.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError {
				pl.errors = append(pl.errors, "log: "+e.Entry.Text)
			}
		case *network.EventRequestWillBeSent:
			pl.requests = append(pl.requests, e.Request.URL)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	// Network off: nothing may leave the machine; file:// pages need nothing else.
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.OverrideNetworkState, network.OverrideNetworkStateParams{Offline: true, DownloadThroughput: -1, UploadThroughput: -1}); err != nil {
		t.Fatal(err)
	}
	return ctx, pl
}

func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// open loads a file and waits for its charts to be drawn.
func open(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	do(t, ctx, chromedp.Navigate(fileURL(path)), chromedp.WaitReady("body"), chromedp.Sleep(400*time.Millisecond))
}

type pageLog struct {
	mu       sync.Mutex
	errors   []string
	requests []string
}

func (p *pageLog) check(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.errors {
		t.Errorf("browser: %s", e)
	}
	for _, r := range p.requests {
		// data: is the browser's own (a date input's calendar icon), never a fetch.
		if !strings.HasPrefix(r, "file://") && !strings.HasPrefix(r, "data:") {
			t.Errorf("request that is not file://: %s", r)
		}
	}
	p.errors, p.requests = nil, nil
}

func fileURL(p string) string {
	abs, _ := filepath.Abs(p)
	return (&url.URL{Scheme: "file", Path: abs}).String()
}

// chartsDrawn counts chart containers and those holding a canvas.
const chartsDrawn = `(() => { const c = [...document.querySelectorAll('.chart')]; return [c.length, c.filter(e => e.querySelector('canvas')).length]; })()`

func TestDashboardInBrowser(t *testing.T) {
	ctx, pl := browser(t)
	out := filepath.Join(t.TempDir(), "site")
	r2, err := reportWithDetails("../testdata/logs")
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Details.Close()
	if err := Write(context.Background(), out, FormatNames(), r2, Options{}); err != nil {
		t.Fatal(err)
	}

	open(t, ctx, filepath.Join(out, "index.html"))
	drawn := eval[[]int](t, ctx, chartsDrawn)
	links := eval[[]string](t, ctx, `[...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href'))`)
	if len(drawn) != 2 || drawn[0] < 10 || drawn[0] != drawn[1] {
		t.Errorf("charts on index.html: %v (containers, drawn)", drawn)
	}
	runLinks := 0
	for _, l := range links {
		if strings.Contains(l, "://") || strings.HasPrefix(l, "/") {
			t.Errorf("link is not relative: %s", l)
			continue
		}
		file, _, _ := strings.Cut(l, "#") // a fragment is the run list's view
		if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(file))); err != nil {
			t.Errorf("link does not resolve: %s", l)
		}
		if strings.HasPrefix(l, "runs/") {
			runLinks++
		}
	}
	if runLinks < r2.Runs.Len() {
		t.Errorf("%d run links for %d runs", runLinks, r2.Runs.Len())
	}
	pl.check(t)

	// Every category of a chart of counts by name has its label (ECharts hides
	// every other label of a crowded axis); only dates may be thinned.
	hidden := eval[[]string](t, ctx, `[...document.querySelectorAll('.chart')].flatMap(el => {
		const x = echarts.getInstanceByDom(el).getModel().getComponent('xAxis', 0);
		if (!x || x.axis.type !== 'category' || /per-day|trend/.test(el.id)) return [];
		const shown = x.axis.getViewLabels().length, all = x.axis.scale.getOrdinalMeta().categories.length;
		return shown < all ? [el.id + ': ' + shown + ' of ' + all] : [];
	})`)
	if len(hidden) > 0 {
		t.Errorf("charts with hidden category labels: %v", hidden)
	}

	// Every chart's tooltip shows, markers and all, within the page's CSP.
	shown := eval[int](t, ctx, `[...document.querySelectorAll('.chart')].filter(el => {
		const c = echarts.getInstanceByDom(el);
		c.dispatchAction({type: 'showTip', seriesIndex: 0, dataIndex: 0});
		return true;
	}).length`)
	do(t, ctx, chromedp.Sleep(300*time.Millisecond))
	markers := eval[int](t, ctx, `[...document.querySelectorAll('.chart div')].filter(d => d.style && d.style.position === 'absolute' && d.innerHTML.includes('border-radius')).length`)
	if shown == 0 || markers == 0 {
		t.Errorf("%d charts asked to show a tooltip, %d tooltips with markers", shown, markers)
	}
	pl.check(t)

	// Sorting a table by clicking its header works without any external script.
	do(t, ctx, chromedp.Click(`table.sortable th:nth-child(3)`, chromedp.NodeVisible),
		chromedp.Click(`table.sortable th:nth-child(3)`, chromedp.NodeVisible))
	first := eval[[]string](t, ctx, `[...document.querySelector('table.sortable').tBodies[0].rows].slice(0,2).map(r => r.cells[2].textContent)`)
	if len(first) != 2 || first[0] != "11" || first[1] != "4" { // Formats: session 11, structmsg 4
		t.Errorf("sorted by runs, descending: %v", first)
	}

	// A run page: its timeline is drawn.
	page := ""
	for _, run := range r2.Runs.All() {
		if run.ID == "1702886400000-abc123" {
			page = run.Page
		}
	}
	open(t, ctx, filepath.Join(out, "runs", page))
	if drawn = eval[[]int](t, ctx, chartsDrawn); len(drawn) != 2 || drawn[0] != 1 || drawn[1] != 1 {
		t.Errorf("run page charts: %v", drawn)
	}
	open(t, ctx, filepath.Join(out, "runs.html"))
	pl.check(t)
}

func TestSingleFileInBrowser(t *testing.T) {
	ctx, pl := browser(t)
	out := filepath.Join(t.TempDir(), "site")
	if err := Write(context.Background(), out, []string{"html"}, testReport(t, "../testdata/logs"), Options{SingleFile: true}); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if e.Name() != "index.html" && !strings.HasPrefix(e.Name(), ".") {
			t.Errorf("--single-file wrote %s", e.Name())
		}
	}
	open(t, ctx, filepath.Join(out, "index.html"))
	if drawn := eval[[]int](t, ctx, chartsDrawn); len(drawn) != 2 || drawn[0] < 10 || drawn[0] != drawn[1] {
		t.Errorf("charts: %v", drawn)
	}
	pl.check(t)
}

// hostileSession is a log whose every text field tries to run a script.
const hostileSession = `{
 "session_id": "../../etc/passwd<script>window.__pwned=1</script>",
 "task_title": "<script>window.__pwned=2</script>\"><img src=x onerror=\"window.__pwned=3\">",
 "user_prompt": "javascript:window.__pwned=4 <iframe src=javascript:window.__pwned=5>",
 "status": "success", "created_at": "2026-01-01T00:00:00Z", "completed_at": "2026-01-01T00:01:00Z",
 "agent": {"name": "<svg onload=window.__pwned=6>", "model_id": "'\"><script>window.__pwned=7</script>"},
 "tool_calls": [{"call_id": "1", "tool_name": "<img src=x onerror=window.__pwned=8>", "started_at": "2026-01-01T00:00:01Z", "duration_ms": 5,
   "output": {"status": "failed", "error": "</script><script>window.__pwned=9</script>"}}],
 "summary": "# Done\n\n[click me](javascript:window.__pwned=10) <script>window.__pwned=11</script>\n\n<img src=x onerror=window.__pwned=12>\n\n**bold**"
}`

func TestHostileTextInBrowser(t *testing.T) {
	ctx, pl := browser(t)
	logs := t.TempDir()
	os.WriteFile(filepath.Join(logs, "hostile.json"), []byte(hostileSession), 0o644)
	r, err := reportWithDetails(logs)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Details.Close()
	out := filepath.Join(t.TempDir(), "site")
	if err := Write(context.Background(), out, FormatNames(), r, Options{}); err != nil {
		t.Fatal(err)
	}
	page := r.Runs.At(0).Page
	if strings.ContainsAny(page, "/\\<>\"'") || strings.HasPrefix(page, ".") {
		t.Errorf("unsafe page name %q", page)
	}
	for _, p := range []string{"index.html", "runs/" + page, "runs.html"} {
		open(t, ctx, filepath.Join(out, p))
		pwned := eval[bool](t, ctx, `window.__pwned !== undefined`)
		text := eval[string](t, ctx, `document.body.innerText`)
		jsLinks := eval[int](t, ctx, `document.querySelectorAll('a[href^="javascript"], iframe, img[src="x"], svg[onload]').length`)
		if pwned {
			t.Errorf("%s: a script from the log ran", p)
		}
		if jsLinks != 0 {
			t.Errorf("%s: %d live elements from the log", p, jsLinks)
		}
		if !strings.Contains(text, "<script>window.__pwned=2</script>") {
			t.Errorf("%s: the hostile title is not shown as text", p)
		}
	}
	open(t, ctx, filepath.Join(out, "runs", page))
	summary := eval[string](t, ctx, `document.querySelector('.markdown').innerHTML`)
	if !strings.Contains(summary, "<strong>bold</strong>") || strings.Contains(summary, "<script") || strings.Contains(summary, "javascript:") {
		t.Errorf("summary Markdown: %s", summary)
	}
	pl.mu.Lock()
	// The only errors allowed are the browser refusing the log's own content, never ours.
	var rest []string
	for _, e := range pl.errors {
		if !strings.Contains(e, "Content Security Policy") {
			rest = append(rest, e)
		}
	}
	pl.errors = rest
	pl.mu.Unlock()
	pl.check(t)
}

// The log-scale duration chart spans its values when a tool's durations
// round to 0 ms (ECharts sets a log axis holding a zero to 1–10, so every
// bar ran off the top) or lie under 1 ms (bars grew down from 1).
func TestLogAxisInBrowser(t *testing.T) {
	ctx, pl := browser(t)
	out, _ := sessionSite(t, `{"call_id": "1", "tool_name": "zero", "duration_ms": 0, "output": {"status": "success"}},
		{"call_id": "2", "tool_name": "tiny", "duration_ms": 0.4, "output": {"status": "success"}},
		{"call_id": "3", "tool_name": "slow", "duration_ms": 90000, "output": {"status": "success"}}`)
	open(t, ctx, filepath.Join(out, "index.html"))
	// The axis's extent as drawn (in ms), its bottom in pixels, and where the
	// p95 bars of tiny and slow start and end (bars go up: y is the base).
	got := eval[[]float64](t, ctx, `(() => {
		const c = echarts.getInstanceByDom(document.getElementById('chart-tool-durations'));
		const e = c.getModel().getComponent('yAxis', 0).axis.scale.getExtent();
		const bar = i => c.getModel().getSeriesByIndex(1).getData().getItemLayout(i);
		const slow = bar(0), tiny = bar(1);
		return [e[0], e[1], c.convertToPixel({yAxisIndex: 0}, e[0]), tiny.y, tiny.y + tiny.height, slow.y, slow.y + slow.height];
	})()`)
	if len(got) != 7 {
		t.Fatalf("chart: %v", got)
	}
	if low, high := got[0], got[1]; low > 0.4 || high < 90000 {
		t.Errorf("log axis spans %g to %g ms, not 0.4 to 90,000", low, high)
	}
	bottom, tinyBase, tinyTop, slowBase, slowTop := got[2], got[3], got[4], got[5], got[6]
	if math.Abs(tinyBase-bottom) > 1 || math.Abs(slowBase-bottom) > 1 || !(slowTop < tinyTop && tinyTop < bottom-1) {
		t.Errorf("bars: axis bottom at %g px; tiny %g to %g, slow %g to %g", bottom, tinyBase, tinyTop, slowBase, slowTop)
	}
	pl.check(t)
}

// A long run's timeline labels its calls at least 14 px apart: 150 labels
// forced into one chart overlapped into an unreadable column.
func TestTimelineLabelsInBrowser(t *testing.T) {
	ctx, pl := browser(t)
	var calls []string
	for i := range 150 {
		calls = append(calls, fmt.Sprintf(`{"call_id": "%d", "tool_name": "Bash", "started_at": "2026-03-01T10:%02d:%02dZ", "duration_ms": 900, "output": {"status": "success"}}`, i, i/60, i%60))
	}
	out, page := sessionSite(t, strings.Join(calls, ","))
	open(t, ctx, filepath.Join(out, "runs", page))
	// The pixel positions of the labels drawn, from the top.
	ys := eval[[]float64](t, ctx, `(() => {
		const c = echarts.getInstanceByDom(document.getElementById('chart-timeline'));
		const axis = c.getModel().getComponent('yAxis', 0).axis;
		return axis.getViewLabels().map(l => axis.dataToCoord(l.tickValue));
	})()`)
	if len(ys) < 50 {
		t.Fatalf("%d labels for 150 calls", len(ys))
	}
	for i := 1; i < len(ys); i++ {
		if gap := math.Abs(ys[i] - ys[i-1]); gap < 14 {
			t.Fatalf("labels %d and %d are %.1f px apart", i-1, i, gap)
		}
	}
	pl.check(t)
}

// sessionSite writes the HTML report of one session log holding calls (JSON
// objects, comma-separated) and returns its directory and the run's page.
func sessionSite(t *testing.T, calls string) (out, page string) {
	t.Helper()
	logs := t.TempDir()
	os.WriteFile(filepath.Join(logs, "s.json"), []byte(`{"session_id": "s", "status": "success", "created_at": "2026-03-01T10:00:00Z", "tool_calls": [`+calls+`]}`), 0o644)
	r, err := reportWithDetails(logs)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Details.Close()
	out = filepath.Join(t.TempDir(), "site")
	if err := Write(context.Background(), out, []string{"html"}, r, Options{}); err != nil {
		t.Fatal(err)
	}
	return out, r.Runs.At(0).Page
}

// At a phone's width a table keeps its words whole and scrolls sideways
// in its container, rather than breaking a tool or format name mid-word.
func TestNarrowTablesInBrowser(t *testing.T) {
	ctx, pl := browser(t)
	out := filepath.Join(t.TempDir(), "site")
	if err := Write(context.Background(), out, []string{"html"}, testReport(t, "../testdata/logs"), Options{}); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, chromedp.EmulateViewport(400, 900))
	open(t, ctx, filepath.Join(out, "index.html"))
	got := eval[[]string](t, ctx, `(() => {
		const broken = [];
		for (const td of document.querySelectorAll('td.text')) {
			const text = td.textContent;
			if (!/^[A-Za-z0-9_]{1,40}$/.test(text)) continue; // a word: hyphens, slashes and CJK may break
			const r = document.createRange();
			r.selectNodeContents(td);
			const lines = new Set([...r.getClientRects()].map(x => Math.round(x.top)));
			if (lines.size > 1) broken.push(text);
		}
		const scrolls = [...document.querySelectorAll('.scroll')].some(s => s.scrollWidth > s.clientWidth);
		return [String(scrolls), ...broken];
	})()`)
	if len(got) == 0 || got[0] != "true" {
		t.Errorf("no table scrolls sideways at 400 px: %v", got)
	}
	if len(got) > 1 {
		t.Errorf("words broken across lines at 400 px: %v", got[1:])
	}
	pl.check(t)
}

// Trend charts draw, a figure of another scale on an axis of its own.
func TestTrendsInBrowser(t *testing.T) {
	ctx, pl := browser(t)
	out := filepath.Join(t.TempDir(), "site")
	r := testReport(t, "../testdata/logs")
	first, second := metrics.EntryOf(&r.Summary), metrics.EntryOf(&r.Summary)
	calls := *second.Figures["tool_calls"] * 40
	second.Figures["tool_calls"] = &calls
	r.History = []metrics.HistoryEntry{first, second}
	if err := Write(context.Background(), out, []string{"html"}, r, Options{}); err != nil {
		t.Fatal(err)
	}
	open(t, ctx, filepath.Join(out, "index.html"))
	axes := eval[[]int](t, ctx, `['chart-trend-volume', 'chart-trend-p95', 'chart-trend-rates'].map(id =>
		echarts.getInstanceByDom(document.getElementById(id)).getModel().getComponent('yAxis', 1) ? 2 : 1)`)
	if len(axes) != 3 || axes[0] != 2 || axes[1] != 2 || axes[2] != 1 {
		t.Errorf("trend charts' y axes: %v, want [2 2 1]", axes)
	}
	pl.check(t)
}

// The list of every run: a search keeps only matching rows, a filter
// narrows them, the view is in the URL and comes back on reload, sorting
// covers every run, and a row's link opens its run page.
func TestRunListInBrowser(t *testing.T) {
	ctx, pl := browser(t)
	out := filepath.Join(t.TempDir(), "site")
	r, err := reportWithDetails("../testdata/logs")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Details.Close()
	if err := Write(context.Background(), out, []string{"html"}, r, Options{}); err != nil {
		t.Fatal(err)
	}
	open(t, ctx, filepath.Join(out, "runs.html"))
	rows := `[...document.querySelectorAll('#rl-table tbody tr')].map(r => r.cells[0].textContent)`
	// The static list is for browsers without scripts: here it is never parsed.
	if n := len(eval[[]string](t, ctx, rows)); n != r.Runs.Len() || eval[bool](t, ctx, `document.getElementById('static-runs') !== null`) {
		t.Fatalf("%d rows of %d runs; the static list in the page: %v", n, r.Runs.Len(), eval[bool](t, ctx, `document.getElementById('static-runs') !== null`))
	}
	// Part of a title.
	do(t, ctx, chromedp.SendKeys(`#rl-q`, "checkout"), chromedp.Sleep(400*time.Millisecond))
	if got := eval[[]string](t, ctx, rows); len(got) != 1 || got[0] != "/review the checkout flow" {
		t.Errorf("search for checkout: %v", got)
	}
	// A tool name and a status: Edit was cancelled in one run, failed in others.
	set := func(id, value, event string) {
		eval[bool](t, ctx, `(() => { const e = document.getElementById('`+id+`'); e.value = '`+value+`'; e.dispatchEvent(new Event('`+event+`')); return true; })()`)
		do(t, ctx, chromedp.Sleep(400*time.Millisecond))
	}
	set("rl-q", "edit", "input")
	all := eval[[]string](t, ctx, rows)
	status := eval[string](t, ctx, `document.querySelector('#rl-table tbody tr').cells[1].textContent`)
	set("rl-status", status, "change")
	failed := eval[[]string](t, ctx, rows)
	statuses := eval[[]string](t, ctx, `[...document.querySelectorAll('#rl-table tbody tr')].map(r => r.cells[1].textContent)`)
	if len(all) < 2 || len(failed) == 0 || len(failed) >= len(all) || slices.ContainsFunc(statuses, func(s string) bool { return s != status }) {
		t.Errorf("edit: %d runs, %d of them %s: %v", len(all), len(failed), status, statuses)
	}
	hash := eval[string](t, ctx, `location.hash`)
	if !strings.Contains(hash, "q=edit") || !strings.Contains(hash, "status="+status) {
		t.Errorf("the view is not in the URL: %q", hash)
	}
	// The URL with its fragment gives the same view.
	do(t, ctx, chromedp.Navigate(fileURL(filepath.Join(out, "runs.html"))+hash), chromedp.WaitReady("body"), chromedp.Sleep(400*time.Millisecond))
	if again := eval[[]string](t, ctx, rows); !slices.Equal(again, failed) || eval[string](t, ctx, `document.getElementById('rl-q').value`) != "edit" {
		t.Errorf("reloaded %q: %v, want %v", hash, again, failed)
	}
	// Sorting by tokens covers every run, not a page of them.
	do(t, ctx, chromedp.Navigate(fileURL(filepath.Join(out, "runs.html"))), chromedp.WaitReady("body"), chromedp.Sleep(300*time.Millisecond),
		chromedp.Click(`#rl-table th:nth-child(9)`, chromedp.NodeVisible), chromedp.Sleep(200*time.Millisecond))
	top := eval[[]string](t, ctx, `[...document.querySelectorAll('#rl-table tbody tr')].slice(0, 1).map(r => r.cells[8].textContent)`)
	if len(top) != 1 || top[0] != "83,492" {
		t.Errorf("most tokens first: %v", top)
	}
	// A run's link opens its page.
	href := eval[string](t, ctx, `document.querySelector('#rl-table tbody a').getAttribute('href')`)
	if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(href))); err != nil || !strings.HasPrefix(href, "runs/") {
		t.Errorf("run link %q: %v", href, err)
	}
	// From the dashboard's Bash row to its page, on to the runs where Bash failed, and to one of them.
	open(t, ctx, filepath.Join(out, "index.html"))
	page := eval[string](t, ctx, `[...document.querySelectorAll('a')].find(a => a.textContent === 'Bash').getAttribute('href')`)
	open(t, ctx, filepath.Join(out, filepath.FromSlash(page)))
	if text := eval[string](t, ctx, `document.body.innerText`); !strings.Contains(text, "Tool: Bash") || !strings.Contains(text, "exit status <n>") {
		t.Errorf("the tool page %s does not show Bash and its errors", page)
	}
	worst := eval[[]string](t, ctx, `[...document.querySelectorAll('h3')].find(h => h.textContent === 'Runs where it failed most').nextElementSibling.querySelectorAll('tbody a')`+
		`.values().map(a => a.getAttribute('href')).toArray()`)
	link := eval[string](t, ctx, `[...document.querySelectorAll('a')].find(a => a.textContent === 'Runs where it failed').getAttribute('href')`)
	file, frag, _ := strings.Cut(link, "#")
	do(t, ctx, chromedp.Navigate(fileURL(filepath.Join(out, "tools", filepath.FromSlash(file)))+"#"+frag), chromedp.WaitReady("body"), chromedp.Sleep(400*time.Millisecond))
	listed := eval[[]string](t, ctx, `[...document.querySelectorAll('#rl-table tbody a')].map(a => a.getAttribute('href'))`)
	errCounts := eval[[]string](t, ctx, `[...document.querySelectorAll('#rl-table tbody tr')].map(r => r.cells[7].textContent)`)
	if len(listed) != 2 || slices.Contains(errCounts, "0") || eval[string](t, ctx, `document.getElementById('rl-failed').textContent`) != "Bash" {
		t.Errorf("runs where Bash failed, from %q: %v (errors %v)", link, listed, errCounts)
	}
	for _, w := range worst {
		if !slices.Contains(listed, strings.TrimPrefix(w, "../")) {
			t.Errorf("the tool page lists %s among Bash's failures, the run list does not: %v", w, listed)
		}
	}
	do(t, ctx, chromedp.Click(`#rl-table tbody a`, chromedp.NodeVisible), chromedp.WaitReady("body"), chromedp.Sleep(300*time.Millisecond))
	if calls := eval[string](t, ctx, `document.body.innerText`); !strings.Contains(calls, "Bash") || !strings.Contains(calls, "error") {
		t.Errorf("the run page does not show the failed Bash call")
	}
	// An error message opens every run where it occurred: its two calls failed in two runs.
	open(t, ctx, filepath.Join(out, "index.html"))
	link = eval[string](t, ctx, `[...document.querySelectorAll('a')].find(a => a.textContent === 'HTTP <n> for <path>').getAttribute('href')`)
	file, frag, _ = strings.Cut(link, "#")
	do(t, ctx, chromedp.Navigate(fileURL(filepath.Join(out, file))+"#"+frag), chromedp.WaitReady("body"), chromedp.Sleep(400*time.Millisecond))
	if got := eval[[]string](t, ctx, rows); len(got) != 2 || eval[string](t, ctx, `document.getElementById('rl-error').textContent`) != "HTTP <n> for <path>" {
		t.Errorf("runs with the error HTTP <n> for <path>, from %q: %v", link, got)
	}
	pl.check(t)
}

// TestRunListSpeed measures the run list of a large report in headless
// Chromium: the time until the list is shown, a search, a sort over every
// run. A measurement, not a timed test: it runs only when
// AGENTSTAT_RUNLIST_SITE names a report directory (BENCHMARKS.md, "The run
// list"), and logs what it measured.
func TestRunListSpeed(t *testing.T) {
	site := os.Getenv("AGENTSTAT_RUNLIST_SITE")
	if site == "" {
		t.Skip("AGENTSTAT_RUNLIST_SITE names no report")
	}
	ctx, pl := browser(t)
	for round := range 3 {
		do(t, ctx, chromedp.Navigate("about:blank"))
		start := time.Now()
		do(t, ctx, chromedp.Navigate(fileURL(filepath.Join(site, "runs.html"))), chromedp.Poll[chromedp.Void](`document.getElementById('rl-count').textContent !== ''`))
		shown := time.Since(start)
		search := eval[float64](t, ctx, `(() => { const q = document.getElementById('rl-q'); q.value = 'session 42';
			const t0 = performance.now(); document.getElementById('rl-form').dispatchEvent(new Event('submit', {cancelable: true})); return performance.now() - t0; })()`)
		again := eval[float64](t, ctx, `(() => { const q = document.getElementById('rl-q'); q.value = 'bash';
			const t0 = performance.now(); document.getElementById('rl-form').dispatchEvent(new Event('submit', {cancelable: true})); return performance.now() - t0; })()`)
		sort := eval[float64](t, ctx, `(() => { document.getElementById('rl-q').value = ''; const th = document.querySelector('#rl-table th:nth-child(9)');
			const t0 = performance.now(); th.click(); return performance.now() - t0; })()`)
		t.Logf("round %d: %s runs shown in %v; first search %.0f ms, next %.0f ms; sort by tokens %.0f ms", round+1,
			eval[string](t, ctx, `document.getElementById('rl-count').textContent`), shown.Round(time.Millisecond), search, again, sort)
	}
	pl.check(t)
}

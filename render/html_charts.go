package render

import (
	"encoding/json"
	"fmt"
	"math"
	"time"
	"unicode/utf8"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/agentstat/agentstat/metrics"
	"github.com/agentstat/agentstat/model"
)

// chartView is one chart on a page: its ECharts option as JSON, carried in a
// data attribute (html/template escapes it) and drawn by assets/agentstat.js.
type chartView struct {
	ID, Title, Description string
	Option                 string
	Size                   string // a CSS class for a taller chart: "", "tall", "taller" or "tallest"
}

// chartSizes are the heights of .chart and its taller classes (agentstat.css).
var chartSizes = []struct {
	class  string
	height int
}{{"", 320}, {"tall", 480}, {"taller", 960}, {"tallest", 1600}}

// Status colours; colour is never the only carrier: series are named, axes
// labelled, and the aria decal patterns distinguish series without colour.
var statusColor = map[string]string{
	"success": "#2da44e", "failed": "#cf222e", "partial": "#bf8700", "running": "#0969da", "unknown": "#8c959f",
	"completed": "#2da44e", "in_progress": "#0969da", "blocked": "#8250df", "not_started": "#8c959f", "skipped": "#afb8c1", "other": "#57606a",
}

var outcomeColor = map[model.Outcome]string{model.OutcomeOK: "#2da44e", model.OutcomeError: "#cf222e", model.OutcomeCancelled: "#bf8700", model.OutcomeUnknown: "#8c959f"}

// maxToolsCharted bounds the per-tool charts; the tools table lists them all.
const maxToolsCharted = 20

func commonOpts(xName, yName string) []charts.GlobalOpts {
	return []charts.GlobalOpts{
		charts.WithAnimation(false),
		charts.WithAriaOpts(&opts.Aria{Enabled: opts.Bool(true), Decal: &opts.AriaDecal{Show: opts.Bool(true)}}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "bottom"}),
		charts.WithGridOpts(opts.Grid{ContainLabel: opts.Bool(true), Left: "2%", Right: "4%", Top: "12%", Bottom: "14%"}),
		charts.WithXAxisOpts(opts.XAxis{Name: xName, NameLocation: "middle", NameGap: 28}),
		charts.WithYAxisOpts(opts.YAxis{Name: yName}),
	}
}

type validator interface {
	Validate()
	JSON() map[string]interface{}
}

// optionJSON turns a go-echarts chart into its option JSON; patch may adjust
// what go-echarts cannot express (decoded as plain maps).
func optionJSON(c validator, patch func(map[string]any)) string {
	c.Validate()
	b, err := json.Marshal(c.JSON())
	if err != nil {
		panic(err) // options are built from plain values: a failure is a bug
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	delete(m, "toolbox")
	if patch != nil {
		patch(m)
	}
	b, _ = json.Marshal(m)
	return string(b)
}

// rotateLabels slants the category labels so that every one shows: left to
// itself ECharts hides every other label of a crowded axis, and a bar of
// counts by name without its name says nothing.
func rotateLabels(m map[string]any) {
	if xs, ok := m["xAxis"].([]any); ok && len(xs) > 0 {
		x := xs[0].(map[string]any)
		x["axisLabel"] = map[string]any{"rotate": 30, "interval": 0, "width": 90, "overflow": "truncate"}
		x["nameGap"] = 62
	}
	if gs, ok := m["grid"].([]any); ok && len(gs) > 0 {
		gs[0].(map[string]any)["bottom"] = 70
	}
}

func pct(v *float64) any {
	if v == nil {
		return nil // a gap, not a zero
	}
	return math.Round(*v*10000) / 100
}

func msOrNil(v *float64) any {
	if v == nil {
		return nil
	}
	return math.Round(*v*100) / 100
}

// logMsOrNil is msOrNil for a logarithmic axis, where ECharts can place no
// zero: one zero set the axis to 1–10 ms whatever the other bars held
// (apache/echarts#16504), so a duration that rounds to 0 gets no bar (its
// table row still shows it).
func logMsOrNil(v *float64) any {
	ms := msOrNil(v)
	if f, ok := ms.(float64); ok && f <= 0 {
		return nil
	}
	return ms
}

// logAxisStart is the power of ten at or below the smallest value drawn,
// where the axis and its bars are to start (1, ECharts' own start, when no
// value is under 1).
func logAxisStart(series ...[]opts.BarData) float64 {
	low := 1.0
	for _, data := range series {
		for _, d := range data {
			if f, ok := d.Value.(float64); ok && f < low {
				low = math.Pow(10, math.Floor(math.Log10(f)))
			}
		}
	}
	return low
}

// period is a day, or a week or month when there are too many days to chart.
type period struct {
	label                                        string
	runs, calls, known, errors, success, decided int64
	byStatus                                     map[string]int64
	tokens                                       metrics.TokenCounts
	cost                                         map[string]float64 // by model
}

// gapLabel stands between two periods that are not next to each other:
// only periods with runs get a bar, and without it bars side by side would
// read as days side by side (2018-12-13 stood next to 2025-06-08).
const gapLabel = "⋯"

// periods downsamples the daily rows so that a chart never has more than
// about 180 bars: by day, else by ISO week (Monday), else by month. Where
// periods without runs lie between two with runs, an empty gapLabel bar
// marks the jump.
func periods(days []metrics.DayRow) (string, []period) {
	unit, key := "day", func(d time.Time) string { return d.Format(time.DateOnly) }
	next := func(d time.Time) time.Time { return d.AddDate(0, 0, 1) }
	switch {
	case len(days) > 180*7:
		unit, key = "month", func(d time.Time) string { return d.Format("2006-01") }
		next = func(d time.Time) time.Time { return time.Date(d.Year(), d.Month()+1, 1, 0, 0, 0, 0, time.UTC) }
	case len(days) > 180:
		unit, key = "week", func(d time.Time) string {
			return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7)).Format(time.DateOnly)
		}
		next = func(d time.Time) time.Time { return d.AddDate(0, 0, 7-(int(d.Weekday())+6)%7) }
	}
	var out []period
	var last time.Time
	for _, d := range days {
		t, err := time.Parse(time.DateOnly, d.Date)
		if err != nil {
			continue
		}
		k := key(t)
		if len(out) == 0 || out[len(out)-1].label != k {
			if len(out) > 0 && key(next(last)) != k {
				out = append(out, period{label: gapLabel, byStatus: map[string]int64{}, cost: map[string]float64{}})
			}
			out = append(out, period{label: k, byStatus: map[string]int64{}, cost: map[string]float64{}})
		}
		last = t
		p := &out[len(out)-1]
		p.runs += d.Runs
		p.calls += d.ToolCalls
		p.known += d.OutcomeKnown
		p.errors += d.Errors
		for s, n := range d.ByStatus {
			p.byStatus[s] += n
		}
		p.success += d.ByStatus["success"]
		for m, c := range d.CostByModel {
			p.cost[m] += c
		}
		tk := d.TokensByKind
		p.tokens.Input += tk.Input
		p.tokens.Output += tk.Output
		p.tokens.CacheRead += tk.CacheRead
		p.tokens.CacheCreation += tk.CacheCreation
		p.tokens.Unspecified += tk.Unspecified
		p.decided += d.Runs - d.ByStatus["running"] - d.ByStatus["unknown"]
	}
	return unit, out
}

func ratio(n, d int64) *float64 {
	if d == 0 {
		return nil
	}
	v := float64(n) / float64(d)
	return &v
}

func runsPerDayChart(s *metrics.Summary) (chartView, chartView) {
	unit, ps := periods(s.Daily)
	labels := make([]string, len(ps))
	for i, p := range ps {
		labels[i] = p.label
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(commonOpts(unit, "runs")...)
	bar.SetXAxis(labels)
	for _, st := range model.RunStatuses {
		data := make([]opts.BarData, len(ps))
		for i, p := range ps {
			data[i] = opts.BarData{Value: p.byStatus[string(st)]}
		}
		bar.AddSeries(string(st), data, charts.WithBarChartOpts(opts.BarChart{Stack: "runs"}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: statusColor[string(st)]}))
	}
	runs := chartView{ID: "chart-runs-per-day", Title: "Runs per " + unit + " by status", Option: optionJSON(bar, nil),
		Description: fmt.Sprintf("Stacked bars: runs started each %s, split by final status. Only %ss with runs have a place; %s stands for the %ss without runs between two of them.", unit, unit, gapLabel, unit)}
	return runs, ratesChart(s.Daily)
}

// ratesWindow is how many of the last days the rate chart shows at first
// when its days span more than twice as many: a stray day years back (a
// clock reset) would otherwise squash the rest into a sliver.
const ratesWindow = 90

// ratesChart is the daily error and success rates on a time axis: a day
// without data is a gap in the line, not a point beside the next one.
func ratesChart(days []metrics.DayRow) chartView {
	type point = [2]any // [Unix ms of the date at 00:00 UTC, percent or nil]
	var errs, oks []point
	var first, last time.Time
	for _, d := range days {
		t, err := time.Parse(time.DateOnly, d.Date)
		if err != nil {
			continue
		}
		if !last.IsZero() && t.After(last.AddDate(0, 0, 1)) { // a gap: break the lines
			gap := last.AddDate(0, 0, 1).UnixMilli()
			errs, oks = append(errs, point{gap, nil}), append(oks, point{gap, nil})
		}
		if first.IsZero() {
			first = t
		}
		last = t
		decided := d.Runs - d.ByStatus["running"] - d.ByStatus["unknown"]
		errs = append(errs, point{t.UnixMilli(), pct(ratio(d.Errors, d.OutcomeKnown))})
		oks = append(oks, point{t.UnixMilli(), pct(ratio(d.ByStatus["success"], decided))})
	}
	line := charts.NewLine()
	line.SetGlobalOptions(append(commonOpts("day", "%"), charts.WithYAxisOpts(opts.YAxis{Name: "%", Min: 0, Max: 100}))...)
	series := func(ps []point) []opts.LineData {
		data := make([]opts.LineData, len(ps))
		for i, p := range ps {
			data[i] = opts.LineData{Value: p[:]}
		}
		return data
	}
	line.AddSeries("tool-call error rate", series(errs), charts.WithItemStyleOpts(opts.ItemStyle{Color: "#cf222e"}))
	line.AddSeries("run success rate", series(oks), charts.WithItemStyleOpts(opts.ItemStyle{Color: "#2da44e"}),
		charts.WithLineChartOpts(opts.LineChart{Symbol: "diamond"}))
	desc := "Lines in percent on a time axis; a gap means no data that day."
	zoom := !first.IsZero() && last.Sub(first) > 2*ratesWindow*24*time.Hour
	if zoom {
		desc += fmt.Sprintf(" The last %d days are shown; the slider below reaches back to %s.", ratesWindow, first.Format(time.DateOnly))
	}
	timeAxis := func(m map[string]any) {
		m["useUTC"] = true // the points are dates at 00:00 UTC: label them as such wherever the page is opened
		if xs, ok := m["xAxis"].([]any); ok && len(xs) > 0 {
			x := xs[0].(map[string]any)
			x["type"] = "time"
			delete(x, "data")
		}
		if !zoom {
			return
		}
		m["dataZoom"] = []any{
			map[string]any{"type": "slider", "xAxisIndex": 0, "filterMode": "none", "bottom": 34, "height": 18, "startValue": last.AddDate(0, 0, -ratesWindow+1).UnixMilli(), "endValue": last.UnixMilli()},
			map[string]any{"type": "inside", "xAxisIndex": 0, "filterMode": "none"},
		}
		if gs, ok := m["grid"].([]any); ok && len(gs) > 0 {
			gs[0].(map[string]any)["bottom"] = 100 // room for the slider above the legend
		}
	}
	return chartView{ID: "chart-rates-per-day", Title: "Error rate and success rate per day", Option: optionJSON(line, timeAxis), Description: desc}
}

func histogramChart(id, title, what string, bins []metrics.HistogramBin) chartView {
	labels := make([]string, len(bins))
	data := make([]opts.BarData, len(bins))
	for i, b := range bins {
		from := Millis(&b.FromMS)
		if b.ToMS == nil {
			labels[i] = "≥ " + from
		} else if b.FromMS == 0 {
			labels[i] = "< " + Millis(b.ToMS)
		} else {
			labels[i] = from + " – " + Millis(b.ToMS)
		}
		data[i] = opts.BarData{Value: b.Count}
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(commonOpts("duration", what)...)
	bar.SetXAxis(labels)
	bar.AddSeries(what, data, charts.WithItemStyleOpts(opts.ItemStyle{Color: "#0969da"}))
	return chartView{ID: id, Title: title, Option: optionJSON(bar, rotateLabels), Description: "Count of " + what + " in each duration range."}
}

func toolCharts(s *metrics.Summary) (chartView, chartView) {
	tools := s.Tools[:min(len(s.Tools), maxToolsCharted)]
	names := make([]string, len(tools))
	calls := make([]opts.BarData, len(tools))
	rates := make([]opts.LineData, len(tools))
	p50 := make([]opts.BarData, len(tools))
	p95 := make([]opts.BarData, len(tools))
	zeroNote := ""
	for i, t := range tools {
		names[i] = t.Name
		calls[i] = opts.BarData{Value: t.Calls}
		rates[i] = opts.LineData{Value: pct(t.ErrorRate)}
		p50[i] = opts.BarData{Value: logMsOrNil(t.DurationMS.P50)}
		p95[i] = opts.BarData{Value: logMsOrNil(t.DurationMS.P95)}
		if t.DurationMS.P50 != nil && p50[i].Value == nil { // p50 <= p95: a zero p95 has a zero p50
			zeroNote = " A percentile of 0 ms has no bar on this scale."
		}
	}
	note := ""
	if len(s.Tools) > len(tools) {
		note = fmt.Sprintf(" The %d most called of %d tools.", len(tools), len(s.Tools))
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(commonOpts("tool", "calls")...)
	bar.ExtendYAxis(opts.YAxis{Name: "error rate %", Min: 0, Max: 100})
	bar.SetXAxis(names).AddSeries("calls", calls, charts.WithItemStyleOpts(opts.ItemStyle{Color: "#0969da"}))
	line := charts.NewLine()
	line.AddSeries("error rate %", rates, charts.WithLineChartOpts(opts.LineChart{YAxisIndex: 1}), charts.WithItemStyleOpts(opts.ItemStyle{Color: "#cf222e"}))
	bar.Overlap(line)
	volume := chartView{ID: "chart-tools", Title: "Tool calls and error rate per tool", Option: optionJSON(bar, rotateLabels),
		Description: "Bars: calls per tool (left axis). Line: error rate among calls with a known outcome (right axis)." + note}

	dur := charts.NewBar()
	dur.SetGlobalOptions(commonOpts("tool", "duration")...)
	dur.SetXAxis(names).
		AddSeries("p50", p50, charts.WithItemStyleOpts(opts.ItemStyle{Color: "#54aeff"})).
		AddSeries("p95", p95, charts.WithItemStyleOpts(opts.ItemStyle{Color: "#0550ae"}))
	logScale := func(m map[string]any) {
		rotateLabels(m)
		durationAxes(m)
		if ys, ok := m["yAxis"].([]any); ok && len(ys) > 0 {
			y := ys[0].(map[string]any)
			y["type"] = "log"
			if low := logAxisStart(p50, p95); low < 1 { // the axis and its bars start at 1 unless told otherwise (min moves only the axis)
				y["startValue"] = low
			}
		}
	}
	durations := chartView{ID: "chart-tool-durations", Title: "Tool-call duration p50 and p95 per tool", Option: optionJSON(dur, logScale),
		Description: "Nearest-rank percentiles of tool-call durations, on a logarithmic scale." + zeroNote + note}
	return volume, durations
}

// countsChart is a bar chart of named counts, in the order given.
func countsChart(id, title, xName, yName, desc string, names []string, values []int64, colors map[string]string) chartView {
	data := make([]opts.BarData, len(names))
	for i, n := range names {
		d := opts.BarData{Value: values[i]}
		if c, ok := colors[n]; ok {
			d.ItemStyle = &opts.ItemStyle{Color: c}
		}
		data[i] = d
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(append(commonOpts(xName, yName), charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}))...)
	bar.SetXAxis(names).AddSeries(yName, data, charts.WithItemStyleOpts(opts.ItemStyle{Color: "#0969da"}),
		charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: "top"}))
	return chartView{ID: id, Title: title, Option: optionJSON(bar, rotateLabels), Description: desc}
}

func qualityCharts(q *metrics.QualitySummary) (chartView, chartView) {
	var names []string
	var counts []int64
	for _, b := range q.Distribution {
		names = append(names, fmt.Sprintf("%d–%d", b.From, b.To))
		counts = append(counts, b.Count)
	}
	dist := countsChart("chart-quality", "Quality score distribution", "score", "tasks",
		"Evaluated tasks by quality score; the last bin includes 10.", names, counts, nil)

	phases := make([]string, 0, len(q.ByPhase))
	means := make([]opts.BarData, 0, len(q.ByPhase))
	for _, g := range q.ByPhase {
		phases = append(phases, g.Phase)
		means = append(means, opts.BarData{Value: msOrNil(g.Mean)})
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(append(commonOpts("phase", "mean score"), charts.WithYAxisOpts(opts.YAxis{Name: "mean score", Min: 0, Max: 10}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}))...)
	bar.SetXAxis(phases).AddSeries("mean score", means, charts.WithItemStyleOpts(opts.ItemStyle{Color: "#8250df"}),
		charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: "top"}))
	return dist, chartView{ID: "chart-quality-phase", Title: "Quality mean per phase", Option: optionJSON(bar, rotateLabels),
		Description: "Mean quality score (0–10) of the evaluated tasks of each phase."}
}

func tokenChart(s *metrics.Summary) chartView {
	kinds := []string{"input", "output", "cache read", "cache creation", "unspecified"}
	labels := []string{"all runs"}
	rows := []metrics.TokenCounts{s.Context.Tokens}
	for _, m := range s.Models {
		labels = append(labels, m.Model)
		rows = append(rows, m.Tokens)
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(commonOpts("", "tokens")...)
	bar.SetXAxis(labels)
	colors := []string{"#0969da", "#2da44e", "#bf8700", "#8250df", "#8c959f"}
	for k, kind := range kinds {
		data := make([]opts.BarData, len(rows))
		for i, t := range rows {
			v := [...]int64{t.Input, t.Output, t.CacheRead, t.CacheCreation, t.Unspecified}[k]
			data[i] = opts.BarData{Value: v}
		}
		bar.AddSeries(kind, data, charts.WithBarChartOpts(opts.BarChart{Stack: "tokens"}), charts.WithItemStyleOpts(opts.ItemStyle{Color: colors[k]}))
	}
	return chartView{ID: "chart-tokens", Title: "Tokens by kind, overall and by model", Option: optionJSON(bar, rotateLabels),
		Description: "Stacked bars: tokens by kind for all runs, then for each model where the logs name one."}
}

// appendJSONString appends s quoted as encoding/json writes a string with
// HTML escaping, after optionJSON's round trip: <, > and & as \u escapes,
// control bytes escaped, U+2028 and U+2029 escaped, and each byte that is
// not UTF-8 as U+FFFD itself (the round trip decodes json's \ufffd).
func appendJSONString(b, s []byte) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), "\uFFFD"...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}

// durationFormatter names agentstat.js's formatter of milliseconds as a duration.
const durationFormatter = "agentstat:duration"

// durationAxes has a chart of milliseconds label its value axes and tooltip as durations.
func durationAxes(m map[string]any) {
	if ys, ok := m["yAxis"].([]any); ok {
		for _, y := range ys {
			y.(map[string]any)["axisLabel"] = map[string]any{"formatter": durationFormatter}
		}
	}
	if tt, ok := m["tooltip"].(map[string]any); ok {
		tt["valueFormatter"] = durationFormatter
	}
}

// tokensPerDayChart stacks each day's tokens by kind.
func tokensPerDayChart(s *metrics.Summary) chartView {
	unit, ps := periods(s.Daily)
	labels := make([]string, len(ps))
	for i, p := range ps {
		labels[i] = p.label
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(commonOpts(unit, "tokens")...)
	bar.SetXAxis(labels)
	colors := []string{"#0969da", "#2da44e", "#bf8700", "#8250df", "#8c959f"}
	for k, kind := range []string{"input", "output", "cache read", "cache creation", "unspecified"} {
		data := make([]opts.BarData, len(ps))
		for i, p := range ps {
			t := p.tokens
			data[i] = opts.BarData{Value: [...]int64{t.Input, t.Output, t.CacheRead, t.CacheCreation, t.Unspecified}[k]}
		}
		bar.AddSeries(kind, data, charts.WithBarChartOpts(opts.BarChart{Stack: "tokens"}), charts.WithItemStyleOpts(opts.ItemStyle{Color: colors[k]}))
	}
	return chartView{ID: "chart-tokens-per-day", Title: "Tokens per " + unit + " by kind", Option: optionJSON(bar, nil),
		Description: "Stacked bars: tokens of the runs started each " + unit + ", by kind."}
}

// tokenSpread is how many times the heaviest period's tokens must exceed
// the lightest's (of those with tokens) for the log-scale chart to be drawn:
// on a linear axis the light periods are then flat lines.
const tokenSpread = 100

// tokensLogChart is each period's total tokens on a logarithmic axis, when
// one heavy period flattens the others on tokensPerDayChart's linear one.
func tokensLogChart(s *metrics.Summary) (chartView, bool) {
	unit, ps := periods(s.Daily)
	labels := make([]string, len(ps))
	data := make([]opts.BarData, len(ps))
	var low, high int64
	for i, p := range ps {
		labels[i] = p.label
		t := p.tokens
		total := t.Input + t.Output + t.CacheRead + t.CacheCreation + t.Unspecified
		if total == 0 {
			continue // no bar: a log axis has no zero
		}
		data[i] = opts.BarData{Value: total}
		if low == 0 || total < low {
			low = total
		}
		high = max(high, total)
	}
	if low == 0 || high/low < tokenSpread {
		return chartView{}, false
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(commonOpts(unit, "tokens")...)
	bar.SetXAxis(labels)
	bar.AddSeries("tokens", data, charts.WithItemStyleOpts(opts.ItemStyle{Color: "#0969da"}))
	logAxis := func(m map[string]any) {
		if ys, ok := m["yAxis"].([]any); ok && len(ys) > 0 {
			ys[0].(map[string]any)["type"] = "log"
		}
	}
	return chartView{ID: "chart-tokens-per-day-log", Title: "Tokens per " + unit + ", logarithmic scale", Option: optionJSON(bar, logAxis),
		Description: fmt.Sprintf("All tokens of the runs started each %s, on a logarithmic axis: the heaviest %s has %s times the lightest's, which the linear chart flattens.",
			unit, unit, Count(high/low))}, true
}

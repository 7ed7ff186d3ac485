package render

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/agentstat/agentstat/model"
	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// A run page's timeline: a bar per call, or past maxTimelineCalls, the
// calls counted in bins of time.

// timelineSize picks the smallest chart that gives each of n calls a label
// 16 px high (the plot is the height less 100 px of margins), and the label
// interval ECharts is to use: past the tallest chart it labels every few
// calls (the table below names each). Left to itself ECharts drew 169
// labels 9 px apart, overlapping.
func timelineSize(n int) (class string, interval int) {
	for _, s := range chartSizes {
		if fit := (s.height - 100) / 16; n <= fit {
			return s.class, 0
		}
	}
	tallest := chartSizes[len(chartSizes)-1]
	fit := (tallest.height - 100) / 16
	return tallest.class, (n+fit-1)/fit - 1
}

// maxTimelineCalls is the most calls a run page's timeline draws one bar
// each; a longer run's calls are counted in bins of time instead.
const maxTimelineCalls = 300

// timeline gathers from a run's calls, in order, what its chart draws: the
// first maxTimelineCalls timed calls, each start and outcome (for the bins
// of a longer run), and the earliest start of all.
type timeline struct {
	calls    []timelineCall
	starts   []int64 // every timed call's start, Unix nanoseconds
	outcomes []model.Outcome
	t0       time.Time
	timed    int
}

// timelineCall is what the timeline shows of a call (a third of a
// model.ToolCall: no error text held from page to page).
type timelineCall struct {
	name        string
	started     time.Time
	durationMS  float64
	hasDuration bool
	outcome     model.Outcome
}

// timelines are the run pages' timelines, reused from page to page: 7,300
// pages at 1 GB of logs grew theirs afresh, 52 MB of allocation.
var timelines = sync.Pool{New: func() any { return new(timeline) }}

// reset empties t for the next page.
func (t *timeline) reset() {
	clear(t.calls) // no name kept alive
	*t = timeline{calls: t.calls[:0], starts: t.starts[:0], outcomes: t.outcomes[:0]}
}

func (t *timeline) add(c *model.ToolCall) {
	if c.Started.IsZero() {
		return
	}
	if t.timed++; t.timed <= maxTimelineCalls {
		t.calls = append(t.calls, timelineCall{c.Name, c.Started, c.DurationMS, c.HasDuration, c.Outcome})
	}
	t.starts = append(t.starts, c.Started.UnixNano())
	t.outcomes = append(t.outcomes, c.Outcome)
	if t.t0.IsZero() || c.Started.Before(t.t0) {
		t.t0 = c.Started
	}
}

// chart draws the gathered calls on a time axis: one bar per call from its
// start, as long as its duration, coloured and labelled by outcome; or,
// past maxTimelineCalls, every call counted in bins of time.
func (t *timeline) chart() (chartView, bool) {
	calls := t.calls
	if len(calls) == 0 {
		return chartView{}, false
	}
	if t.timed > maxTimelineCalls {
		return t.binned(), true
	}
	size, interval := timelineSize(len(calls))
	return chartView{ID: "chart-timeline", Title: "Tool calls over time", Option: timelineOption(calls, t.t0, interval), Size: size,
		Description: "One bar per tool call from its start, as long as it took; each label says the outcome (ok, error, cancelled, unknown)."}, true
}

// binWidths are the widths a long run's timeline counts its calls in: the
// narrowest that gives at most maxTimelineBins bins.
var binWidths = []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour, 48 * time.Hour, 7 * 24 * time.Hour}

const maxTimelineBins = 150

// binned is the timeline of a long run: its timed calls counted in bins of
// time from the earliest start, stacked by outcome.
func (t *timeline) binned() chartView {
	t0 := t.t0.UnixNano()
	span := time.Duration(slices.Max(t.starts) - t0)
	width := binWidths[len(binWidths)-1]
	for _, w := range binWidths {
		if span/w < maxTimelineBins {
			width = w
			break
		}
	}
	n := min(int(span/width)+1, 1<<16) // a span of years in weeks stays drawable
	outcomes := []model.Outcome{model.OutcomeOK, model.OutcomeError, model.OutcomeCancelled, model.OutcomeUnknown}
	counts := make([][]int64, len(outcomes))
	for i := range counts {
		counts[i] = make([]int64, n)
	}
	for i, at := range t.starts {
		counts[t.outcomes[i]][min(int(time.Duration(at-t0)/width), n-1)]++
	}
	labels := make([]string, n)
	for i := range labels {
		ms := float64((time.Duration(i) * width).Milliseconds())
		labels[i] = "+" + Millis(&ms)
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(commonOpts("time since the first call", "tool calls")...)
	bar.SetXAxis(labels)
	for _, o := range outcomes {
		data := make([]opts.BarData, n)
		for i, c := range counts[o] {
			data[i] = opts.BarData{Value: c}
		}
		bar.AddSeries(o.String(), data, charts.WithBarChartOpts(opts.BarChart{Stack: "calls"}), charts.WithItemStyleOpts(opts.ItemStyle{Color: outcomeColor[o]}))
	}
	ms := float64(width.Milliseconds())
	return chartView{ID: "chart-timeline", Title: "Tool calls over time", Option: optionJSON(bar, nil),
		Description: fmt.Sprintf("All %s timed calls, counted by when they started in bins of %s from the first, stacked by outcome.", Count(int64(t.timed)), Millis(&ms))}
}

// offsetMS is how long after t0 a call started, in milliseconds to the microsecond.
func offsetMS(t, t0 time.Time) float64 { return math.Round(float64(t.Sub(t0).Microseconds())) / 1000 }

func roundMS(ms float64) float64 { return math.Round(ms*100) / 100 }

// timelineOption is the timeline's option: a bar per call, labelled
// "1. Bash (ok)", its offset from the first call invisible and its duration
// in the outcome's colour.
func timelineOption(calls []timelineCall, t0 time.Time, interval int) string {
	labels := make([]string, len(calls))
	offsets, spans := make([]opts.BarData, len(calls)), make([]opts.BarData, len(calls))
	for k := range calls {
		c := &calls[k]
		labels[k] = strconv.Itoa(k+1) + ". " + clipText(c.name, 40) + " (" + c.outcome.String() + ")"
		d := 0.0
		if c.hasDuration {
			d = roundMS(c.durationMS)
		}
		offsets[k] = opts.BarData{Value: offsetMS(c.started, t0)}
		spans[k] = opts.BarData{Value: d, ItemStyle: &opts.ItemStyle{Color: outcomeColor[c.outcome]}}
	}
	return timelineChartOption(labels, offsets, spans, interval)
}

// timelineChartOption builds the timeline's option through go-echarts.
func timelineChartOption(labels []string, offsets, spans []opts.BarData, interval any) string {
	bar := charts.NewBar()
	bar.SetGlobalOptions(append(commonOpts("", ""), charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}))...)
	bar.SetXAxis(labels).
		AddSeries("start", offsets, charts.WithBarChartOpts(opts.BarChart{Stack: "t"})).
		AddSeries("duration", spans, charts.WithBarChartOpts(opts.BarChart{Stack: "t"}))
	bar.XYReversal()
	patch := func(m map[string]any) {
		series := m["series"].([]any)
		first := series[0].(map[string]any)
		first["itemStyle"] = map[string]any{"color": "transparent"}
		first["tooltip"] = map[string]any{"show": false}
		first["emphasis"] = map[string]any{"disabled": true}
		series[1].(map[string]any)["barMinHeight"] = 2 // an instant call still shows
		m["tooltip"] = map[string]any{"show": true, "trigger": "item", "valueFormatter": durationFormatter}
		m["aria"] = map[string]any{"enabled": true, "decal": map[string]any{"show": false}} // labels say the outcome; hatching would mark the invisible offsets
		if ys, ok := m["yAxis"].([]any); ok && len(ys) > 0 {
			y := ys[0].(map[string]any)
			y["inverse"] = true
			y["axisLabel"] = map[string]any{"interval": interval}
			y["name"] = "tool call"
		}
		if xs, ok := m["xAxis"].([]any); ok && len(xs) > 0 {
			x := xs[0].(map[string]any)
			x["name"], x["axisLabel"] = "time since the first call", map[string]any{"formatter": durationFormatter}
		}
		if gs, ok := m["grid"].([]any); ok && len(gs) > 0 { // margins in pixels: a share of a tall chart is a blank band
			g := gs[0].(map[string]any)
			g["top"], g["bottom"] = 40, 60
		}
	}
	return optionJSON(bar, patch)
}

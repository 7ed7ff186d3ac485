package render

import (
	"time"

	"github.com/agentstat/agentstat/metrics"
	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// Trend charts: the headline figures across report runs (history.jsonl).

// trendSeries is one line of a trend chart.
type trendSeries struct {
	name  string
	color string
	value func(e metrics.HistoryEntry) any
	axis  string // the name of an axis of its own, on the right: a figure of another scale
}

func trendChart(id, title, yName, desc string, ms bool, hist []metrics.HistoryEntry, series ...trendSeries) chartView {
	labels := make([]string, len(hist))
	for i, e := range hist {
		labels[i] = e.GeneratedAt
		if t, err := time.Parse(time.RFC3339, e.GeneratedAt); err == nil {
			labels[i] = t.Format("2006-01-02 15:04")
		}
	}
	line := charts.NewLine()
	line.SetGlobalOptions(commonOpts("report run", yName)...)
	line.SetXAxis(labels)
	for _, s := range series {
		data := make([]opts.LineData, len(hist))
		for i, e := range hist {
			data[i] = opts.LineData{Value: s.value(e)}
		}
		axis := 0
		if s.axis != "" {
			line.ExtendYAxis(opts.YAxis{Name: s.axis, Position: "right"})
			axis = 1
		}
		line.AddSeries(s.name, data, charts.WithItemStyleOpts(opts.ItemStyle{Color: s.color}),
			charts.WithLineChartOpts(opts.LineChart{YAxisIndex: axis}))
	}
	patch := rotateLabels
	if ms {
		patch = func(m map[string]any) { rotateLabels(m); durationAxes(m) }
	}
	return chartView{ID: id, Title: title, Option: optionJSON(line, patch), Description: desc}
}

// trendCharts follow the headline figures across report runs (history.jsonl).
func trendCharts(hist []metrics.HistoryEntry) []chartView {
	return []chartView{
		trendChart("chart-trend-volume", "Runs and tool calls across report runs", "runs", "One point per report run, oldest first; tool calls on the right-hand axis.", false, hist,
			trendSeries{"runs", "#0969da", func(e metrics.HistoryEntry) any { return e.Value("runs") }, ""},
			trendSeries{"tool calls", "#8250df", func(e metrics.HistoryEntry) any { return e.Value("tool_calls") }, "tool calls"}),
		trendChart("chart-trend-rates", "Success rate and error rate across report runs", "%", "Run success rate and tool-call error rate, in percent.", false, hist,
			trendSeries{"run success rate", "#2da44e", func(e metrics.HistoryEntry) any { return pct(e.Value("success_rate")) }, ""},
			trendSeries{"tool-call error rate", "#cf222e", func(e metrics.HistoryEntry) any { return pct(e.Value("error_rate")) }, ""}),
		trendChart("chart-trend-p95", "p95 durations across report runs", "run p95", "Nearest-rank p95 of run and tool-call durations; tool calls on the right-hand axis.", true, hist,
			trendSeries{"run p95", "#0550ae", func(e metrics.HistoryEntry) any { return msOrNil(e.Value("run_p95_ms")) }, ""},
			trendSeries{"tool-call p95", "#54aeff", func(e metrics.HistoryEntry) any { return msOrNil(e.Value("tool_call_p95_ms")) }, "tool-call p95"}),
		trendChart("chart-trend-quality", "Quality mean across report runs", "mean score", "Mean quality score (0–10) of each report run.", false, hist,
			trendSeries{"quality mean", "#8250df", func(e metrics.HistoryEntry) any { return msOrNil(e.Value("quality_mean")) }, ""}),
		trendChart("chart-trend-tokens", "Tokens across report runs", "tokens", "Tokens reported by the logs of each report run.", false, hist,
			trendSeries{"tokens", "#bf8700", func(e metrics.HistoryEntry) any { return e.Value("tokens") }, ""}),
	}
}

package render

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/agentstat/agentstat/metrics"
	"github.com/agentstat/agentstat/model"
)

// FuzzJSONString: the run list's strings are written as encoding/json
// writes them after optionJSON's round trip through it.
func FuzzJSONString(f *testing.F) {
	f.Add("a<b>&c\"\\\x00\u2028\xff日本")
	f.Fuzz(func(t *testing.T, s string) {
		var back string
		once, _ := json.Marshal(s)
		if err := json.Unmarshal(once, &back); err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(back)
		if got := appendJSONString(nil, []byte(s)); string(got) != string(want) {
			t.Errorf("string %q: %s, want %s", s, got, want)
		}
	})
}

// BenchmarkTimeline measures a run page's timeline option: a dashboard
// builds one per run (7,300 on the 1 GB corpus).
func BenchmarkTimeline(b *testing.B) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, n := range []int{5, 300} {
		r := &model.Run{}
		for i := range n {
			r.ToolCalls = append(r.ToolCalls, model.ToolCall{Name: "Bash", Outcome: model.OutcomeOK,
				Span: model.Span{Started: t0.Add(time.Duration(i) * time.Second), DurationMS: 12.5, HasDuration: true}})
		}
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				timelineChart(r)
			}
		})
	}
}

// timelineChart is the timeline of a run's calls, all in hand.
func timelineChart(r *model.Run) (chartView, bool) {
	var t timeline
	for i := range r.ToolCalls {
		t.add(&r.ToolCalls[i])
	}
	return t.chart()
}

// The rate chart is on a time axis: days without data break its lines, and
// a stray day years back leaves the last ratesWindow days shown at first.
func TestRatesChartTimeAxis(t *testing.T) {
	day := func(date string, errs, known int64) metrics.DayRow {
		return metrics.DayRow{Date: date, Runs: 1, OutcomeKnown: known, Errors: errs, ByStatus: map[string]int64{"success": 1}}
	}
	ms := func(date string) float64 {
		d, _ := time.Parse(time.DateOnly, date)
		return float64(d.UnixMilli())
	}
	for _, c := range []struct {
		days   []metrics.DayRow
		errors [][2]any // [date ms, percent or nil]
		zoom   float64  // the slider's start, 0 for none
	}{
		{[]metrics.DayRow{day("2026-01-01", 1, 4), day("2026-01-02", 0, 0), day("2026-01-05", 2, 4)},
			[][2]any{{ms("2026-01-01"), 25.0}, {ms("2026-01-02"), nil}, {ms("2026-01-03"), nil}, {ms("2026-01-05"), 50.0}}, 0},
		{[]metrics.DayRow{day("2009-02-13", 0, 1), day("2026-03-08", 1, 1)},
			[][2]any{{ms("2009-02-13"), 0.0}, {ms("2009-02-14"), nil}, {ms("2026-03-08"), 100.0}}, ms("2025-12-09")},
	} {
		var opt struct {
			UseUTC bool
			XAxis  []struct{ Type string }
			Series []struct {
				Name string
				Data []struct{ Value [2]any }
			}
			DataZoom []struct{ StartValue float64 }
		}
		if err := json.Unmarshal([]byte(ratesChart(c.days).Option), &opt); err != nil {
			t.Fatal(err)
		}
		var errs [][2]any
		if len(opt.Series) == 2 {
			for _, d := range opt.Series[0].Data {
				errs = append(errs, d.Value)
			}
		}
		if !opt.UseUTC || len(opt.XAxis) != 1 || opt.XAxis[0].Type != "time" || !reflect.DeepEqual(errs, c.errors) {
			t.Errorf("%s…: utc %v, axes %+v, error rates %v; want %v", c.days[0].Date, opt.UseUTC, opt.XAxis, opt.Series, c.errors)
		}
		if got := 0.0; len(opt.DataZoom) > 0 {
			got = opt.DataZoom[0].StartValue
			if got != c.zoom {
				t.Errorf("%s…: shown from %v, want %v", c.days[0].Date, got, c.zoom)
			}
		} else if c.zoom != 0 {
			t.Errorf("%s…: no slider", c.days[0].Date)
		}
	}
}

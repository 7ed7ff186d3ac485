package render

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/agentstat/agentstat/analyze"
	"github.com/agentstat/agentstat/analyze/model"
)

// The timeline spliced into its skeleton is, byte for byte, the option
// go-echarts and optionJSON build for the same bars, whatever the labels
// hold (markup, quotes, control and non-ASCII characters) and whatever the
// label interval.
func TestTimelineOptionSameAsBuilt(t *testing.T) {
	names := []string{"Bash", `</script><script>alert(1)</script>`, `"quoted" \ back`, "\x00\x01\b\f\n\r\t\x1f\x7f nul", "日本語 ✅", "a&b<c>d", "",
		"bad \xff\xfe utf-8 \xe6\x97", "line\u2028para\u2029", "a name well over forty characters long, clipped in its label"}
	outcomes := []model.Outcome{model.OutcomeOK, model.OutcomeError, model.OutcomeUnknown}
	rng := rand.New(rand.NewPCG(7, 8))
	t0 := time.Date(2026, 3, 5, 10, 0, 0, 0, time.UTC)
	for _, n := range []int{1, 2, 17, 60, 61, 299, 300} {
		r := &model.Run{}
		for i := range n {
			c := model.ToolCall{Name: names[rng.IntN(len(names))], Outcome: outcomes[rng.IntN(len(outcomes))],
				Span: model.Span{Started: t0.Add(time.Duration(rng.Int64N(int64(time.Hour))))}}
			switch i % 5 {
			case 1, 2:
				c.DurationMS, c.HasDuration = rng.Float64()*1e5, true
			case 3: // past 1e21, where JSON numbers turn to exponents, and below zero
				c.DurationMS, c.HasDuration = -rng.Float64()*1e30, true
			}
			r.ToolCalls = append(r.ToolCalls, c)
		}
		view, ok := timelineChart(r)
		if !ok {
			t.Fatalf("%d calls: no timeline", n)
		}
		// The same bars through go-echarts, as timelineChart made them before.
		var labels []string
		var offsets, spans []opts.BarData
		first := r.ToolCalls[0].Started
		for _, c := range r.ToolCalls {
			if c.Started.Before(first) {
				first = c.Started
			}
		}
		for i, c := range r.ToolCalls[:min(n, maxTimelineCalls)] {
			labels = append(labels, timelineLabel(i, &c))
			d := 0.0
			if c.HasDuration {
				d = roundMS(c.DurationMS)
			}
			offsets = append(offsets, opts.BarData{Value: offsetMS(c.Started, first)})
			spans = append(spans, opts.BarData{Value: d, ItemStyle: &opts.ItemStyle{Color: outcomeColor[c.Outcome]}})
		}
		_, interval := timelineSize(len(labels))
		if want := timelineChartOption(labels, offsets, spans, interval); view.Option != want {
			k := 0
			for k < min(len(want), len(view.Option)) && want[k] == view.Option[k] {
				k++
			}
			t.Fatalf("%d calls, from byte %d:\nspliced %.300s\nbuilt   %.300s", n, k, view.Option[k:], want[k:])
		}
	}
}

// timelineLabel is a call's label on the timeline, as timelineChart wrote it
// through fmt: the reference timelineOption's labels must match.
func timelineLabel(i int, c *model.ToolCall) string {
	return fmt.Sprintf("%d. %s (%s)", i+1, clipText(c.Name, 40), c.Outcome)
}

// FuzzJSONValue: chart values are written as encoding/json writes them,
// strings after optionJSON's round trip through it.
func FuzzJSONValue(f *testing.F) {
	for _, v := range []float64{0, -0.0, 1, 1e-7, 1.5e-6, 1e20, 1e21, -1e21, 123456.789, math.MaxFloat64, math.SmallestNonzeroFloat64} {
		f.Add(v, "a<b>&c\"\\\x00\u2028\xff日本")
	}
	f.Fuzz(func(t *testing.T, v float64, s string) {
		if want, err := json.Marshal(v); err == nil {
			if got := appendJSONFloat(nil, v); string(got) != string(want) {
				t.Errorf("float %v: %s, want %s", v, got, want)
			}
		}
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
	day := func(date string, errs, known int64) analyze.DayRow {
		return analyze.DayRow{Date: date, Runs: 1, OutcomeKnown: known, Errors: errs, ByStatus: map[string]int64{"success": 1}}
	}
	ms := func(date string) float64 {
		d, _ := time.Parse(time.DateOnly, date)
		return float64(d.UnixMilli())
	}
	for _, c := range []struct {
		days   []analyze.DayRow
		errors [][2]any // [date ms, percent or nil]
		zoom   float64  // the slider's start, 0 for none
	}{
		{[]analyze.DayRow{day("2026-01-01", 1, 4), day("2026-01-02", 0, 0), day("2026-01-05", 2, 4)},
			[][2]any{{ms("2026-01-01"), 25.0}, {ms("2026-01-02"), nil}, {ms("2026-01-03"), nil}, {ms("2026-01-05"), 50.0}}, 0},
		{[]analyze.DayRow{day("2009-02-13", 0, 1), day("2026-03-08", 1, 1)},
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

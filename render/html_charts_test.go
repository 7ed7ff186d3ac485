package render

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/agentstat/agentstat/analyze/model"
)

// The timeline spliced into its skeleton is, byte for byte, the option
// go-echarts and optionJSON build for the same bars, whatever the labels
// hold (markup, quotes, control and non-ASCII characters) and whatever the
// label interval.
func TestTimelineOptionSameAsBuilt(t *testing.T) {
	names := []string{"Bash", `</script><script>alert(1)</script>`, `"quoted" \ back`, "\x00\x01 nul", "日本語 ✅", "a&b<c>d", ""}
	outcomes := []model.Outcome{model.OutcomeOK, model.OutcomeError, model.OutcomeUnknown}
	rng := rand.New(rand.NewPCG(7, 8))
	t0 := time.Date(2026, 3, 5, 10, 0, 0, 0, time.UTC)
	for _, n := range []int{1, 2, 17, 60, 61, 300, 301, 1000} {
		r := &model.Run{}
		for i := range n {
			c := model.ToolCall{Name: names[rng.IntN(len(names))], Outcome: outcomes[rng.IntN(len(outcomes))],
				Span: model.Span{Started: t0.Add(time.Duration(rng.Int64N(int64(time.Hour))))}}
			if i%3 > 0 {
				c.DurationMS, c.HasDuration = rng.Float64()*1e5, true
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
			t.Fatalf("%d calls:\nspliced %.600s\nbuilt   %.600s", n, view.Option, want)
		}
	}
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

package render

import (
	"fmt"
	"strconv"

	"github.com/agentstat/agentstat/metrics"
)

// The dashboard's headline cards: one for each figure of metrics.Headline
// marked Card, in its order. A figure without data (no run that finished,
// no evaluation) has no card; a card is red where its figure, or one named
// in its style, broke a threshold.

type cardView struct {
	Label, Value, Note string
	Href               string // the run list behind the figure
	Exact              string // the exact figure, on hover, when Value is compacted
	Bad                bool
}

// cardStyle is what a card shows beside its figure's value.
type cardStyle struct {
	label  string                          // instead of the figure's
	before string                          // a figure shown first, "p50 / p95"
	note   func(s *metrics.Summary) string // under the value
	list   []string                        // the run list's view behind it (listLink's pairs); nil for none
	also   []string                        // other thresholds that turn it red
	shown  func(s *metrics.Summary) bool   // instead of "its figure has data"
	bad    func(s *metrics.Summary) bool   // red, thresholds aside
}

var cardStyles = map[string]cardStyle{
	"runs.total":        {list: []string{}},
	"runs.success_rate": {note: func(*metrics.Summary) string { return "of runs that finished" }},
	"tool_calls.error_rate": {list: []string{"errors", "1"}, also: []string{"tools.error_rate"},
		note: func(s *metrics.Summary) string {
			if n := s.ToolCalls.Cancelled; n > 0 {
				return fmt.Sprintf("%s cancelled by the user (%s)", Count(n), Rate(s.ToolCalls.CancelRate))
			}
			return ""
		}},
	"runs.duration_ms.p95":       {label: "Run p50 / p95", before: "runs.duration_ms.p50"},
	"tool_calls.duration_ms.p95": {label: "Tool-call p50 / p95", before: "tool_calls.duration_ms.p50", also: []string{"tools.duration_ms.p95"}},
	"quality.mean":               {note: func(s *metrics.Summary) string { return Count(s.Quality.Evaluations) + " evaluations" }},
	"context.tokens.total": {list: []string{"sort", strconv.Itoa(listColumnTokens)},
		shown: func(s *metrics.Summary) bool { return s.Context.Tokens.Total > 0 }},
	"cost.usd": {list: []string{"sort", strconv.Itoa(listColumnCost)}, also: []string{"runs.cost_usd.p95"},
		shown: func(s *metrics.Summary) bool { return s.Cost.USD != nil || s.Cost.UnpricedTokens > 0 },
		note: func(s *metrics.Summary) string {
			if n := s.Cost.UnpricedTokens; n > 0 {
				return CompactCount(n) + " tokens unpriced"
			}
			return "at " + s.Cost.Pricing.Source + " prices of " + s.Cost.Pricing.Date
		}},
	"inputs.files_skipped": {note: func(s *metrics.Summary) string { return "of " + Count(s.Inputs.FilesSeen) + " seen" },
		bad: func(s *metrics.Summary) bool { return s.Inputs.FilesSkipped > 0 }},
}

// cards are the summary's headline cards.
func (h *htmlWriter) cards(s *metrics.Summary) []cardView {
	var cards []cardView
	for _, f := range metrics.Headline {
		if !f.Card {
			continue
		}
		st := cardStyles[f.Path]
		v := f.Get(s)
		if st.shown != nil && !st.shown(s) || st.shown == nil && v == nil {
			continue
		}
		c := cardView{Label: f.Label, Value: diffValue(f.Kind, v)}
		if f.Kind == "count" && v != nil {
			n := int64(*v)
			if c.Value = CompactCount(n); c.Value != Count(n) {
				c.Exact = Count(n)
			}
		}
		if st.label != "" {
			c.Label = st.label
		}
		if before, ok := metrics.FigureAt(st.before); ok {
			c.Value = diffValue(before.Kind, before.Get(s)) + " / " + c.Value
		}
		if st.note != nil {
			c.Note = st.note(s)
		}
		if st.list != nil {
			c.Href = h.listLink(st.list...)
		}
		c.Bad = violated(s.Check, append([]string{f.Path}, st.also...)...) || st.bad != nil && st.bad(s)
		cards = append(cards, c)
	}
	return cards
}

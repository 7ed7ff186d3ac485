package metrics

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// DiffRow compares one figure of two summaries.
type DiffRow struct {
	Metric     string   // summary.json path, or the tool's figure
	Label      string   // its human name
	Tool       string   // for per-tool rows
	Kind       string   // count, rate, duration, usd, score
	Old, New   *float64 // nil: no data (or the tool is absent)
	Presence   string   // "", "appeared", "disappeared" (tools)
	Regression float64  // how much worse NEW is, normalised; ≤ 0 when not worse
}

// Diff compares a NEW summary with an OLD one.
type Diff struct {
	OldAt, NewAt string
	Headline     []DiffRow // worst regression first
	Tools        []DiffRow // worst regression first
}

// LoadSummary reads a summary.json, refusing anything but agentstat.summary/v1.
func LoadSummary(path string) (*Summary, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if s.Schema != SchemaVersion {
		return nil, fmt.Errorf("%s: schema %q, want %q", path, s.Schema, SchemaVersion)
	}
	return &s, nil
}

func f64(n int64) *float64 { return ptr(float64(n)) }

// worse scores a change: better says which direction is good ("up", "down",
// "" for neutral); rates and scores count absolute change, durations relative.
func worse(kind, better string, old, cur *float64) float64 {
	if old == nil || cur == nil || better == "" {
		return 0
	}
	d := *cur - *old
	switch kind {
	case "duration", "usd":
		if *old == 0 {
			return 0
		}
		d = d / *old
	case "score":
		d = d / 10
	}
	if better == "up" {
		d = -d
	}
	return d
}

// Compare diffs two summaries.
func Compare(old, cur *Summary) Diff {
	d := Diff{OldAt: old.GeneratedAt, NewAt: cur.GeneratedAt}
	for _, h := range Headline {
		if !h.Diff {
			continue
		}
		o, n := h.Get(old), h.Get(cur)
		d.Headline = append(d.Headline, DiffRow{Metric: h.Path, Label: h.Label, Kind: h.Kind, Old: o, New: n, Regression: worse(h.Kind, h.Better, o, n)})
	}
	slices.SortStableFunc(d.Headline, func(a, b DiffRow) int { return cmp.Compare(math.Max(b.Regression, 0), math.Max(a.Regression, 0)) })

	olds, news := map[string]ToolRow{}, map[string]ToolRow{}
	var names []string
	for _, t := range old.Tools {
		olds[t.Name] = t
		names = append(names, t.Name)
	}
	for _, t := range cur.Tools {
		news[t.Name] = t
		if _, ok := olds[t.Name]; !ok {
			names = append(names, t.Name)
		}
	}
	for _, name := range names {
		o, inOld := olds[name]
		n, inNew := news[name]
		presence := ""
		switch {
		case !inOld:
			presence = "appeared"
		case !inNew:
			presence = "disappeared"
		}
		for _, f := range ToolFigures {
			var ov, nv *float64
			if inOld {
				ov = f.Get(o)
			}
			if inNew {
				nv = f.Get(n)
			}
			d.Tools = append(d.Tools, DiffRow{Metric: f.Path, Label: f.Label, Tool: name, Kind: f.Kind, Old: ov, New: nv, Presence: presence, Regression: worse(f.Kind, f.Better, ov, nv)})
		}
	}
	// Tools by their worst figure, then name; a tool's rows stay together.
	worst := map[string]float64{}
	for _, r := range d.Tools {
		worst[r.Tool] = math.Max(worst[r.Tool], r.Regression)
	}
	slices.SortStableFunc(d.Tools, func(a, b DiffRow) int {
		return cmp.Or(cmp.Compare(worst[b.Tool], worst[a.Tool]), cmp.Compare(a.Tool, b.Tool))
	})
	return d
}

// RegressionLimit is one --fail-on-regression limit.
type RegressionLimit struct {
	Metric string // a headline figure's path, or a per-tool figure's (every tool)
	Tool   bool   // Metric is a per-tool figure
	Limit  float64
	Text   string
}

// RegressionKeys lists the names --fail-on-regression accepts.
func RegressionKeys() []string {
	var keys []string
	for _, f := range Headline {
		if f.Regression != "" {
			keys = append(keys, f.Regression)
		}
	}
	for _, f := range ToolFigures {
		if f.Regression != "" {
			keys = append(keys, f.Regression)
		}
	}
	slices.Sort(keys)
	return keys
}

// regressionMetric is the figure a --fail-on-regression name limits.
func regressionMetric(name string) (metric string, tool, ok bool) {
	for _, f := range Headline {
		if f.Regression != "" && f.Regression == name {
			return f.Path, false, true
		}
	}
	for _, f := range ToolFigures {
		if f.Regression != "" && f.Regression == name {
			return f.Path, true, true
		}
	}
	return "", false, false
}

// ParseRegressionLimit reads NAME=LIMIT: rates in points (0.02 or 2%),
// durations as a relative rise (0.2 or 20%), quality in score points.
func ParseRegressionLimit(text string) (RegressionLimit, error) {
	name, val, ok := strings.Cut(text, "=")
	metric, tool, known := regressionMetric(strings.TrimSpace(name))
	if !ok || !known {
		return RegressionLimit{}, fmt.Errorf("--fail-on-regression %q: use NAME=LIMIT with NAME one of %s", text, strings.Join(RegressionKeys(), ", "))
	}
	val = strings.TrimSpace(val)
	pct := strings.HasSuffix(val, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(val, "%"), 64)
	if err != nil || !(v >= 0) || math.IsInf(v, 1) { // NaN too
		return RegressionLimit{}, fmt.Errorf("--fail-on-regression %q: the limit is a non-negative number", text)
	}
	if pct {
		v /= 100
	}
	return RegressionLimit{Metric: metric, Tool: tool, Limit: v, Text: text}, nil
}

// Violation is a figure that got worse by more than a limit allows.
type Violation struct {
	Row    DiffRow
	Amount float64 // how much worse: points of a rate, a relative rise of a duration, score points
	Limit  RegressionLimit
}

// Changed reports whether the figure moved, or appeared or disappeared.
func (r DiffRow) Changed() bool {
	switch {
	case r.Presence != "":
		return true
	case r.Old == nil || r.New == nil:
		return (r.Old == nil) != (r.New == nil)
	}
	return *r.Old != *r.New
}

// Violations lists the rows that got worse by more than a limit allows.
func (d Diff) Violations(limits []RegressionLimit) []Violation {
	var out []Violation
	for _, l := range limits {
		rows := d.Headline
		if l.Tool {
			rows = d.Tools
		}
		for _, r := range rows {
			if r.Metric != l.Metric || r.Old == nil || r.New == nil {
				continue
			}
			amount := r.Regression
			if r.Kind == "score" {
				amount *= 10 // back to score points
			}
			if amount > l.Limit+1e-12 {
				out = append(out, Violation{Row: r, Amount: amount, Limit: l})
			}
		}
	}
	return out
}

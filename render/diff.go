package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/agentstat/agentstat/metrics"
)

func diffValue(kind string, v *float64) string {
	switch kind {
	case "count":
		if v == nil {
			return NA
		}
		return Count(int64(*v))
	case "rate":
		return Rate(v)
	case "duration":
		return Millis(v)
	case "usd":
		return USD(v)
	}
	return Score(v)
}

// change shows how a figure of a kind moved from old to cur.
func change(kind string, old, cur *float64) string {
	switch kind {
	case "count":
		if old == nil || cur == nil {
			return NA
		}
		return ChangeCount(int64(*old), int64(*cur))
	case "rate":
		return ChangePoints(old, cur)
	case "duration", "usd":
		return ChangeRelative(old, cur)
	}
	return ChangeScore(old, cur)
}

// DiffMarkdown writes the comparison of two summaries: the headline figures
// and the tools that changed (every one with all), worst regressions first,
// and the regressions over the limits.
func DiffMarkdown(w io.Writer, d metrics.Diff, violations []metrics.Violation, all bool) error {
	var b strings.Builder
	b.WriteString("# agentstat diff\n\n")
	changed := 0
	for _, r := range d.Headline {
		if r.Changed() {
			changed++
		}
	}
	fmt.Fprintf(&b, "Old: %s · new: %s. %d of %d headline figures changed; **worse** marks one that got worse, the worst first.\n\n",
		MarkdownText(d.OldAt), MarkdownText(d.NewAt), changed, len(d.Headline))
	if len(violations) > 0 {
		fmt.Fprintf(&b, "**Regressions over the limits (%d):**\n\n", len(violations))
		for _, v := range violations {
			fmt.Fprintf(&b, "- %s\n", MarkdownText(ViolationText(v)))
		}
		b.WriteString("\n")
	}
	hidden := false
	t := newTable("Figure", ">Old", ">New", ">Change", "")
	for _, r := range d.Headline {
		if !all && !r.Changed() {
			hidden = true
			continue
		}
		t.add(r.Label, diffValue(r.Kind, r.Old), diffValue(r.Kind, r.New), change(r.Kind, r.Old, r.New), mark(r))
	}
	if len(t.rows) > 0 {
		t.write(&b)
	}
	tools, shown := toolDiffs(d.Tools)
	if len(tools) > 0 {
		b.WriteString("## Tools\n\n")
		fmt.Fprintf(&b, "%d of %d tools changed.\n\n", shown, len(tools))
		cols := []string{"Tool"}
		for _, f := range metrics.ToolFigures {
			cols = append(cols, ">"+f.Label)
		}
		tt := newTable(append(cols, "")...)
		for _, tr := range tools {
			if !all && !tr.changed {
				hidden = true
				continue
			}
			tt.add(tr.cells...)
		}
		if len(tt.rows) > 0 {
			tt.write(&b)
		}
	}
	if hidden {
		b.WriteString("Figures and tools that did not change are left out; `agentstat diff --all` shows them.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// toolDiff is one tool's line of the diff: its figures side by side.
type toolDiff struct {
	cells   []string
	changed bool
}

// toolDiffs folds the per-tool rows (a tool's figures stay together, in the
// order of metrics.ToolFigures) into a line per tool.
func toolDiffs(rows []metrics.DiffRow) (out []toolDiff, changed int) {
	for i := 0; i < len(rows); {
		tool := rows[i].Tool
		tr := toolDiff{cells: []string{tool}}
		note := ""
		for ; i < len(rows) && rows[i].Tool == tool; i++ {
			r := rows[i]
			cell := diffValue(r.Kind, r.New)
			if r.Changed() {
				tr.changed = true
				cell = diffValue(r.Kind, r.Old) + " → " + diffValue(r.Kind, r.New)
				if r.Old != nil && r.New != nil {
					cell += " (" + change(r.Kind, r.Old, r.New) + ")"
				}
			}
			switch r.Presence {
			case "disappeared":
				cell = diffValue(r.Kind, r.Old) + " → none"
			case "appeared":
				cell = "none → " + diffValue(r.Kind, r.New)
			}
			tr.cells = append(tr.cells, cell)
			if r.Presence != "" {
				note = r.Presence
			} else if mark(r) != "" && note == "" {
				note = mark(r)
			}
		}
		tr.cells = append(tr.cells, note)
		if tr.changed {
			changed++
		}
		out = append(out, tr)
	}
	return out, changed
}

// ViolationText says which figure got worse, by how much in its own unit,
// and the limit it passed.
func ViolationText(v metrics.Violation) string {
	name := v.Row.Label
	if v.Row.Tool != "" {
		name = v.Row.Tool + ": " + strings.ToLower(v.Row.Label[:1]) + v.Row.Label[1:]
	}
	var amount string
	switch v.Row.Kind {
	case "rate":
		amount = signed(v.Amount*100, 1) + " pp"
	case "duration", "usd":
		amount = signed(v.Amount*100, 1) + "%"
	case "score":
		amount = signed(v.Amount, 2) + " points"
	default:
		amount = signed(v.Amount, 0)
	}
	return fmt.Sprintf("%s got worse by %s (limit %s)", name, amount, v.Limit.Text)
}

func mark(r metrics.DiffRow) string {
	if r.Regression > 1e-12 {
		return "worse"
	}
	return ""
}

package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/agentstat/agentstat/analyze"
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
	case "duration":
		return ChangeRelative(old, cur)
	}
	return ChangeScore(old, cur)
}

// DiffMarkdown writes the comparison of two summaries: every headline figure
// and every tool with old, new and change, worst regressions first.
func DiffMarkdown(w io.Writer, d analyze.Diff, violations []string) error {
	var b strings.Builder
	b.WriteString("# agentstat diff\n\n")
	fmt.Fprintf(&b, "Old: %s · new: %s. Rows are ordered worst regression first; **worse** marks a figure that got worse.\n\n",
		MarkdownText(d.OldAt), MarkdownText(d.NewAt))
	if len(violations) > 0 {
		fmt.Fprintf(&b, "**Regressions over the limits (%d):**\n\n", len(violations))
		for _, v := range violations {
			fmt.Fprintf(&b, "- %s\n", MarkdownText(v))
		}
		b.WriteString("\n")
	}
	t := newTable("Figure", ">Old", ">New", ">Change", "")
	for _, r := range d.Headline {
		t.add(r.Metric, diffValue(r.Kind, r.Old), diffValue(r.Kind, r.New), change(r.Kind, r.Old, r.New), mark(r))
	}
	t.write(&b)
	if len(d.Tools) > 0 {
		b.WriteString("## Tools\n\n")
		t = newTable("Tool", "Figure", ">Old", ">New", ">Change", "")
		for _, r := range d.Tools {
			note := mark(r)
			if r.Presence != "" && r.Metric == "calls" {
				note = strings.TrimSpace(r.Presence + " " + note)
			}
			t.add(r.Tool, r.Metric, diffValue(r.Kind, r.Old), diffValue(r.Kind, r.New), change(r.Kind, r.Old, r.New), note)
		}
		t.write(&b)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mark(r analyze.DiffRow) string {
	if r.Regression > 1e-12 {
		return "worse"
	}
	return ""
}

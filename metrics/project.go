package metrics

import (
	"cmp"
	"path"
	"slices"
	"strings"

	"github.com/agentstat/agentstat/model"
)

// ProjectOf is the project a run belongs to: the directory its agent worked
// in where the log says (Run.Project), else the first directory of its
// source below the scanned root ("." for a file directly in it).
func ProjectOf(r *model.Run) string {
	if r.Project != "" {
		return r.Project
	}
	if dir, _, ok := strings.Cut(r.Source, "/"); ok && dir != "" && dir != ".." {
		return dir
	}
	return "."
}

// sameProject reports whether project is the one asked for: equal once
// trailing separators are dropped.
func sameProject(project, asked string) bool {
	trim := func(s string) string {
		if t := strings.TrimRight(s, `/\`); t != "" {
			return t
		}
		return s
	}
	return trim(project) == trim(asked)
}

// projectLabels names each project by its last two path elements, or more
// where two projects would share a label.
func projectLabels(projects []string) map[string]string {
	parts := map[string][]string{}
	for _, p := range projects {
		parts[p] = strings.FieldsFunc(p, func(c rune) bool { return c == '/' || c == '\\' })
	}
	label := func(p string, n int) string {
		ps := parts[p]
		if len(ps) == 0 {
			return p
		}
		return path.Join(ps[max(0, len(ps)-n):]...)
	}
	out := map[string]string{}
	for n := 2; len(out) < len(projects); n++ {
		byLabel := map[string][]string{}
		for _, p := range projects {
			if _, done := out[p]; !done {
				byLabel[label(p, n)] = append(byLabel[label(p, n)], p)
			}
		}
		for l, ps := range byLabel {
			if len(ps) == 1 || n > 64 {
				for _, p := range ps {
					out[p] = cmp.Or(l, p)
				}
				continue
			}
			// Two or more would share l: each takes a longer label, unless one
			// is as long as it gets (then it keeps its whole path).
			for _, p := range ps {
				if len(parts[p]) <= n {
					out[p] = p
				}
			}
		}
	}
	return out
}

// projectRows are summary.json's projects[], by runs, then project.
func (a *Accumulator) projectRows() []ProjectRow {
	keys := make([]string, 0, len(a.Projects))
	for k := range a.Projects {
		keys = append(keys, k)
	}
	labels := projectLabels(keys)
	rows := make([]ProjectRow, 0, len(keys))
	for _, k := range keys {
		p := a.Projects[k]
		rows = append(rows, ProjectRow{Project: k, Label: labels[k], Runs: p.Runs, SuccessRate: rate(p.Success, p.Decided),
			ToolCalls: p.Calls, Errors: p.Errors, ErrorRate: rate(p.Errors, p.Known), Cancelled: p.Cancelled,
			Tokens: tokenCounts(p.Tokens), CostUSD: a.cost(p.Usage)})
	}
	slices.SortFunc(rows, func(x, y ProjectRow) int {
		return cmp.Or(cmp.Compare(y.Runs, x.Runs), cmp.Compare(x.Project, y.Project))
	})
	return rows
}

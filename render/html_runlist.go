package render

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// writeRunData writes runs-data.js: every run, newest first, for the run
// list's search, filters and sorting in the browser (agentstat.js). A
// script rather than a JSON file: a page opened from file:// may load a
// script but not fetch a file. Strings are JSON-escaped (<, >, & and the
// line separators too, as the chart options' strings), so no text from a
// log can end or escape the data.
//
// Each row: page, title, status, format, project, model (the last four as
// indexes into their lists), started (Unix ms or null), started as shown,
// duration (ms or null), duration as shown, tool calls, errors, cancelled,
// tokens, cost (USD or null), cost as shown, source, id, tools, error texts,
// the tools that failed (names, a line each).
func (h *htmlWriter) writeRunData(w io.Writer, order []int32) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	dicts := [4]struct {
		names []string
		index map[string]int
	}{}
	for i := range dicts {
		dicts[i].index = map[string]int{}
	}
	word := func(d int, s string) int {
		k, ok := dicts[d].index[s]
		if !ok {
			k = len(dicts[d].names)
			dicts[d].index[s] = k
			dicts[d].names = append(dicts[d].names, s)
		}
		return k
	}
	bw.WriteString("window.agentstatRuns = {\"rows\": [\n")
	var b, failed []byte
	for i, k := range order {
		r := h.r.Runs.At(int(k))
		v := h.runRow(&r, "")
		b = b[:0]
		if i > 0 {
			b = append(b, ",\n"...)
		}
		b = append(b, '[')
		b = appendJSONString(b, []byte(r.Page))
		b = appendJSONString(append(b, ','), []byte(v.Name))
		for d, s := range [...]string{r.Status, r.Format, v.Project, r.Model} {
			b = strconv.AppendInt(append(b, ','), int64(word(d, s)), 10)
		}
		b = append(b, ',')
		if r.Started.IsZero() {
			b = append(b, "null"...)
		} else {
			b = strconv.AppendInt(b, r.Started.UnixMilli(), 10)
		}
		b = appendJSONString(append(b, ','), []byte(v.Started))
		b = appendJSONNumber(append(b, ','), r.DurationMS)
		b = appendJSONString(append(b, ','), []byte(v.Duration))
		for _, n := range [...]int64{int64(r.ToolCalls), int64(r.Errors), int64(r.Cancelled), r.Tokens} {
			b = strconv.AppendInt(append(b, ','), n, 10)
		}
		b = appendJSONNumber(append(b, ','), r.CostUSD)
		for _, s := range [...]string{v.Cost, r.Source, r.ID, r.Tools, r.ErrorTexts} {
			b = appendJSONString(append(b, ','), []byte(s))
		}
		failed = failed[:0]
		for line := range strings.Lines(r.FailedTools) {
			if len(failed) > 0 {
				failed = append(failed, '\n')
			}
			name, _ := failedTool(line)
			failed = append(failed, name...)
		}
		b = appendJSONString(append(b, ','), failed)
		b = append(b, ']')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	bw.WriteString("\n]")
	for d, key := range [...]string{"status", "format", "project", "model"} {
		names, err := json.Marshal(dicts[d].names)
		if err != nil {
			return err
		}
		bw.WriteString(",\n\"" + key + "\": ")
		bw.Write(names)
	}
	bw.WriteString("};\n")
	return bw.Flush()
}

func appendJSONNumber(b []byte, v *float64) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, *v, 'g', -1, 64)
}

// runLists writes runs.html, runs-2.html, …: every run, newest first.
func (h *htmlWriter) runLists() error {
	runs := h.newest
	pages := max(1, (len(runs)+htmlRunsPerPage-1)/htmlRunsPerPage)
	name := func(i int) string {
		if i == 0 {
			return "runs.html"
		}
		return fmt.Sprintf("runs-%d.html", i+1)
	}
	var rows []runRowView
	for p := 0; p < pages; p++ {
		lo, hi := p*htmlRunsPerPage, min(len(runs), (p+1)*htmlRunsPerPage)
		data := struct {
			Page  page
			Note  string
			Pages []pageLink
			Runs  []runRowView
			List  bool // the searchable list of every run (runs-data.js)
		}{Page: h.page(fmt.Sprintf("All runs (%d)", len(runs)), "assets/", name(p), false), List: p == 0,
			Note: fmt.Sprintf("Runs %d–%d of %d, newest first.", min(lo+1, hi), hi, len(runs))}
		if pages > 1 {
			for i := 0; i < pages; i++ {
				data.Pages = append(data.Pages, pageLink{Label: strconv.Itoa(i + 1), Href: name(i), Current: i == p})
			}
		}
		rows = rows[:0]
		for _, k := range runs[lo:hi] {
			r := h.r.Runs.At(int(k))
			rows = append(rows, h.runRow(&r, ""))
		}
		data.Runs = rows
		if err := h.execute(name(p), "runs.html", data); err != nil {
			return err
		}
	}
	return h.d.WriteFile("runs-data.js", func(w io.Writer) error { return h.writeRunData(w, runs) })
}

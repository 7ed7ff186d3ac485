package render

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentstat/agentstat/metrics"
	"github.com/agentstat/agentstat/model"
	"github.com/xuri/excelize/v2"
)

// The workbook's sheets but the two long ones (Runs, Tool calls): each a
// table of the summary, and the Summary sheet with its charts.

func (x *xlsxWriter) tools() error {
	cols := append([]column{{"Tool", 24, ""}, {"Category", 14, ""}, {"Calls", 10, "int"}, {"Share", 9, "pct"},
		{"Errors", 9, "int"}, {"Error rate", 11, "pct"}, {"Cancelled", 10, "int"}, {"Cancel rate", 11, "pct"}}, durationCols("Duration")...)
	var rows [][]any
	for _, tool := range x.r.Summary.Tools {
		rows = append(rows, append([]any{tool.Name, tool.Category, tool.Calls, tool.Share, tool.Errors, tool.ErrorRate, tool.Cancelled, tool.CancelRate}, statsValues(tool.DurationMS)...))
	}
	return x.smallTable("Tools", cols, rows)
}

func (x *xlsxWriter) agents() error {
	var rows [][]any
	for _, a := range x.r.Summary.Agents {
		rows = append(rows, []any{a.Name, a.Runs, a.ToolCalls, a.Errors, a.ErrorRate, a.CostUSD})
	}
	return x.smallTable("Agents", []column{{"Agent", 24, ""}, {"Runs", 10, "int"}, {"Tool calls", 11, "int"},
		{"Errors", 9, "int"}, {"Error rate", 11, "pct"}, {"Cost (USD)", 12, "usd"}}, rows)
}

// projects writes the Projects sheet: each project's runs, calls, tokens and cost.
func (x *xlsxWriter) projects() error {
	var rows [][]any
	for _, p := range x.r.Summary.Projects {
		rows = append(rows, []any{p.Label, p.Project, p.Runs, p.SuccessRate, p.ToolCalls, p.Errors, p.ErrorRate, p.Cancelled, p.Tokens.Total, p.CostUSD})
	}
	return x.smallTable("Projects", []column{{"Project", 28, ""}, {"Path", 50, ""}, {"Runs", 8, "int"},
		{"Success rate", 12, "pct"}, {"Tool calls", 11, "int"}, {"Errors", 9, "int"}, {"Error rate", 11, "pct"},
		{"Cancelled", 10, "int"}, {"Tokens", 14, "int"}, {"Cost (USD)", 12, "usd"}}, rows)
}

// models writes the Models sheet: each model's requests, tokens and cost
// (blank where the price table does not price it).
func (x *xlsxWriter) models() error {
	var rows [][]any
	for _, m := range x.r.Summary.Models {
		k := m.Tokens
		rows = append(rows, []any{m.Model, m.Requests, m.Runs, k.Total, k.Input, k.Output, k.CacheRead, k.CacheCreation, k.CacheWrite1h, m.CostUSD})
	}
	return x.smallTable("Models", []column{{"Model", 30, ""}, {"Requests", 10, "int"}, {"Runs", 8, "int"},
		{"Tokens", 14, "int"}, {"Input", 12, "int"}, {"Output", 12, "int"}, {"Cache read", 14, "int"},
		{"Cache write", 13, "int"}, {"Cache write, 1 hour", 18, "int"}, {"Cost (USD)", 12, "usd"}}, rows)
}

// errors writes the Errors sheet with the regular API (it holds at most 100
// rows): a streamed sheet takes no hyperlinks once flushed.
func (x *xlsxWriter) errors() error {
	const sheet = "Errors"
	f := x.f
	if _, err := f.NewSheet(sheet); err != nil {
		return err
	}
	if err := x.printSetup(sheet, true); err != nil {
		return err
	}
	cols := []column{{"Count", 9, "int"}, {"Tool", 22, ""}, {"Message (normalised)", 60, ""}, {"Example run", 30, ""}, {"Example source", 40, ""}}
	for i, c := range cols {
		name, _ := excelize.ColumnNumberToName(i + 1)
		f.SetColWidth(sheet, name, name, c.width)
		f.SetCellValue(sheet, name+"1", c.head)
	}
	f.SetCellStyle(sheet, "A1", "E1", x.styles["head"])
	errs := x.r.Summary.Errors
	runRow := exampleRuns(x.r.Runs, errs, maxSheetRows-1) // → its row on the Runs sheet, less 2
	for i, e := range errs {
		row := i + 2
		for c, v := range []any{e.Count, xlsxText(e.Tool), xlsxText(e.Message), xlsxText(e.ExampleRun), xlsxText(e.ExampleSource)} {
			name, _ := excelize.CoordinatesToCellName(c+1, row)
			if err := f.SetCellValue(sheet, name, v); err != nil {
				return err
			}
		}
		if k, ok := runRow[runKey{e.ExampleSource, e.ExampleRun}]; ok { // the example run links to its row
			cell := fmt.Sprintf("D%d", row)
			if err := f.SetCellHyperLink(sheet, cell, fmt.Sprintf("Runs!A%d", k+2), "Location"); err != nil {
				return err
			}
			f.SetCellStyle(sheet, cell, cell, x.styles["link"])
		}
	}
	f.SetCellStyle(sheet, "A2", fmt.Sprintf("A%d", len(errs)+2), x.styles["int"])
	if err := f.SetPanes(sheet, &excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return err
	}
	ref := fmt.Sprintf("A1:E%d", max(len(errs)+1, 2))
	if err := f.SetSheetDimension(sheet, ref); err != nil {
		return err
	}
	return f.AddTable(sheet, &excelize.Table{Range: ref, Name: tableName(sheet), StyleName: "TableStyleLight9"})
}

func (x *xlsxWriter) quality() error {
	q := &x.r.Summary.Quality
	rows := [][]any{{"all", "", q.Evaluations, q.Mean, q.OutputValidRate}}
	for _, g := range q.ByPhase {
		rows = append(rows, []any{"phase", g.Phase, g.Evaluations, g.Mean, g.OutputValidRate})
	}
	for _, g := range q.ByTool {
		rows = append(rows, []any{"tool", g.Tool, g.Evaluations, g.Mean, g.OutputValidRate})
	}
	for _, b := range q.Distribution {
		rows = append(rows, []any{"score bin", fmt.Sprintf("%d to %s%d", b.From, map[bool]string{true: "", false: "under "}[b.To == 10], b.To), b.Count, nil, nil})
	}
	return x.smallTable("Quality", []column{{"Group", 10, ""}, {"Name", 30, ""}, {"Evaluations", 12, "int"},
		{"Mean score", 11, "score"}, {"Output valid", 12, "pct"}}, rows)
}

func (x *xlsxWriter) context() error {
	c := &x.r.Summary.Context
	tok := c.Tokens
	var rows [][]any
	for _, kv := range [][2]any{{"total", tok.Total}, {"input", tok.Input}, {"output", tok.Output}, {"cache_read", tok.CacheRead},
		{"cache_creation", tok.CacheCreation}, {"unspecified", tok.Unspecified}} {
		rows = append(rows, []any{"tokens", kv[0], kv[1]})
	}
	for _, m := range x.r.Summary.Models {
		rows = append(rows, []any{"tokens by model", m.Model, m.Tokens.Total})
	}
	for _, g := range []struct {
		what string
		m    map[string]int64
	}{{"references by type", c.RefsByType}, {"references by relevance", c.RefsByRelevance}, {"references by usage mode", c.RefsByUsageMode},
		{"contributions by type", c.ContributionsByType}, {"subagents by type", c.Subagents.ByType}} {
		names, counts := sortedCounts(g.m)
		for i := range names {
			rows = append(rows, []any{g.what, names[i], counts[i]})
		}
	}
	for _, kv := range [][2]any{{"subagent calls", c.Subagents.Calls}, {"subagent tokens", c.Subagents.Tokens},
		{"budget warnings", c.Budget.Warnings}, {"budgets exceeded", c.Budget.Exceeded}, {"retries", c.Budget.Retries}} {
		rows = append(rows, []any{"totals", kv[0], kv[1]})
	}
	return x.smallTable("Context", []column{{"What", 28, ""}, {"Key", 30, ""}, {"Count", 14, "int"}}, rows)
}

var runStatusCols = func() []column {
	var cols []column
	for _, s := range model.RunStatuses {
		cols = append(cols, column{string(s), 9, "int"})
	}
	return cols
}()

func (x *xlsxWriter) daily() error {
	cols := append([]column{{"Date", 12, "date"}, {"Runs", 9, "int"}}, runStatusCols...)
	cols = append(cols, column{"Success rate", 12, "pct"}, column{"Tool calls", 11, "int"}, column{"Errors", 9, "int"},
		column{"Error rate", 11, "pct"}, column{"Run p50", 13, "dur"}, column{"Run p95", 13, "dur"}, column{"Tokens", 12, "int"},
		column{"Input tokens", 13, "int"}, column{"Output tokens", 13, "int"}, column{"Cache-read tokens", 16, "int"},
		column{"Cache-creation tokens", 19, "int"}, column{"Unspecified tokens", 17, "int"}, column{"Cost (USD)", 12, "usd"})
	var rows [][]any
	for _, d := range x.r.Summary.Daily {
		var day any = d.Date // a date Excel can sort and chart by, midnight in --tz
		if t, err := time.ParseInLocation(time.DateOnly, d.Date, x.loc); err == nil {
			day = t
		}
		row := []any{day, d.Runs}
		for _, s := range model.RunStatuses {
			row = append(row, d.ByStatus[string(s)])
		}
		k := d.TokensByKind
		rows = append(rows, append(row, d.SuccessRate, d.ToolCalls, d.Errors, d.ErrorRate, d.DurationMSP50, d.DurationMSP95, d.Tokens,
			k.Input, k.Output, k.CacheRead, k.CacheCreation, k.Unspecified, d.CostUSD))
	}
	return x.smallTable("Daily", cols, rows)
}

func (x *xlsxWriter) dataQuality() error {
	in := &x.r.Summary.Inputs
	var rows [][]any
	for _, s := range in.Skipped {
		rows = append(rows, []any{s.Path, s.Reason, s.Detail})
	}
	names, counts := sortedCounts(in.Warnings)
	for i := range names {
		rows = append(rows, []any{"warning: " + names[i], fmt.Sprint(counts[i]), in.WarningFiles[names[i]]})
	}
	return x.smallTable("Data quality", []column{{"File or warning", 50, ""}, {"Reason or count", 18, ""}, {"Detail", 60, ""}}, rows)
}

// summary writes the headline figures and the native charts, drawn from the
// Daily and Tools sheets.
func (x *xlsxWriter) summary() error {
	s := &x.r.Summary
	f, sh := x.f, "Summary"
	title := x.r.Title
	if title == "" {
		title = "agentstat report"
	}
	f.SetCellValue(sh, "A1", xlsxText(title))
	f.SetCellStyle(sh, "A1", "A1", x.styles["title"])
	f.SetCellValue(sh, "A2", xlsxText(fmt.Sprintf("Generated %s · times in %s", s.GeneratedAt, s.TZ)))
	f.SetCellValue(sh, "A4", "Figure")
	f.SetCellValue(sh, "B4", "Value")
	f.SetCellStyle(sh, "A4", "B4", x.styles["head"])
	// The headline figures, each in its kind's number format.
	for i, fig := range metrics.Headline {
		a, b := fmt.Sprintf("A%d", 5+i), fmt.Sprintf("B%d", 5+i)
		label, style := fig.Label, figureStyles[fig.Kind]
		if fig.Kind == "usd" {
			label += " (USD)"
		}
		f.SetCellValue(sh, a, label)
		if v := fig.Get(s); v != nil {
			value := *v
			if fig.Kind == "duration" {
				value /= msPerDay
			}
			f.SetCellValue(sh, b, value)
		}
		f.SetCellStyle(sh, b, b, x.styles[style])
	}
	f.SetColWidth(sh, "A", "A", 24)
	f.SetColWidth(sh, "B", "B", 14)
	if err := f.SetSheetDimension(sh, fmt.Sprintf("A1:B%d", 4+len(metrics.Headline))); err != nil {
		return err
	}
	if err := x.printSetup(sh, false); err != nil {
		return err
	}
	f.SetPanes(sh, &excelize.Panes{Freeze: true, YSplit: 4, TopLeftCell: "A5", ActivePane: "bottomLeft"})

	oneColour := false // a series is one colour: Excel's default paints each bar of one series its own
	if n := len(s.Daily); n > 0 {
		var series []excelize.ChartSeries
		for i, st := range model.RunStatuses {
			col, _ := excelize.ColumnNumberToName(3 + i)
			series = append(series, excelize.ChartSeries{
				Name: fmt.Sprintf("'Daily'!$%s$1", col), Categories: fmt.Sprintf("'Daily'!$A$2:$A$%d", n+1),
				Values: fmt.Sprintf("'Daily'!$%s$2:$%s$%d", col, col, n+1),
				Fill:   excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{strings.TrimPrefix(statusColor[string(st)], "#")}},
			})
		}
		if err := f.AddChart(sh, "D4", &excelize.Chart{VaryColors: &oneColour, Type: excelize.ColStacked, Series: series,
			Title:  []excelize.RichTextRun{{Text: "Runs per day by status"}},
			Format: excelize.GraphicOptions{ScaleX: 1.4, ScaleY: 1.1}, Legend: excelize.ChartLegend{Position: "bottom"},
			XAxis: excelize.ChartAxis{Title: []excelize.RichTextRun{{Text: "day"}}}, YAxis: excelize.ChartAxis{Title: []excelize.RichTextRun{{Text: "runs"}}}}); err != nil {
			return err
		}
	}
	if n := min(len(s.Tools), maxToolsCharted); n > 0 {
		cats := fmt.Sprintf("'Tools'!$A$2:$A$%d", n+1)
		if err := f.AddChart(sh, "D22", &excelize.Chart{VaryColors: &oneColour, Type: excelize.Bar,
			Series: []excelize.ChartSeries{{Name: "'Tools'!$F$1", Categories: cats, Values: fmt.Sprintf("'Tools'!$F$2:$F$%d", n+1)}},
			Title:  []excelize.RichTextRun{{Text: fmt.Sprintf("Error rate per tool (the %d most called)", n)}},
			Format: excelize.GraphicOptions{ScaleX: 1.4, ScaleY: 1.3}, Legend: excelize.ChartLegend{Position: "none"},
			XAxis: excelize.ChartAxis{Title: []excelize.RichTextRun{{Text: "tool"}}, ReverseOrder: true},
			YAxis: excelize.ChartAxis{Title: []excelize.RichTextRun{{Text: "error rate"}}, NumFmt: excelize.ChartNumFmt{CustomNumFmt: "0%"}}}); err != nil {
			return err
		}
		if err := f.AddChart(sh, "D42", &excelize.Chart{VaryColors: &oneColour, Type: excelize.Col,
			Series: []excelize.ChartSeries{{Name: "'Tools'!$K$1", Categories: cats, Values: fmt.Sprintf("'Tools'!$K$2:$K$%d", n+1)}},
			Title:  []excelize.RichTextRun{{Text: fmt.Sprintf("Tool-call duration p95 per tool (the %d most called)", n)}},
			Format: excelize.GraphicOptions{ScaleX: 1.4, ScaleY: 1.1}, Legend: excelize.ChartLegend{Position: "none"},
			XAxis: excelize.ChartAxis{Title: []excelize.RichTextRun{{Text: "tool"}}},
			YAxis: excelize.ChartAxis{Title: []excelize.RichTextRun{{Text: "p95"}}, NumFmt: excelize.ChartNumFmt{CustomNumFmt: "[h]:mm:ss"}}}); err != nil {
			return err
		}
	}
	return nil
}

// figureStyles are the workbook's number formats of each kind of figure.
var figureStyles = map[string]string{"count": "int", "rate": "pct", "duration": "dur", "usd": "usd", "score": "score", "number": "num1"}

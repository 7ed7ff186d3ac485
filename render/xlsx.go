package render

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"

	"github.com/agentstat/agentstat/analyze"
	"github.com/agentstat/agentstat/model"
)

// maxSheetRows is Excel's row limit; a longer sheet continues on another
// ("Tool calls (2)") rather than failing or being truncated.
var maxSheetRows = 1 << 20 // a variable for tests

// maxCellText is Excel's limit on the text of one cell.
const maxCellText = 32767

// xlsxText makes a log value safe for a cell. It is always written as a
// string cell, which Excel never evaluates (only cells written with a
// formula are), so "=HYPERLINK(…)" shows as typed; characters XML 1.0 and
// Excel reject are removed and the text is clipped to Excel's cell limit.
func xlsxText(s string) string {
	if !cellSafe(s) {
		s = cellMapped(s)
	}
	if len(s) > maxCellText {
		s = clipText(s, maxCellText/4) // runes of up to 4 bytes: stay under the limit in UTF-16 units too
	}
	return s
}

// cellMapped drops from s what XML 1.0 and Excel refuse, and replaces
// bytes that are not UTF-8.
func cellMapped(s string) string {
	return strings.Map(func(r rune) rune {
		if (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0xFFFE || r == 0xFFFF || (r >= 0xD800 && r <= 0xDFFF) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}

// cellSafe reports whether cellMapped would leave s as it is: valid
// UTF-8 (so no surrogate) with no control character but tab, newline and
// carriage return, and no U+FFFE or U+FFFF. Nearly every cell is, and the
// mapping decoded each of their runes (300,000 rows of a long transcript).
func cellSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 && c != '\t' && c != '\n' && c != '\r':
			return false
		case c == 0xEF && i+2 < len(s) && s[i+1] == 0xBF && s[i+2]&^1 == 0xBE: // U+FFFE, U+FFFF
			return false
		}
	}
	return utf8.ValidString(s)
}

// column describes one column of a sheet: its header (with the unit), width and style.
type column struct {
	head  string
	width float64
	style string // "", "int", "pct", "dur", "score", "time", "date", "usd", "num1"
}

type xlsxWriter struct {
	f      *excelize.File
	styles map[string]int
	loc    *time.Location
	r      *analyze.Report
	pages  bool // the run pages are beside the workbook
}

// XLSX writes report.xlsx: the Summary sheet with native charts, then a
// sheet per table, every one with a frozen header and a filter.
func XLSX(w io.Writer, r *analyze.Report) error { return xlsxOf(w, r, false) }

// xlsxOf writes the workbook; with pages, the run pages are beside it
// (runs/) and the Runs sheet links each run to its own.
func xlsxOf(w io.Writer, r *analyze.Report, pages bool) error {
	x := &xlsxWriter{f: excelize.NewFile(), styles: map[string]int{}, loc: r.Location, r: r, pages: pages}
	defer x.f.Close()
	zw := newOrderedZip(w)
	defer zw.discard()
	// The package goes to w through zw, not through the bytes.Buffer excelize
	// would fill with the whole workbook.
	x.f.SetZipWriter(func(io.Writer) excelize.ZipWriter { return zw })
	if x.loc == nil {
		x.loc = time.UTC
	}
	if err := x.makeStyles(); err != nil {
		return err
	}
	if err := x.f.SetSheetName("Sheet1", "Summary"); err != nil {
		return err
	}
	steps := []func() error{x.runs, x.toolCalls, x.tools, x.models, x.projects, x.agents, x.errors, x.quality, x.context, x.daily, x.dataQuality, x.summary}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	// A chart adds the image types' defaults in map order: the same report
	// must be the same bytes.
	if ct := x.f.ContentTypes; ct != nil {
		sort.SliceStable(ct.Defaults, func(i, j int) bool { return ct.Defaults[i].Extension < ct.Defaults[j].Extension })
	}
	// No SetActiveSheet: the Summary (the new file's Sheet1) is active
	// already, and SetActiveSheet parses every streamed sheet back into
	// memory to untick its tab.
	_, err := x.f.WriteTo(io.Discard) // nothing: the package went to w
	return err
}

func (x *xlsxWriter) makeStyles() error {
	fmtTime, fmtDur, fmtScore, fmtUSD, fmtDate, fmtNum1 := "yyyy-mm-dd hh:mm:ss", "[h]:mm:ss.000", "0.00", `"$"#,##0.0000`, "yyyy-mm-dd", "#,##0.0"
	for _, s := range []struct { // in a fixed order: style ids are part of the bytes
		name  string
		style *excelize.Style
	}{
		{"head", &excelize.Style{Font: &excelize.Font{Bold: true}, Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"DDEBF7"}}}},
		{"int", &excelize.Style{NumFmt: 3}},
		{"pct", &excelize.Style{NumFmt: 10}},
		{"dur", &excelize.Style{CustomNumFmt: &fmtDur}},
		{"score", &excelize.Style{CustomNumFmt: &fmtScore}},
		{"time", &excelize.Style{CustomNumFmt: &fmtTime}},
		{"title", &excelize.Style{Font: &excelize.Font{Bold: true, Size: 14}}},
		{"link", &excelize.Style{Font: &excelize.Font{Color: "0563C1", Underline: "single"}}},
		{"usd", &excelize.Style{CustomNumFmt: &fmtUSD}},
		{"date", &excelize.Style{CustomNumFmt: &fmtDate}},
		{"num1", &excelize.Style{CustomNumFmt: &fmtNum1}},
	} {
		id, err := x.f.NewStyle(s.style)
		if err != nil {
			return err
		}
		x.styles[s.name] = id
	}
	return nil
}

// msPerDay turns milliseconds into an Excel duration, a fraction of a day.
const msPerDay = 24 * 60 * 60 * 1000

// cell turns a value into what a sheet holds: numbers as numbers (nil for
// no data), durations as Excel durations, times as Excel date-times in the
// --tz zone, text made safe.
func (x *xlsxWriter) cell(v any, style string) any {
	id, styled := x.styles[style]
	styled = styled && style != ""
	switch t := v.(type) {
	case nil:
		return nil
	case *float64:
		if t == nil {
			return nil
		}
		v = *t
		if style == "dur" {
			v = *t / msPerDay
		}
	case xlsxLink:
		if t.path == "" {
			return nil
		}
		// Its path is agentstat's own (a sanitised page name), quoted as
		// Excel quotes a string; the path is the cached value, which a
		// reader that computes no formula shows.
		quoted := `"` + strings.ReplaceAll(t.path, `"`, `""`) + `"`
		return excelize.Cell{StyleID: id, Formula: "HYPERLINK(" + quoted + "," + quoted + ")", Value: t.path}
	case string:
		if v = xlsxText(t); v == "" {
			return nil // a blank cell, not an empty string: Excel's blanks filter and ISBLANK find it
		}
	case time.Time:
		if t.IsZero() {
			return nil
		}
		wall := x.wallClock(t)
		v = wall
		if serial, ok := excelSerial(wall); ok && styled {
			v = serial // a date style makes it a time, as excelize's own time cells
		}
	}
	if styled {
		return excelize.Cell{StyleID: id, Value: v}
	}
	return v
}

// wallClock is t's wall clock in the --tz zone, as a zone-less (UTC)
// time: Excel times have no zone.
func (x *xlsxWriter) wallClock(t time.Time) time.Time {
	_, offset := t.In(x.loc).Zone()
	return t.UTC().Add(time.Duration(offset) * time.Second)
}

// excelSerial is the Excel date-time (days since 1899-12-30, 1900 date
// system) that excelize writes for a zone-less time, computed as its
// timeToExcelTime does: a styled date cell written as this number is the
// same XML, without the number's round trip through math/big that
// excelize's time cells make (a third of the tool-call sheet's time).
// Times before March 1900 or after 2150 are left to excelize.
func excelSerial(t time.Time) (float64, bool) {
	if t.Before(serialFrom) || !t.Before(serialUntil) {
		return 0, false
	}
	const day = 24 * time.Hour
	diff := t.Sub(serialEpoch)
	rem := diff % day
	// +1: Excel counts a 29 February 1900 that never was (Lotus 1-2-3's bug).
	return float64(diff-rem)/float64(day) + float64(rem)/float64(day) + 1, true
}

var (
	serialEpoch = time.Date(1899, time.December, 31, 0, 0, 0, 0, time.UTC)
	serialFrom  = time.Date(1900, time.March, 1, 0, 0, 0, 0, time.UTC)
	serialUntil = time.Date(2150, time.January, 1, 0, 0, 0, 0, time.UTC)
)

// sheetTable streams one table into a new sheet (continuing on "name (2)", … past
// Excel's row limit), with frozen headers, a filter and fixed widths.
type sheetTable struct {
	x     *xlsxWriter
	name  string
	cols  []column
	left  int // the data rows still to come, which each part's range counts
	part  int
	sw    *excelize.StreamWriter
	sheet string
	row   int
	cells []any // one row's, reused
}

// newTable starts a table of rows data rows.
func (x *xlsxWriter) newTable(name string, rows int, cols ...column) (*sheetTable, error) {
	t := &sheetTable{x: x, name: name, cols: cols, left: rows}
	return t, t.open()
}

func (t *sheetTable) open() error {
	t.part++
	t.sheet = t.name
	if t.part > 1 {
		t.sheet = fmt.Sprintf("%s (%d)", t.name, t.part)
	}
	if _, err := t.x.f.NewSheet(t.sheet); err != nil {
		return err
	}
	// Set before the stream writer takes the sheet over, they are written
	// with it: the stream writer writes the sheet's range first.
	if err := t.x.printSetup(t.sheet, true); err != nil {
		return err
	}
	last, _ := excelize.CoordinatesToCellName(len(t.cols), 1+min(t.left, maxSheetRows-1))
	if err := t.x.f.SetSheetDimension(t.sheet, "A1:"+last); err != nil {
		return err
	}
	sw, err := t.x.f.NewStreamWriter(t.sheet)
	if err != nil {
		return err
	}
	t.sw, t.row = sw, 1
	// Last column first: excelize puts each width before those set already,
	// and readers want <col> in order.
	for i := len(t.cols) - 1; i >= 0; i-- {
		if err := sw.SetColWidth(i+1, i+1, t.cols[i].width); err != nil {
			return err
		}
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return err
	}
	head := make([]any, len(t.cols))
	for i, c := range t.cols {
		head[i] = excelize.Cell{StyleID: t.x.styles["head"], Value: c.head}
	}
	return sw.SetRow("A1", head)
}

// add writes one row; values line up with the columns and take their styles.
func (t *sheetTable) add(values ...any) error {
	if t.row == maxSheetRows {
		if err := t.close(); err != nil {
			return err
		}
		if err := t.open(); err != nil {
			return err
		}
	}
	t.cells = t.cells[:0]
	for i, v := range values {
		t.cells = append(t.cells, t.x.cell(v, t.cols[i].style))
	}
	t.row++
	t.left--
	cell, _ := excelize.CoordinatesToCellName(1, t.row)
	return t.sw.SetRow(cell, t.cells)
}

func (t *sheetTable) close() error {
	last, _ := excelize.CoordinatesToCellName(len(t.cols), max(t.row, 2)) // a table has a row under its header
	if err := t.sw.AddTable(&excelize.Table{Range: "A1:" + last, Name: tableName(t.sheet), StyleName: "TableStyleLight9"}); err != nil {
		return err
	}
	return t.sw.Flush()
}

// smallTable writes a table whose rows are all at hand.
func (x *xlsxWriter) smallTable(name string, cols []column, rows [][]any) error {
	t, err := x.newTable(name, len(rows), cols...)
	if err != nil {
		return err
	}
	for _, row := range rows {
		if err := t.add(row...); err != nil {
			return err
		}
	}
	return t.close()
}

// printSetup has a sheet print landscape, fitted to the page's width (as
// many pages down as it takes), with its header row on every page when it
// has one: printed with the defaults, a workbook runs to a hundred pages with columns cut off.
func (x *xlsxWriter) printSetup(sheet string, header bool) error {
	landscape, wide, tall, fit := "landscape", 1, 0, true
	if err := x.f.SetPageLayout(sheet, &excelize.PageLayoutOptions{Orientation: &landscape, FitToWidth: &wide, FitToHeight: &tall}); err != nil {
		return err
	}
	if err := x.f.SetSheetProps(sheet, &excelize.SheetPropsOptions{FitToPage: &fit}); err != nil {
		return err
	}
	if !header {
		return nil
	}
	return x.f.SetDefinedName(&excelize.DefinedName{Name: "_xlnm.Print_Titles", RefersTo: "'" + strings.ReplaceAll(sheet, "'", "''") + "'!$1:$1", Scope: sheet})
}

// tableName is a sheet's name as an Excel table name (letters, digits, _).
func tableName(sheet string) string {
	var b strings.Builder
	for _, r := range sheet {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return "t_" + b.String()
}

var durationCols = func(prefix string) []column {
	var cols []column
	for _, p := range []string{"p50", "p90", "p95", "p99", "max"} {
		cols = append(cols, column{prefix + " " + p, 12, "dur"})
	}
	return cols
}

func statsValues(s analyze.Stats) []any {
	return []any{s.P50, s.P90, s.P95, s.P99, s.Max}
}

func (x *xlsxWriter) runs() error {
	t, err := x.newTable("Runs", x.r.Runs.Len(),
		column{"Run id", 30, ""}, column{"Format", 12, ""}, column{"Source", 40, ""}, column{"Title", 40, ""},
		column{"Status", 10, ""}, column{"Agent", 16, ""}, column{"Model", 24, ""}, column{"Started", 20, "time"},
		column{"Ended", 20, "time"}, column{"Duration", 14, "dur"}, column{"Tool calls", 11, "int"}, column{"Errors", 9, "int"},
		column{"Steps", 8, "int"}, column{"Tokens", 12, "int"}, column{"Cost (USD)", 12, "usd"}, column{"Project", 40, ""}, column{"Page", 40, "link"})
	if err != nil {
		return err
	}
	for _, r := range x.r.Runs.All() {
		page := xlsxLink{}
		if x.pages {
			page.path = "runs/" + r.Page
		}
		if err := t.add(r.ID, r.Format, r.Source, r.Title, r.Status, r.Agent, r.Model, r.Started, r.Ended, r.DurationMS,
			r.ToolCalls, r.Errors, r.Steps, r.Tokens, r.CostUSD, r.Project, page); err != nil {
			return err
		}
	}
	return t.close()
}

func (x *xlsxWriter) toolCalls() error {
	calls := 0
	for _, r := range x.r.Runs.All() {
		calls += r.ToolCalls
	}
	if x.r.Details == nil {
		calls = 0
	}
	t, err := x.newTable("Tool calls", calls, toolCallColumns...)
	if err != nil {
		return err
	}
	if x.r.Details != nil {
		// In chunks: a long session's calls are never all in memory here.
		for chunk, err := range x.r.Details.Calls() {
			if err != nil {
				return fmt.Errorf("run details: %w", err)
			}
			for i := range chunk.Calls {
				c := &chunk.Calls[i]
				if err := t.add(chunk.Run.ID, chunk.Run.Source, chunk.First+i+1, c.Name, c.Category, c.Agent, c.Started, c.Ended,
					msIf(c.HasDuration, c.DurationMS), c.Outcome.String(), c.Error, msIf(c.HasThink, c.ThinkMS)); err != nil {
					return err
				}
			}
		}
	}
	return t.close()
}

// msIf is a duration cell's value: ms, or nil (blank) when there is none.
func msIf(has bool, ms float64) *float64 {
	if !has {
		return nil
	}
	return &ms
}

// toolCallColumns are the Tool calls sheet's.
var toolCallColumns = []column{{"Run id", 30, ""}, {"Source", 40, ""}, {"#", 6, "int"}, {"Tool", 22, ""},
	{"Category", 14, ""}, {"Agent", 16, ""}, {"Started", 20, "time"}, {"Ended", 20, "time"},
	{"Duration", 14, "dur"}, {"Outcome", 9, ""}, {"Error", 50, ""}, {"Think time", 12, "dur"}}

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
	rows := []struct {
		label string
		value any
		style string
	}{
		{"Runs", s.Runs.Total, "int"}, {"Success rate", s.Runs.SuccessRate, "pct"}, {"Tool calls", s.ToolCalls.Total, "int"},
		{"Tool-call errors", s.ToolCalls.Errors, "int"}, {"Tool-call error rate", s.ToolCalls.ErrorRate, "pct"},
		{"Run p50", s.Runs.DurationMS.P50, "dur"}, {"Run p95", s.Runs.DurationMS.P95, "dur"},
		{"Tool-call p50", s.ToolCalls.DurationMS.P50, "dur"}, {"Tool-call p95", s.ToolCalls.DurationMS.P95, "dur"},
		{"Steps", s.Steps.Total, "int"}, {"Step completion rate", s.Steps.CompletionRate, "pct"},
		{"Quality evaluations", s.Quality.Evaluations, "int"}, {"Quality mean", s.Quality.Mean, "score"},
		{"Output valid rate", s.Quality.OutputValidRate, "pct"}, {"Tokens", s.Context.Tokens.Total, "int"},
		{"Cost (USD)", s.Cost.USD, "usd"}, {"Run cost p95 (USD)", s.Runs.CostUSD.P95, "usd"}, {"Unpriced tokens", s.Cost.UnpricedTokens, "int"},
		{"Cancelled tool calls", s.ToolCalls.Cancelled, "int"}, {"Cancel rate", s.ToolCalls.CancelRate, "pct"},
		{"Peak prompt p95 (tokens)", s.Context.Window.PeakTokens.P95, "int"}, {"Runs at 90% of the window", s.Context.Window.RunsOver90, "int"},
		{"Compactions", s.Context.Window.Compactions.Sum, "int"},
		{"Tokens per run (mean)", s.Context.TokensPerRun.Mean, "num1"}, {"Cache-read share", s.Context.CacheReadShare, "pct"},
		{"Files seen", s.Inputs.FilesSeen, "int"}, {"Files parsed", s.Inputs.FilesParsed, "int"},
		{"Files skipped", s.Inputs.FilesSkipped, "int"}, {"Values redacted", s.Inputs.Redacted, "int"},
	}
	f.SetCellValue(sh, "A4", "Figure")
	f.SetCellValue(sh, "B4", "Value")
	f.SetCellStyle(sh, "A4", "B4", x.styles["head"])
	for i, r := range rows {
		a, b := fmt.Sprintf("A%d", 5+i), fmt.Sprintf("B%d", 5+i)
		f.SetCellValue(sh, a, r.label)
		if v := x.cell(r.value, ""); v != nil {
			if ms, ok := v.(float64); ok && r.style == "dur" {
				v = ms / msPerDay
			}
			f.SetCellValue(sh, b, v)
		}
		f.SetCellStyle(sh, b, b, x.styles[r.style])
	}
	f.SetColWidth(sh, "A", "A", 24)
	f.SetColWidth(sh, "B", "B", 14)
	if err := f.SetSheetDimension(sh, fmt.Sprintf("A1:B%d", 4+len(rows))); err != nil {
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

// xlsxLink is a cell that opens a file of the report (a run's page) by its
// path relative to the workbook: a HYPERLINK formula.
type xlsxLink struct{ path string }

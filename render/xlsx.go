package render

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"

	"github.com/agentstat/agentstat/metrics"
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
	r      *metrics.Report
	pages  bool // the run pages are beside the workbook
}

// xlsxOf writes the workbook; with pages, the run pages are beside it
// (runs/) and the Runs sheet links each run to its own. excelize's scratch
// files, which have names, go to scratch (the report's temporary
// directory, which a killed run's successor removes; "" for $TMPDIR).
func xlsxOf(w io.Writer, r *metrics.Report, pages bool, scratch string) error {
	x := &xlsxWriter{f: excelize.NewFile(excelize.Options{TmpDir: scratch}), styles: map[string]int{}, loc: r.Location, r: r, pages: pages}
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

func statsValues(s metrics.Stats) []any {
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
	calls := 0 // the sheet's rows: the calls the run index counts, which the details hold
	if x.r.Details != nil {
		for _, r := range x.r.Runs.All() {
			calls += r.ToolCalls
		}
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

// xlsxLink is a cell that opens a file of the report (a run's page) by its
// path relative to the workbook: a HYPERLINK formula.
type xlsxLink struct{ path string }

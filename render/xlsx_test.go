package render

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/agentstat/agentstat/metrics"
)

// hostileXLSXLog puts formulas and control characters where a log's text goes.
const hostileXLSXLog = `{"session_id": "=1+1", "task_title": "=HYPERLINK(\"http://x\",\"y\")", "status": "success",
 "created_at": "2026-03-01T23:30:00Z", "completed_at": "2026-03-01T23:30:02Z",
 "tool_calls": [
  {"call_id": "1", "tool_name": "@SUM(A1:A9)", "started_at": "2026-03-01T23:30:00Z", "duration_ms": 1500, "output": {"status": "failed", "error": "+cmd|' /C calc'!A0"}},
  {"call_id": "2", "tool_name": "-2+3", "duration_ms": 20, "output": {"status": "failed", "error": "\ttab\rcr\u0001bell\u001fend"}}
 ]}`

func xlsxReport(t *testing.T) (*metrics.Report, string) {
	t.Helper()
	logs := t.TempDir()
	os.WriteFile(filepath.Join(logs, "hostile.json"), []byte(hostileXLSXLog), 0o644)
	os.WriteFile(filepath.Join(logs, "more.json"), []byte(`{"session_id": "plain", "status": "failed", "created_at": "2026-03-02T10:00:00Z",
	 "tool_calls": [{"call_id": "1", "tool_name": "Read", "duration_ms": 100, "output": {"status": "success"}}]}`), 0o644)
	// Requests to a priced model and to one without a price.
	os.WriteFile(filepath.Join(logs, "s.jsonl"), []byte(`{"type":"assistant","sessionId":"s","uuid":"a","timestamp":"2026-03-02T10:00:00Z","requestId":"r1","message":{"id":"m1","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":1000,"output_tokens":100}}}
{"type":"assistant","sessionId":"s","uuid":"b","timestamp":"2026-03-02T10:01:00Z","requestId":"r2","message":{"id":"m2","model":"mystery-1","content":[],"usage":{"input_tokens":50,"output_tokens":5}}}
`), 0o644)
	r, err := reportWithDetails(logs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Details.Close() })
	var b bytes.Buffer
	if err := xlsxOf(&b, r, true, ""); err != nil { // as beside the run pages: the Runs sheet links them
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.xlsx")
	os.WriteFile(path, b.Bytes(), 0o644)
	return r, path
}

func num64(t *testing.T, f *excelize.File, sheet, cell string) float64 {
	t.Helper()
	v, err := f.GetCellValue(sheet, cell, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		t.Fatalf("%s!%s = %q: %v", sheet, cell, v, err)
	}
	return x
}

func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestXLSXMatchesSummary reads the workbook back and compares its figures
// with summary.json's, and checks log text is stored as text, never formulas.
func TestXLSXMatchesSummary(t *testing.T) {
	r, path := xlsxReport(t)
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := []string{"Summary", "Runs", "Tool calls", "Tools", "Models", "Projects", "Agents", "Errors", "Quality", "Context", "Daily", "Data quality"}
	if got := f.GetSheetList(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("sheets = %v", got)
	}
	if got := f.GetActiveSheetIndex(); got != 0 {
		t.Errorf("active sheet %d, want the Summary", got)
	}
	s := &r.Summary
	// Summary: every headline figure, by its label, as a number; durations
	// as Excel's, in days.
	figures, err := f.GetRows("Summary")
	if err != nil {
		t.Fatal(err)
	}
	row := map[string]int{} // label → row number
	for i, r := range figures {
		if len(r) > 0 {
			row[r[0]] = i + 1
		}
	}
	if len(row) < len(metrics.Headline) {
		t.Errorf("%d labels on the Summary sheet, want the %d headline figures", len(row), len(metrics.Headline))
	}
	for label, v := range map[string]float64{"Runs": float64(s.Runs.Total), "Success rate": *s.Runs.SuccessRate, "Tool-call error rate": *s.ToolCalls.ErrorRate,
		"Run p95": *s.Runs.DurationMS.P95 / msPerDay, "Tool-call p95": *s.ToolCalls.DurationMS.P95 / msPerDay, "Cost (USD)": *s.Cost.USD,
		"Tokens per run (mean)": *s.Context.TokensPerRun.Mean, "Files seen": float64(s.Inputs.FilesSeen)} {
		if row[label] == 0 {
			t.Errorf("no %q on the Summary sheet", label)
			continue
		}
		if got := num64(t, f, "Summary", fmt.Sprintf("B%d", row[label])); !closeTo(got, v) {
			t.Errorf("Summary %s = %v, want %v", label, got, v)
		}
	}
	// The Runs sheet opens each run's page.
	for i, run := range r.Runs.All() {
		cell := fmt.Sprintf("Q%d", i+2)
		want := fmt.Sprintf(`HYPERLINK("runs/%s","runs/%s")`, run.Page, run.Page)
		if got, err := f.GetCellFormula("Runs", cell); err != nil || got != want {
			t.Errorf("Runs!%s = %q (%v), want %q", cell, got, err, want)
		}
	}
	// Every sheet names the range it uses, lists its columns in order and prints in landscape, fitted to the width.
	for _, sheet := range f.GetSheetList() {
		if dim, err := f.GetSheetDimension(sheet); err != nil || dim == "A1" || !strings.HasPrefix(dim, "A1:") {
			t.Errorf("%s: dimension %q (%v)", sheet, dim, err)
		}
		layout, err := f.GetPageLayout(sheet)
		if err != nil || layout.Orientation == nil || *layout.Orientation != "landscape" || layout.FitToWidth == nil || *layout.FitToWidth != 1 {
			t.Errorf("%s: page layout %+v (%v)", sheet, layout, err)
		}
		if b := readPart(t, path, sheetPart(t, f, sheet)); !colsInOrder(b) {
			t.Errorf("%s: <col> entries out of order", sheet)
		}
	}
	// Tools: every row against summary.json.
	for i, tool := range s.Tools {
		row := i + 2
		name, _ := f.GetCellValue("Tools", fmt.Sprintf("A%d", row))
		if name != tool.Name || num64(t, f, "Tools", fmt.Sprintf("C%d", row)) != float64(tool.Calls) ||
			!closeTo(num64(t, f, "Tools", fmt.Sprintf("F%d", row)), *tool.ErrorRate) || !closeTo(num64(t, f, "Tools", fmt.Sprintf("K%d", row)), *tool.DurationMS.P95/msPerDay) ||
			num64(t, f, "Tools", fmt.Sprintf("G%d", row)) != float64(tool.Cancelled) {
			t.Errorf("Tools row %d differs from %+v", row, tool)
		}
	}
	// Each chart paints a series in one colour, not each bar its own.
	for i := 1; i <= 3; i++ {
		chart := readPart(t, path, fmt.Sprintf("xl/charts/chart%d.xml", i))
		if !bytes.Contains(chart, []byte(`varyColors val="0"`)) || bytes.Contains(chart, []byte(`varyColors val="1"`)) {
			t.Errorf("chart %d varies its colours by point", i)
		}
	}
	// Models: requests, tokens and cost; a model without a price has a blank cost.
	if len(s.Models) == 0 {
		t.Fatal("no models")
	}
	for i, m := range s.Models {
		row := i + 2
		name, _ := f.GetCellValue("Models", fmt.Sprintf("A%d", row))
		cost, _ := f.GetCellValue("Models", fmt.Sprintf("J%d", row))
		if name != m.Model || num64(t, f, "Models", fmt.Sprintf("B%d", row)) != float64(m.Requests) ||
			num64(t, f, "Models", fmt.Sprintf("D%d", row)) != float64(m.Tokens.Total) ||
			(m.CostUSD == nil) != (cost == "") || m.CostUSD != nil && !closeTo(num64(t, f, "Models", fmt.Sprintf("J%d", row)), *m.CostUSD) {
			t.Errorf("Models row %d = %s %s, differs from %+v", row, name, cost, m)
		}
	}
	// Daily: every day.
	for i, d := range s.Daily {
		row := i + 2
		date, _ := f.GetCellValue("Daily", fmt.Sprintf("A%d", row))
		if serial := num64(t, f, "Daily", fmt.Sprintf("A%d", row)); serial < 40000 || serial != math.Trunc(serial) { // a date, not text
			t.Errorf("Daily!A%d = %v, want a date serial", row, serial)
		}
		if date != d.Date || num64(t, f, "Daily", fmt.Sprintf("B%d", row)) != float64(d.Runs) ||
			num64(t, f, "Daily", fmt.Sprintf("J%d", row)) != float64(d.Errors) {
			t.Errorf("Daily row %d differs from %+v", row, d)
		}
	}
	// Text from the log is a string cell, never a formula, shown as written.
	for _, c := range []struct{ sheet, cell, want string }{
		{"Runs", "A2", "=1+1"}, {"Runs", "D2", `=HYPERLINK("http://x","y")`},
		{"Tool calls", "D2", "@SUM(A1:A9)"}, {"Tool calls", "K2", "+cmd|' /C calc'!A0"},
		{"Tool calls", "D3", "-2+3"}, {"Tool calls", "K3", "\ttab\rcrbellend"},
	} {
		v, _ := f.GetCellValue(c.sheet, c.cell)
		formula, _ := f.GetCellFormula(c.sheet, c.cell)
		typ, _ := f.GetCellType(c.sheet, c.cell)
		if v != c.want || formula != "" || (typ != excelize.CellTypeSharedString && typ != excelize.CellTypeInlineString) {
			t.Errorf("%s!%s = %q (formula %q, type %v), want the text %q", c.sheet, c.cell, v, formula, typ, c.want)
		}
	}
	// A text the log left empty is a blank cell, as Excel's blanks filter
	// and ISBLANK expect, not an empty string: a successful call's error.
	if v, _ := f.GetCellValue("Tool calls", "D4"); v != "Read" {
		t.Errorf("Tool calls!D4 = %q, want the successful call", v)
	}
	if bytes.Contains(readPart(t, path, "xl/worksheets/sheet3.xml"), []byte("<t></t>")) {
		t.Error("the Tool calls sheet holds empty string cells")
	}
	// A run's end is a date-time beside its start.
	if h, _ := f.GetCellValue("Runs", "I1"); h != "Ended" {
		t.Errorf("Runs!I1 = %q, want Ended", h)
	}
	// Start times are Excel date-times, in the report's zone.
	if v, _ := f.GetCellValue("Tool calls", "G2"); v != "2026-03-01 23:30:00" {
		t.Errorf("started = %q", v)
	}
	// The example run of an error links to its row on the Runs sheet.
	if ok, link, _ := f.GetCellHyperLink("Errors", "D2"); !ok || !strings.HasPrefix(link, "Runs!A") {
		t.Errorf("error example link = %v %q", ok, link)
	} else {
		run, _ := f.GetCellValue("Errors", "D2")
		src, _ := f.GetCellValue("Errors", "E2")
		id, _ := f.GetCellValue("Runs", strings.TrimPrefix(link, "Runs!"))
		row := strings.TrimPrefix(link, "Runs!A")
		rowSrc, _ := f.GetCellValue("Runs", "C"+row)
		if id != run || rowSrc != src {
			t.Errorf("error example %q of %q links to %s: run %q of %q", run, src, link, id, rowSrc)
		}
	}
	// Frozen header and a filter on every table sheet.
	for _, sheet := range want[1:] {
		panes, err := f.GetPanes(sheet)
		if err != nil || !panes.Freeze || panes.YSplit != 1 {
			t.Errorf("%s: panes %+v %v", sheet, panes, err)
		}
		if tables, err := f.GetTables(sheet); err != nil || len(tables) != 1 || !strings.HasPrefix(tables[0].Range, "A1:") {
			t.Errorf("%s: tables %+v %v", sheet, tables, err)
		}
	}
	// The Summary sheet holds the native charts: its drawing has three.
	if n := strings.Count(string(readPart(t, path, "xl/drawings/drawing1.xml")), "<c:chart "); n != 3 {
		t.Errorf("%d charts on the Summary sheet, want 3", n)
	}
}

func readPart(t *testing.T, path, name string) []byte {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	rc, err := zr.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, _ := io.ReadAll(rc)
	return b
}

func TestXLSXText(t *testing.T) {
	for in, want := range map[string]string{
		"plain": "plain", "a\x00b\x01c\x1fd": "abcd", "tab\tnewline\ncr\r": "tab\tnewline\ncr\r",
		"\ufffe\uffff": "", "bad \xff utf8": "bad \ufffd utf8",
	} {
		if got := xlsxText(in); got != want {
			t.Errorf("xlsxText(%q) = %q, want %q", in, got, want)
		}
	}
	// A text that is empty, or nothing but what a cell cannot hold, is no cell.
	x := &xlsxWriter{styles: map[string]int{}}
	for _, in := range []string{"", "\x01\x02", "\ufffe"} {
		if got := x.cell(in, ""); got != nil {
			t.Errorf("cell(%q) = %#v, want a blank cell", in, got)
		}
	}
	if got := x.cell("a", ""); got != "a" {
		t.Errorf(`cell("a") = %#v`, got)
	}
	if got := xlsxText(strings.Repeat("长", 40000)); len([]rune(got)) > 32767 {
		t.Errorf("a long text keeps %d characters", len([]rune(got)))
	}
}

// cellSafe says yes only to text cellMapped leaves as it is, and to most
// of it: bytes around the ones the mapping drops, at every offset.
func TestCellSafe(t *testing.T) {
	alphabet := []string{"a", "\t", "\n", "\r", "\x00", "\x1f", " ", "\uFFFE", "\uFFFF", "\uFFFD", "\uFEFF", "\xEF", "\xBF", "\xBE", "\xED\xA0\x80", "长", "\xff", "\U0001F600"}
	rnd := rand.New(rand.NewPCG(5, 6))
	safe := 0
	for range 50000 {
		var b strings.Builder
		for k := rnd.IntN(6); k > 0; k-- {
			b.WriteString(alphabet[rnd.IntN(len(alphabet))])
		}
		s := b.String()
		if want := cellMapped(s) == s; cellSafe(s) != want {
			t.Fatalf("cellSafe(%q) = %v, but the mapping leaves it alone: %v", s, !want, want)
		}
		if cellSafe(s) {
			safe++
		}
	}
	if safe < 1000 {
		t.Fatalf("only %d safe texts", safe)
	}
}

// TestXLSXInLibreOffice converts every sheet to CSV with LibreOffice, a real
// spreadsheet client, and checks it opens the workbook and shows log text literally.
func TestXLSXInLibreOffice(t *testing.T) {
	soffice, err := exec.LookPath("soffice")
	if err != nil {
		soffice, err = exec.LookPath("libreoffice")
	}
	if err != nil {
		if os.Getenv("AGENTSTAT_REQUIRE_LIBREOFFICE") != "" {
			t.Fatal("no LibreOffice (apt-get install libreoffice-calc-nogui)")
		}
		t.Skip("no LibreOffice: real-client test skipped (apt-get install libreoffice-calc-nogui)")
	}
	r, path := xlsxReport(t)
	out := t.TempDir()
	// One CSV per sheet: the filter option's last field -1 exports them all.
	cmd := exec.Command(soffice, "--headless", "--norestore", "-env:UserInstallation=file://"+t.TempDir(),
		"--convert-to", `csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1`, "--outdir", out, path)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("soffice: %v\n%s", err, b)
	}
	read := func(sheet string) [][]string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(out, "report-"+sheet+".csv"))
		if err != nil {
			entries, _ := os.ReadDir(out)
			t.Fatalf("%v (have %v)", err, entries)
		}
		rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", sheet, err)
		}
		return rows
	}
	runs := read("Runs")
	if runs[1][0] != "=1+1" || runs[1][3] != `=HYPERLINK("http://x","y")` {
		t.Errorf("Runs row shows %q / %q, want the log text literally", runs[1][0], runs[1][3])
	}
	// Each run's page, by the link LibreOffice computes.
	for i, run := range r.Runs.All() {
		if got := runs[i+1][16]; got != "runs/"+run.Page {
			t.Errorf("Runs row %d links %q, want runs/%s", i+1, got, run.Page)
		}
	}
	calls := read("Tool calls")
	for i, want := range [][]string{
		{"=1+1", "hostile.json", "1", "@SUM(A1:A9)", "", "", "2026-03-01 23:30:00", "", "00:01.50", "error", "+cmd|' /C calc'!A0", ""},
		{"=1+1", "hostile.json", "2", "-2+3", "", "", "", "", "00:00.02", "error", "\ttab\rcrbellend", ""},
		{"plain", "more.json", "1", "Read", "", "", "", "", "00:00.10", "ok", "", ""},
	} {
		if got := calls[i+1]; !slices.Equal(got, want) {
			t.Errorf("Tool calls row %d = %q, want %q", i+1, got, want)
		}
	}
	if summary := read("Summary"); summary[3][0] != "Figure" || summary[4][0] != "Runs" {
		t.Errorf("Summary labels %q", summary[3:5])
	}
	if errs := read("Errors"); errs[1][1] != "@SUM(A1:A9)" || errs[1][3] != "=1+1" || errs[1][4] != "hostile.json" {
		t.Errorf("Errors row %q", errs[1])
	}
	tools := read("Tools")
	if len(tools) != len(r.Summary.Tools)+1 {
		t.Errorf("Tools has %d rows", len(tools))
	}
	for i, tool := range r.Summary.Tools {
		if tools[i+1][0] != tool.Name || tools[i+1][2] != strconv.FormatInt(tool.Calls, 10) {
			t.Errorf("Tools row %d = %v, want %s %d", i+1, tools[i+1], tool.Name, tool.Calls)
		}
	}
	daily := read("Daily")
	if len(daily) != len(r.Summary.Daily)+1 || daily[1][0] != r.Summary.Daily[0].Date {
		t.Errorf("Daily = %v", daily)
	}
	for _, sheet := range []string{"Summary", "Agents", "Errors", "Quality", "Context", "Data quality"} {
		read(sheet)
	}
}

// wallClock is the wall clock of the time in the zone, as the zone's clock
// shows it, across offsets of minutes and seconds and both sides of daylight
// saving changes.
func TestWallClock(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, zone := range []string{"UTC", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu", "Europe/Amsterdam", "Pacific/Chatham", "America/St_Johns"} {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Skipf("no zone data: %v", err)
		}
		x := &xlsxWriter{loc: loc}
		times := []time.Time{
			time.Date(2026, 3, 8, 6, 59, 59, 999999999, time.UTC), time.Date(2026, 3, 8, 7, 0, 0, 0, time.UTC), // New York's spring
			time.Date(2026, 11, 1, 5, 59, 59, 0, time.UTC), time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC), // and autumn
			time.Date(1890, 6, 1, 12, 0, 0, 0, time.UTC),                                                // Amsterdam's local mean time, +0:19:32
			time.Date(2026, 4, 4, 14, 59, 0, 0, time.UTC), time.Date(2026, 4, 4, 15, 0, 0, 0, time.UTC), // Lord Howe's half hour
		}
		for range 2000 {
			times = append(times, time.Unix(rng.Int64N(6e9)-1e9, rng.Int64N(1e9)).In(time.FixedZone("x", rng.IntN(50000)-25000)))
		}
		for _, tm := range times {
			l := tm.In(loc)
			want := time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), l.Second(), l.Nanosecond(), time.UTC)
			if got := x.wallClock(tm); !got.Equal(want) || got.Location() != time.UTC {
				t.Fatalf("%s, %v: wall clock %v, want %v", zone, tm, got, want)
			}
		}
	}
}

// A styled date cell written as excelSerial's number is, byte for byte, the
// XML excelize writes for the time itself, on either side of every edge.
func TestExcelSerialSameAsExcelize(t *testing.T) {
	times := []time.Time{
		time.Date(1899, 12, 30, 12, 0, 0, 0, time.UTC), time.Date(1900, 2, 28, 23, 59, 59, 999999999, time.UTC),
		time.Date(1900, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(1970, 1, 1, 0, 0, 0, 1, time.UTC),
		time.Date(2026, 3, 5, 10, 0, 0, 123456789, time.UTC), time.Date(2149, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(2150, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2300, 6, 1, 0, 0, 0, 0, time.UTC),
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 3000 {
		times = append(times, time.Date(1900+rng.IntN(260), time.Month(1+rng.IntN(12)), 1+rng.IntN(28), rng.IntN(24), rng.IntN(60), rng.IntN(60), rng.IntN(1e9), time.UTC))
	}
	fast := 0
	sheet := func(serial bool) []byte {
		f := excelize.NewFile()
		defer f.Close()
		style, err := f.NewStyle(&excelize.Style{NumFmt: 22})
		if err != nil {
			t.Fatal(err)
		}
		sw, err := f.NewStreamWriter("Sheet1")
		if err != nil {
			t.Fatal(err)
		}
		for i, tm := range times {
			var v any = tm
			if s, ok := excelSerial(tm); ok && serial {
				v, fast = s, fast+1
			}
			cell, _ := excelize.CoordinatesToCellName(1, i+1)
			if err := sw.SetRow(cell, []any{excelize.Cell{StyleID: style, Value: v}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := sw.Flush(); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := f.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatal(err)
		}
		rc, err := zr.Open("xl/worksheets/sheet1.xml")
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	want, got := sheet(false), sheet(true)
	if fast < len(times)*9/10 {
		t.Fatalf("only %d of %d times as serial numbers", fast, len(times))
	}
	if !bytes.Equal(got, want) {
		a, b := strings.Split(string(got), "<row"), strings.Split(string(want), "<row")
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("row %d: serial <row%s, excelize <row%s", i, a[i], b[i])
			}
		}
		t.Fatalf("the sheets differ")
	}
}

// TestXLSXSheetContinues: past the row limit (three here) the tool calls go
// on in "Tool calls (2)", each part with its header, its rows and a table
// over exactly them.
func TestXLSXSheetContinues(t *testing.T) {
	defer func(n int) { maxSheetRows = n }(maxSheetRows)
	maxSheetRows = 3
	_, path := xlsxReport(t)
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var tools []string
	for _, sheet := range []string{"Tool calls", "Tool calls (2)"} {
		rows, err := f.GetRows(sheet)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) == 0 || rows[0][0] != "Run id" {
			t.Fatalf("%s: no header: %q", sheet, rows)
		}
		for _, r := range rows[1:] {
			tools = append(tools, r[3])
		}
		tables, err := f.GetTables(sheet)
		if err != nil || len(tables) != 1 {
			t.Fatalf("%s: tables %v, %v", sheet, tables, err)
		}
		if want := fmt.Sprintf("A1:L%d", max(len(rows), 2)); tables[0].Range != want {
			t.Errorf("%s: table over %s, want %s", sheet, tables[0].Range, want)
		}
	}
	if got := strings.Join(tools, ","); got != "@SUM(A1:A9),-2+3,Read" {
		t.Errorf("tool calls across the parts: %s", got)
	}
}

// Every part of the package inflates whole and to its CRC-32 and size, the
// parts are in name order, and the same report is the same bytes.
func TestXLSXPackage(t *testing.T) {
	defer func(n int) { maxSheetRows = n }(maxSheetRows)
	maxSheetRows = 3
	r, path := xlsxReport(t)
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		rc, err := f.Open()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		_, err = io.Copy(io.Discard, rc) // archive/zip checks the CRC-32 and size at the end
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
	}
	if !slices.IsSorted(names) || len(names) < 20 {
		t.Errorf("parts %q, want them all in name order", names)
	}
	first, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 { // excelize's streamed sheets come in map order
		var again bytes.Buffer
		if err := xlsxOf(&again, r, true, ""); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again.Bytes(), first) {
			t.Fatal("the same report made a different workbook")
		}
	}
}

// sheetPart is the package part that holds a sheet.
func sheetPart(t *testing.T, f *excelize.File, sheet string) string {
	t.Helper()
	for i, name := range f.GetSheetList() {
		if name == sheet {
			return fmt.Sprintf("xl/worksheets/sheet%d.xml", i+1)
		}
	}
	t.Fatalf("no sheet %q", sheet)
	return ""
}

// colsInOrder reports whether a sheet's <col> entries go left to right.
func colsInOrder(sheet []byte) bool {
	last := 0
	for _, m := range regexp.MustCompile(`<col [^>]*min="(\d+)"`).FindAllSubmatch(sheet, -1) {
		n, _ := strconv.Atoi(string(m[1]))
		if n <= last {
			return false
		}
		last = n
	}
	return true
}

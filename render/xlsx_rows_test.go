package render

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"io/fs"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/agentstat/agentstat/analyze/model"
)

// sheetCapture is a zip writer that keeps the first sheet's XML and drops the
// rest: excelize's own rendering of rows, without compressing a package.
type sheetCapture struct{ sheet bytes.Buffer }

func (c *sheetCapture) Create(name string) (io.Writer, error) {
	if name == "xl/worksheets/sheet1.xml" {
		return &c.sheet, nil
	}
	return io.Discard, nil
}
func (c *sheetCapture) AddFS(fs.FS) error { return nil }
func (c *sheetCapture) Close() error      { return nil }

// excelizeRowsXML is what excelize's StreamWriter writes between
// <sheetData> and </sheetData> for rows, the first at row 2.
func excelizeRowsXML(t testing.TB, rows [][]any) string {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	capture := &sheetCapture{}
	f.SetZipWriter(func(io.Writer) excelize.ZipWriter { return capture })
	sw, err := f.NewStreamWriter("Sheet1")
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range rows {
		cell, _ := excelize.CoordinatesToCellName(1, i+2)
		if err := sw.SetRow(cell, row); err != nil {
			t.Fatal(err)
		}
	}
	if err := sw.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteTo(io.Discard); err != nil {
		t.Fatal(err)
	}
	s := capture.sheet.String()
	start, end := strings.Index(s, "<sheetData>"), strings.Index(s, "</sheetData>")
	if start < 0 || end < 0 {
		t.Fatalf("no sheet data in %q", s)
	}
	return s[start+len("<sheetData>") : end]
}

func ourRowsXML(t testing.TB, rows [][]any) string {
	t.Helper()
	var b []byte
	var err error
	for i, row := range rows {
		if b, err = appendRowXML(b, i+2, row); err != nil {
			t.Fatalf("row %v: %v", row, err)
		}
	}
	return string(b)
}

func styled(v any) excelize.Cell { return excelize.Cell{StyleID: 3, Value: v} }

// TestRowXMLSameAsExcelize: every kind of value a table's cell holds, and
// the text cases excelize escapes, come out as excelize's SetRow writes them.
func TestRowXMLSameAsExcelize(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	texts := []string{"", "plain", "Read", " lead", "trail ", "\ttab", "a\nb", "line\r\nend\n", `<&>"'`, "=1+1",
		"_x0041_", "a_x0041_b", "_x005F_", "_x005F_x0041_", "_x005F_xD800_", "_xD800_", "_xd83d_", "snake_case", "__",
		"中文 text", "emoji 😀", "\xff\xfe bad", "bell\x01", "\uFFFE", "\u2028", "\x7f", "~!@#$%^*()[]{}",
		strings.Repeat("x", 40000), strings.Repeat("😀", 20000), strings.Repeat("中", 32767) + "z"}
	var rows [][]any
	for _, s := range texts {
		rows = append(rows, []any{s, styled(s), []byte(s)})
	}
	rows = append(rows,
		[]any{0, -5, int8(-8), int16(300), int32(-70000), int64(math.MaxInt64), uint(7), uint8(255), uint16(65535), uint32(1 << 31), uint64(math.MaxUint64)},
		[]any{1.5, -0.0, 1e21, 1e-7, 123456.789, math.NaN(), math.Inf(1), math.Inf(-1), float32(1.1), float32(math.Inf(-1)), styled(2.25)},
		[]any{true, false, styled(true), 90 * time.Second, time.Duration(0), nil, styled(nil), excelize.Cell{Value: "unstyled"}, excelize.Cell{}},
		[]any{&excelize.Cell{StyleID: 4, Value: 5}, (*excelize.Cell)(nil), struct{ A int }{1}, []int{1, 2}},
	)
	for _, s := range []string{"2026-03-01T12:34:56Z", "2026-03-01T12:34:56.123456789+05:30", "2026-03-01T00:00:00-08:00",
		"1899-12-30T00:00:00Z", "1899-12-31T00:00:00Z", "1899-12-31T12:00:00Z", "1900-02-28T23:59:59Z", "1900-03-01T00:00:00Z",
		"0001-01-01T00:00:00Z", "1600-06-01T10:00:00.5Z", "2149-12-31T23:59:59Z", "2150-01-01T00:00:00Z", "2189-01-01T00:00:00Z",
		"2600-07-04T01:02:03Z", "9999-12-31T23:59:59.999999999Z"} {
		rows = append(rows, []any{styled(at(s)), excelize.Cell{StyleID: 1, Value: at(s).In(time.FixedZone("x", -3600))}})
	}
	wide := make([]any, 60)
	for i := range wide {
		wide[i] = i
	}
	rows = append(rows, wide)
	want, got := excelizeRowsXML(t, rows), ourRowsXML(t, rows)
	if got != want {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("differ at %d:\n ours:     %.300s\n excelize: %.300s", i, got[max(0, i-100):], want[max(0, i-100):])
			}
		}
		t.Fatalf("lengths %d and %d", len(got), len(want))
	}
}

// TestRowXMLRefuses: what excelize would write another way, or with a side
// effect on the workbook, is an error rather than different bytes.
func TestRowXMLRefuses(t *testing.T) {
	for _, v := range []any{
		excelize.Cell{Formula: "=1", Value: 1},
		&excelize.Cell{Formula: "SUM(A1)"},
		[]excelize.RichTextRun{{Text: "r"}},
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), // unstyled: excelize adds a date style
	} {
		if _, err := appendRowXML(nil, 2, []any{v}); err == nil {
			t.Errorf("%#v: no error", v)
		}
	}
}

// FuzzRowXML holds text, numbers and times to excelize's bytes.
func FuzzRowXML(f *testing.F) {
	f.Add("plain", 1.5, int64(3), int64(1772368496000000000))
	f.Add(" _x0041_ <a>\n", math.Inf(1), int64(-1), int64(math.MinInt64))
	f.Add("中文_x005F_xD800_\r", -0.0, int64(math.MaxInt64), int64(-2208988800000000000))
	f.Fuzz(func(t *testing.T, s string, x float64, n, nanos int64) {
		when := time.Unix(0, nanos).UTC()
		rows := [][]any{{s, x, n, styled(s), styled(when), excelize.Cell{StyleID: 2, Value: when.In(time.FixedZone("z", int(n%50000)))}}}
		if want, got := excelizeRowsXML(t, rows), ourRowsXML(t, rows); got != want {
			t.Fatalf("\n ours:     %q\n excelize: %q", got, want)
		}
	})
}

// TestCallRowSameAsCells: a tool call's row written straight from the call
// is the row made of its cells, for every kind of field a call holds, once
// its shared strings are put back inline and its cells' references filled in.
func TestCallRowSameAsCells(t *testing.T) {
	x := callRowWriter(t, time.FixedZone("tz", 9*3600))
	table := &sheetTable{x: x, cols: toolCallColumns}
	texts := []string{"", "Read", " lead", "=1+1", "a<b>&\"'", "_x0041_", "中文", "bell\x01", "\xff", "line\nbreak", strings.Repeat("é", 40000)}
	times := []time.Time{{}, time.Date(2026, 3, 1, 23, 30, 0, 5, time.UTC), time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1899, 12, 31, 20, 0, 0, 0, time.UTC), time.Date(3000, 1, 1, 0, 0, 0, 0, time.FixedZone("x", -7200))}
	outcomes := []model.Outcome{model.OutcomeOK, model.OutcomeError, model.OutcomeUnknown}
	var got, want []string
	for i := range 200 {
		pick := func(k int) string { return texts[(i*k+i/3)%len(texts)] }
		c := model.ToolCall{Name: pick(1), Category: pick(3), Agent: pick(0), Error: pick(7), Outcome: outcomes[i%3],
			Span:    model.Span{Started: times[i%len(times)], Ended: times[(i/2)%len(times)], DurationMS: float64(i) * 1.25, HasDuration: i%4 != 0},
			ThinkMS: []float64{math.Inf(1), float64(i) / 3, math.NaN()}[i%3], HasThink: i%5 == 0}
		run := model.Run{ID: pick(11), Source: pick(13)}
		var dur, think *float64
		if c.HasDuration {
			dur = &c.DurationMS
		}
		if c.HasThink {
			think = &c.ThinkMS
		}
		row, err := appendRowXML(nil, i+2, table.cells(run.ID, run.Source, i+1, c.Name, c.Category, c.Agent, c.Started, c.Ended, dur, c.Outcome.String(), c.Error, think))
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, string(row))
		cr := x.newCallRun(&run)
		got = append(got, string(x.appendCallRow(nil, i+2, &cr, i+1, &c)))
	}
	entries := sharedEntries(t, x.shared)
	refs := 0
	for i := range got {
		row, n := inlineCallRow(t, got[i], entries)
		if refs += n; row != want[i] {
			t.Fatalf("call %d:\n direct: %.400s\n inline: %.400s\n cells:  %.400s", i, got[i], row, want[i])
		}
	}
	if refs != x.shared.refs || len(entries) != x.shared.n {
		t.Errorf("%d cells name %d entries; the table counts %d and %d", refs, len(entries), x.shared.refs, x.shared.n)
	}
}

// FuzzSheetCallRow holds a tool call's row on the Tool calls sheet to the
// row excelize writes for its cells, as TestCallRowSameAsCells does, for
// any texts, times and numbers.
func FuzzSheetCallRow(f *testing.F) {
	f.Add("=1+1", "a/b.json", "Read", "fs", "claude-code", "boom", int64(1772368496000000005), int64(1772368497000000000), 1.25, true)
	f.Add("", " lead", "_x0041_", "", "中文\x01", "line\nbreak", int64(0), int64(-2208988800000000000), math.Inf(1), false)
	f.Fuzz(func(t *testing.T, id, source, name, category, agent, errText string, start, end int64, ms float64, has bool) {
		x := callRowWriter(t, time.FixedZone("tz", int(start%50000)))
		table := &sheetTable{x: x, cols: toolCallColumns}
		when := func(n int64) time.Time {
			if n == 0 {
				return time.Time{}
			}
			return time.Unix(0, n).UTC()
		}
		c := model.ToolCall{Name: name, Category: category, Agent: agent, Error: errText, Outcome: model.Outcome(uint(start) % 3),
			Span: model.Span{Started: when(start), Ended: when(end), DurationMS: ms, HasDuration: has}, ThinkMS: -ms, HasThink: !has}
		run := model.Run{ID: id, Source: source}
		var dur, think *float64
		if c.HasDuration {
			dur = &c.DurationMS
		}
		if c.HasThink {
			think = &c.ThinkMS
		}
		var got, want []string
		for i := range 2 { // the second row names the entries the first made
			row, err := appendRowXML(nil, i+2, table.cells(run.ID, run.Source, i+1, c.Name, c.Category, c.Agent, c.Started, c.Ended, dur, c.Outcome.String(), c.Error, think))
			if err != nil {
				t.Skip(err) // a cell excelize would write otherwise: not one a call makes
			}
			want = append(want, string(row))
			cr := x.newCallRun(&run)
			got = append(got, string(x.appendCallRow(nil, i+2, &cr, i+1, &c)))
		}
		entries := sharedEntries(t, x.shared)
		for i := range got {
			if row, _ := inlineCallRow(t, got[i], entries); row != want[i] {
				t.Fatalf("row %d:\n direct: %.400s\n inline: %.400s\n cells:  %.400s", i, got[i], row, want[i])
			}
		}
	})
}

// callRowWriter is a workbook writer ready to write tool-call rows in loc
// (styles made, shared strings started), closed when tb ends.
func callRowWriter(tb testing.TB, loc *time.Location) *xlsxWriter {
	tb.Helper()
	x := &xlsxWriter{f: excelize.NewFile(), styles: map[string]int{}, loc: loc, rows: map[string]*sheetRows{}}
	tb.Cleanup(func() { x.f.Close() })
	if err := x.makeStyles(); err != nil {
		tb.Fatal(err)
	}
	shared, err := newSharedText()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { shared.Close() })
	x.shared = shared
	return x
}

// sharedEntry is one entry of a shared string table, as written.
type sharedEntry struct{ open, text string }

var sharedEntryXML = regexp.MustCompile(`(?s)<si>(<t(?: xml:space="preserve")?>)(.*?)</t></si>`)

// sharedEntries ends s and reads back its entries.
func sharedEntries(t *testing.T, s *sharedText) []sharedEntry {
	t.Helper()
	if err := s.end(); err != nil {
		t.Fatal(err)
	}
	z, err := io.ReadAll(s.rows.file.Section())
	if err != nil {
		t.Fatal(err)
	}
	// The entries end in a sync flush, not a final block.
	b, err := io.ReadAll(flate.NewReader(bytes.NewReader(z)))
	if err != io.ErrUnexpectedEOF {
		t.Fatalf("entries: %v", err)
	}
	var entries []sharedEntry
	rest := string(b)
	for _, m := range sharedEntryXML.FindAllStringSubmatchIndex(rest, -1) {
		entries = append(entries, sharedEntry{rest[m[2]:m[3]], rest[m[4]:m[5]]})
	}
	if joined := sharedEntryXML.ReplaceAllString(rest, ""); joined != "" {
		t.Fatalf("the table holds more than entries: %.200q", joined)
	}
	return entries
}

var callCellXML = regexp.MustCompile(`(?s)<c(?: r="([A-Z]+)([0-9]+)")?((?: s="[0-9]+")?)((?: t="[a-zA-Z]+")?)>(.*?)</c>`)

// inlineCallRow is a tool-call row as excelize would write it: every cell
// with its reference, its shared strings (entries) inline. n counts them.
func inlineCallRow(t *testing.T, row string, entries []sharedEntry) (_ string, n int) {
	t.Helper()
	start := strings.Index(row, ">") + 1
	digits := strings.TrimSuffix(strings.TrimPrefix(row[:start], `<row r="`), `">`)
	var b strings.Builder
	b.WriteString(row[:start])
	col, end := 0, start
	for _, m := range callCellXML.FindAllStringSubmatchIndex(row[start:], -1) {
		cell := func(k int) string {
			if m[2*k] < 0 {
				return ""
			}
			return row[start+m[2*k] : start+m[2*k+1]]
		}
		if start+m[0] != end {
			t.Fatalf("not a cell at %d of %q", end, row)
		}
		end = start + m[1]
		if letters := cell(1); letters != "" {
			if cell(2) != digits {
				t.Fatalf("cell %s%s on row %s", letters, cell(2), digits)
			}
			c, err := excelize.ColumnNameToNumber(letters)
			if err != nil {
				t.Fatal(err)
			}
			if c-1 <= col {
				t.Fatalf("cell %s after column %d: %q (a reference only after a blank cell)", letters, col, row)
			}
			col = c - 1
		}
		name, _ := excelize.CoordinatesToCellName(col+1, 1)
		fmt.Fprintf(&b, `<c r="%s%s"%s`, strings.TrimSuffix(name, "1"), digits, cell(3))
		if cell(4) == ` t="s"` {
			i, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(cell(5), "<v>"), "</v>"))
			if err != nil || i >= len(entries) {
				t.Fatalf("shared cell %q: %v", cell(5), err)
			}
			n++
			fmt.Fprintf(&b, ` t="inlineStr"><is>%s%s</t></is></c>`, entries[i].open, entries[i].text)
		} else {
			fmt.Fprintf(&b, `%s>%s</c>`, cell(4), cell(5))
		}
		col++
	}
	if row[end:] != "</row>" {
		t.Fatalf("row ends %q", row[end:])
	}
	b.WriteString("</row>")
	return b.String(), n
}

// appendShortestFloat writes what strconv.AppendFloat writes, whole
// numbers or not, at both sizes.
func TestShortestFloat(t *testing.T) {
	values := []float64{0, math.Copysign(0, -1), 1, -1, 543, 0.5, 1e-7, 1234.5678, 1e15, 1e21, 1 << 24, 1<<24 + 1, 1<<24 + 2,
		1 << 53, 1<<53 - 1, -(1 << 53), 1 << 60, 16777217, 3.4e38, math.MaxFloat64, -math.MaxFloat64, 5e-324}
	for i := range 2000 {
		values = append(values, float64(i*i*i), -float64(i)*7.25, float64(i)/3)
	}
	for _, f := range values {
		checkShortestFloat(t, f)
	}
}

func FuzzShortestFloat(f *testing.F) {
	f.Add(543.0)
	f.Add(float64(1 << 53))
	f.Fuzz(func(t *testing.T, v float64) {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			checkShortestFloat(t, v)
		}
	})
}

func checkShortestFloat(t *testing.T, f float64) {
	t.Helper()
	for _, bits := range []int{32, 64} {
		v := f
		if bits == 32 {
			if math.Abs(f) > math.MaxFloat32 {
				continue
			}
			v = float64(float32(f))
		}
		if got, want := string(appendShortestFloat(nil, v, bits)), strconv.FormatFloat(v, 'f', -1, bits); got != want {
			t.Errorf("%v at %d bits: %q, want %q", v, bits, got, want)
		}
	}
}

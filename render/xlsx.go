package render

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"

	"github.com/agentstat/agentstat/analyze"
	"github.com/agentstat/agentstat/analyze/model"
	"github.com/agentstat/agentstat/internal/tempfile"
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
	rows   map[string]*sheetRows // a streamed sheet's data rows, by sheet name
	shared *sharedText           // the tool-call sheet's shared strings, once it has rows
	// The styles of the tool-call sheet's cells, looked up once rather
	// than by name in each of its rows.
	intStyle, durStyle, timeStyle int
	pages                         bool // the run pages are beside the workbook
}

// XLSX writes report.xlsx: the Summary sheet with native charts, then a
// sheet per table, every one with a frozen header and a filter.
func XLSX(w io.Writer, r *analyze.Report) error { return xlsxOf(w, r, false) }

// xlsxOf writes the workbook; with pages, the run pages are beside it
// (runs/) and the Runs sheet links each run to its own.
func xlsxOf(w io.Writer, r *analyze.Report, pages bool) error {
	tmp, err := tempfile.New("agentstat-xlsx-")
	if err != nil {
		return err
	}
	defer tmp.Close()
	x := &xlsxWriter{f: excelize.NewFile(), styles: map[string]int{}, loc: r.Location, r: r, rows: map[string]*sheetRows{}, pages: pages}
	defer x.f.Close()
	defer func() {
		for _, r := range x.rows {
			r.Close()
		}
		if x.shared != nil {
			x.shared.Close()
		}
	}()
	// excelize assembles the package in a bytes.Buffer (the whole workbook
	// in memory, 32 MB for 300,000 rows); its zip writer goes to the
	// temporary file instead, which canonicalZip rewrites anyway.
	x.f.SetZipWriter(func(io.Writer) excelize.ZipWriter { return newXLSXZip(tmp) })
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
	// No SetActiveSheet: the Summary (the new file's Sheet1) is active
	// already, and SetActiveSheet parses every streamed sheet back into
	// memory (300,000 tool-call rows: 40 MB and 1.5 s) to untick its tab.
	if _, err := x.f.WriteTo(io.Discard); err != nil { // nothing: the package is in tmp
		return err
	}
	if x.shared != nil {
		if err := x.shared.end(); err != nil {
			return err
		}
	}
	return canonicalZip(tmp.File, w, x.rows, x.shared)
}

// xlsxLevel is the workbook's deflate level. Level 1 rather than 6 (what
// Excel and LibreOffice write) takes a tenth off a full report's time, for a
// workbook a quarter larger.
const xlsxLevel = 1

// newXLSXZip is excelize's zip writer with klauspost/compress's deflate
// (xlsxLevel), on every core (parallelDeflate): faster than compress/flate
// and a little smaller. The sheets of a long transcript (300,000 rows) made
// compression a large share of the time a full report spends on its
// workbook.
func newXLSXZip(w io.Writer) *zip.Writer {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return newParallelDeflate(out, xlsxLevel)
	})
	return zw
}

// bookParts are the parts of a package canonicalZip rewrites.
type bookParts struct {
	rows   map[string]*sheetRows // a streamed sheet's data rows, by its part
	sheets map[string]bool       // every sheet's part
	shared string                // the shared string table's part, if any
}

// partsOf finds the parts of the package's sheets (rows maps the streamed
// ones' names to their rows) and its shared string table, through the
// workbook's sheet list and its relationships.
func partsOf(zr *zip.Reader, rows map[string]*sheetRows) (bookParts, error) {
	var book struct {
		Sheets []struct {
			Name string `xml:"name,attr"`
			Rel  string `xml:"http://schemas.openxmlformats.org/officeDocument/2006/relationships id,attr"`
		} `xml:"sheets>sheet"`
	}
	var rels struct {
		Rels []struct {
			ID     string `xml:"Id,attr"`
			Type   string `xml:"Type,attr"`
			Target string `xml:"Target,attr"`
		} `xml:"Relationship"`
	}
	parts := bookParts{rows: map[string]*sheetRows{}, sheets: map[string]bool{}}
	for name, v := range map[string]any{"xl/workbook.xml": &book, "xl/_rels/workbook.xml.rels": &rels} {
		f, err := zr.Open(name)
		if err != nil {
			return parts, err
		}
		err = xml.NewDecoder(f).Decode(v)
		f.Close()
		if err != nil {
			return parts, fmt.Errorf("%s: %w", name, err)
		}
	}
	part := func(target string) string {
		if path, abs := strings.CutPrefix(target, "/"); abs {
			return path
		}
		return "xl/" + target
	}
	targets := map[string]string{}
	for _, r := range rels.Rels {
		targets[r.ID] = part(r.Target)
		if strings.HasSuffix(r.Type, "/sharedStrings") {
			parts.shared = part(r.Target)
		}
	}
	for _, sh := range book.Sheets {
		path, ok := targets[sh.Rel]
		if !ok {
			return parts, fmt.Errorf("workbook: sheet %q has no part", sh.Name)
		}
		parts.sheets[path] = true
		if r := rows[sh.Name]; r != nil {
			parts.rows[path] = r
		}
	}
	if len(parts.rows) != len(rows) {
		return parts, fmt.Errorf("workbook: %d of %d streamed sheets found", len(parts.rows), len(rows))
	}
	return parts, nil
}

// sheetRows are a streamed sheet's data rows, deflated as they are written
// into a scratch file (a segment that ends in a sync flush), with the
// CRC-32 and length of the XML: spliceRows puts them between the sheet's
// start and end, each deflated apart, without inflating or deflating them
// again. The rows of a long transcript's tool calls are ~150 MB of XML:
// kept plain, they were written out and read back, then deflated after
// every other output was done, both cores waiting on it.
type sheetRows struct {
	file      *tempfile.File
	z         *parallelDeflate
	crc       uint32
	n         int64
	dimension string // the sheet's used range, which the stream writer wrote before its rows were known
}

func newSheetRows() (*sheetRows, error) {
	f, err := tempfile.New("agentstat-rows-")
	if err != nil {
		return nil, err
	}
	z, err := newParallelDeflate(f, xlsxLevel)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &sheetRows{file: f, z: z}, nil
}

func (r *sheetRows) Write(b []byte) (int, error) {
	r.crc = crc32.Update(r.crc, crc32.IEEETable, b)
	r.n += int64(len(b))
	return r.z.Write(b)
}

// end ends the deflated rows: written, they are ready to be spliced.
func (r *sheetRows) end() error { return r.z.closeSegment() }

func (r *sheetRows) Close() error { return r.file.Close() }

// spliceRows writes the sheet part f with rows inserted where its sheet
// data ends (after the header row excelize wrote), its shared string
// indices moved by shift (shiftShared). The end tag is found by its text,
// which no cell's escaped text can hold.
func spliceRows(zw *zip.Writer, f *zip.File, rows *sheetRows, shift int) error {
	sheet, err := readPart(f)
	if err != nil {
		return err
	}
	if sheet, err = shiftShared(sheet, shift); err != nil {
		return err
	}
	if rows.dimension != "" { // the header's range, as the stream writer wrote it, becomes the table's
		const attr = `<dimension ref="`
		if i := bytes.Index(sheet, []byte(attr)); i >= 0 {
			if n := bytes.IndexByte(sheet[i+len(attr):], '"'); n >= 0 {
				sheet = slices.Concat(sheet[:i+len(attr)], []byte(rows.dimension), sheet[i+len(attr)+n:])
			}
		}
	}
	end := bytes.Index(sheet, []byte("</sheetData>"))
	if end < 0 {
		return errors.New("no end of sheet data")
	}
	return splicePart(zw, f.Name, sheet[:end], rows, sheet[end:])
}

// splicePart writes part name as head, the deflated rows, then tail: one
// deflate stream of three segments, the rows not inflated or deflated again.
func splicePart(zw *zip.Writer, name string, head []byte, rows *sheetRows, tail []byte) error {
	zhead, err := deflateSegment(head, false)
	if err != nil {
		return err
	}
	ztail, err := deflateSegment(tail, true)
	if err != nil {
		return err
	}
	info, err := rows.file.Stat()
	if err != nil {
		return err
	}
	crc := crc32.ChecksumIEEE(head)
	crc = crc32Combine(crc, rows.crc, rows.n)
	crc = crc32Combine(crc, crc32.ChecksumIEEE(tail), int64(len(tail)))
	fw, err := zw.CreateRaw(&zip.FileHeader{
		Name: name, Method: zip.Deflate, CreatorVersion: 20, ReaderVersion: 20,
		CRC32: crc, UncompressedSize64: uint64(int64(len(head)+len(tail)) + rows.n),
		CompressedSize64: uint64(int64(len(zhead)+len(ztail)) + info.Size()),
	})
	if err != nil {
		return err
	}
	if _, err := fw.Write(zhead); err != nil {
		return err
	}
	if _, err := io.Copy(fw, io.NewSectionReader(rows.file, 0, info.Size())); err != nil {
		return err
	}
	_, err = fw.Write(ztail)
	return err
}

// readPart is the inflated content of a part.
func readPart(f *zip.File) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// deflateSegment deflates b on its own, ending in a sync flush, or in the
// final block when last (with the pooled compressors).
func deflateSegment(b []byte, last bool) ([]byte, error) {
	var out bytes.Buffer
	z, err := newParallelDeflate(&out, xlsxLevel)
	if err != nil {
		return nil, err
	}
	z.Write(b) // a bytes.Buffer takes every write
	if last {
		err = z.Close()
	} else {
		err = z.closeSegment()
	}
	return out.Bytes(), err
}

var contentTypeREs = []*regexp.Regexp{
	regexp.MustCompile(`<Default [^>]*>(?:</Default>)?`),
	regexp.MustCompile(`<Override [^>]*>(?:</Override>)?`),
}

// canonicalZip copies the package excelize wrote with its parts in name
// order and its content types sorted: excelize orders both by map
// iteration, and the same report must be the same bytes. Parts are copied
// raw, without recompressing them, but for the sheets whose data rows were
// written apart (rows, by sheet name), which get their rows back, and,
// when the tool-call sheet has shared strings, the table, which gets them
// first, and the sheets that name the table's other entries.
func canonicalZip(src *os.File, w io.Writer, rows map[string]*sheetRows, shared *sharedText) error {
	info, err := src.Stat()
	if err != nil {
		return err
	}
	zr, err := zip.NewReader(src, info.Size())
	if err != nil {
		return err
	}
	parts, err := partsOf(zr, rows)
	if err != nil {
		return err
	}
	shift := 0
	if shared != nil && shared.n > 0 {
		if parts.shared == "" {
			return errors.New("workbook: no shared string table for the tool calls' texts")
		}
		shift = shared.n
	}
	files := slices.Clone(zr.File)
	slices.SortFunc(files, func(a, b *zip.File) int { return strings.Compare(a.Name, b.Name) })
	zw := newXLSXZip(w)
	for _, f := range files {
		var err error
		switch {
		case parts.rows[f.Name] != nil:
			err = spliceRows(zw, f, parts.rows[f.Name], shift)
		case shift > 0 && f.Name == parts.shared:
			err = spliceShared(zw, f, shared)
		case shift > 0 && parts.sheets[f.Name]:
			err = rewritePart(zw, f, func(b []byte) ([]byte, error) { return shiftShared(b, shift) })
		case f.Name == "[Content_Types].xml":
			err = rewritePart(zw, f, sortContentTypes)
		default:
			err = copyPart(zw, f)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	return zw.Close()
}

// sortContentTypes sorts the defaults and the overrides of a package's
// content types.
func sortContentTypes(b []byte) ([]byte, error) {
	s := string(b)
	for _, re := range contentTypeREs {
		parts := re.FindAllString(s, -1)
		slices.Sort(parts)
		if i := re.FindStringIndex(s); i != nil {
			s = re.ReplaceAllString(s, "")
			s = s[:i[0]] + strings.Join(parts, "") + s[i[0]:]
		}
	}
	return []byte(s), nil
}

// spliceShared writes the shared string table f with the tool-call
// sheet's entries first.
func spliceShared(zw *zip.Writer, f *zip.File, shared *sharedText) error {
	sst, err := readPart(f)
	if err != nil {
		return err
	}
	head, tail, err := splitShared(sst, shared.n, shared.refs)
	if err != nil {
		return err
	}
	return splicePart(zw, f.Name, head, shared.rows, tail)
}

// rewritePart writes part f as edit makes its content.
func rewritePart(zw *zip.Writer, f *zip.File, edit func([]byte) ([]byte, error)) error {
	b, err := readPart(f)
	if err != nil {
		return err
	}
	if b, err = edit(b); err != nil {
		return err
	}
	fw, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: zip.Deflate})
	if err != nil {
		return err
	}
	_, err = fw.Write(b)
	return err
}

// copyPart writes part f as it is, without inflating it.
func copyPart(zw *zip.Writer, f *zip.File) error {
	raw, err := f.OpenRaw()
	if err != nil {
		return err
	}
	hdr := f.FileHeader
	fw, err := zw.CreateRaw(&hdr)
	if err != nil {
		return err
	}
	_, err = io.Copy(fw, raw)
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
	x.intStyle, x.durStyle, x.timeStyle = x.styles["int"], x.styles["dur"], x.styles["time"]
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
// time: Excel times have no zone. It is t moved by the zone's offset there:
// rebuilding it from its fields cost seven date computations, two for each
// of the tool-call sheet's 300,000 rows at 1 GB.
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
	part  int
	sw    *excelize.StreamWriter // the sheet around its data rows, and the header
	sheet string
	row   int
	rows  *sheetRows    // this part's data rows, spliced in by canonicalZip
	out   *bufio.Writer // to rows
	buf   []byte        // one row's XML
}

func (x *xlsxWriter) newTable(name string, cols ...column) (*sheetTable, error) {
	t := &sheetTable{x: x, name: name, cols: cols}
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
	// with it; a table's rows widen the range when they are spliced in.
	if err := t.x.printSetup(t.sheet, true); err != nil {
		return err
	}
	header, _ := excelize.CoordinatesToCellName(len(t.cols), 1)
	if err := t.x.f.SetSheetDimension(t.sheet, "A1:"+header); err != nil {
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
func (t *sheetTable) add(values ...any) error { return t.write(t.cells(values...)) }

// cells makes a row's cells from values in the columns' order.
func (t *sheetTable) cells(values ...any) []any {
	row := make([]any, len(values))
	for i, v := range values {
		row[i] = t.x.cell(v, t.cols[i].style)
	}
	return row
}

// write appends a row of cells.
func (t *sheetTable) write(row []any) error {
	n, err := t.next()
	if err != nil {
		return err
	}
	if t.buf, err = appendRowXML(t.buf[:0], n, row); err != nil {
		return err
	}
	_, err = t.out.Write(t.buf)
	return err
}

// next is the number of the row to write to t.out next, in this part or,
// past Excel's row limit, in a new one.
func (t *sheetTable) next() (int, error) {
	if t.row == maxSheetRows {
		if err := t.close(); err != nil {
			return 0, err
		}
		if err := t.open(); err != nil {
			return 0, err
		}
	}
	if t.rows == nil {
		r, err := newSheetRows()
		if err != nil {
			return 0, err
		}
		t.rows, t.out = r, bufio.NewWriterSize(r, 256<<10)
		t.x.rows[t.sheet] = r
	}
	t.row++
	return t.row, nil
}

func (t *sheetTable) close() error {
	if t.rows != nil {
		if err := t.out.Flush(); err != nil {
			return err
		}
		if err := t.rows.end(); err != nil {
			return err
		}
		t.rows, t.out = nil, nil
	}
	last, _ := excelize.CoordinatesToCellName(len(t.cols), max(t.row, 2))
	if r := t.x.rows[t.sheet]; r != nil {
		r.dimension = "A1:" + last
	}
	if err := t.sw.AddTable(&excelize.Table{Range: "A1:" + last, Name: tableName(t.sheet), StyleName: "TableStyleLight9"}); err != nil {
		return err
	}
	return t.sw.Flush()
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
	t, err := x.newTable("Runs",
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
	t, err := x.newTable("Tool calls", toolCallColumns...)
	if err != nil {
		return err
	}
	if x.r.Details != nil {
		// In chunks: a long session's calls are never all in memory here.
		var row []byte
		for chunk, err := range x.r.Details.Calls() {
			if err != nil {
				return fmt.Errorf("run details: %w", err)
			}
			if x.shared == nil {
				if x.shared, err = newSharedText(); err != nil {
					return err
				}
			}
			run := x.newCallRun(chunk.Run)
			for i := range chunk.Calls {
				n, err := t.next()
				if err != nil {
					return err
				}
				row = x.appendCallRow(row[:0], n, &run, chunk.First+i+1, &chunk.Calls[i])
				if _, err := t.out.Write(row); err != nil {
					return err
				}
			}
		}
	}
	return t.close()
}

// toolCallColumns are the Tool calls sheet's; appendCallRow writes them.
var toolCallColumns = []column{{"Run id", 30, ""}, {"Source", 40, ""}, {"#", 6, "int"}, {"Tool", 22, ""},
	{"Category", 14, ""}, {"Agent", 16, ""}, {"Started", 20, "time"}, {"Ended", 20, "time"},
	{"Duration", 14, "dur"}, {"Outcome", 9, ""}, {"Error", 50, ""}, {"Think time", 12, "dur"}}

// callRun is what the Tool calls sheet shows of a run on each of its rows:
// the shared string entries of its id and source (-1 if blank).
type callRun struct{ id, source int }

func (x *xlsxWriter) newCallRun(r *model.Run) callRun {
	s := x.shared
	return callRun{s.runText(xlsxText(r.ID), &s.lastID), s.runText(xlsxText(r.Source), &s.lastSource)}
}

// cellRefs gives a row's cells their references: none for a cell right
// after the one before it (~90 bytes of a tool-call row's ~360 with them).
type cellRefs struct {
	row  []byte // the row's number
	next int    // the column that needs none
}

// at is the reference (row) of a cell at col, nil if it needs none.
func (c *cellRefs) at(col int) []byte {
	gap := col != c.next
	c.next = col + 1
	if gap {
		return c.row
	}
	return nil
}

// appendCallRow appends the Tool calls sheet's row for call c, the n-th of
// its run: the cells of t.cells(run.ID, run.Source, n, c.Name, …), without
// a boxed value per cell (300,000 rows of a long transcript), the texts
// that repeat as shared strings and references only after a blank cell
// (TestCallRowSameAsCells).
func (x *xlsxWriter) appendCallRow(dst []byte, rowNum int, run *callRun, n int, c *model.ToolCall) []byte {
	var num [20]byte
	dst, digits := appendRowStart(dst, &num, rowNum)
	refs := cellRefs{row: digits}
	if run.id >= 0 {
		dst = x.shared.appendCell(dst, 0, refs.at(0), run.id)
	}
	if run.source >= 0 {
		dst = x.shared.appendCell(dst, 1, refs.at(1), run.source)
	}
	dst = appendIntCell(dst, 2, refs.at(2), x.intStyle, int64(n))
	dst = x.appendWord(dst, 3, &refs, xlsxText(c.Name))
	dst = x.appendWord(dst, 4, &refs, xlsxText(c.Category))
	dst = x.appendWord(dst, 5, &refs, xlsxText(c.Agent))
	if !c.Started.IsZero() {
		dst = x.appendTimeValue(dst, 6, refs.at(6), c.Started)
	}
	if !c.Ended.IsZero() {
		dst = x.appendTimeValue(dst, 7, refs.at(7), c.Ended)
	}
	if c.HasDuration {
		dst = appendFloatCell(dst, 8, refs.at(8), x.durStyle, c.DurationMS/msPerDay, 64)
	}
	dst = x.appendWord(dst, 9, &refs, c.Outcome.String())
	if text := xlsxText(c.Error); text != "" {
		dst = appendTextCell(dst, 10, refs.at(10), 0, text)
	}
	if c.HasThink {
		dst = appendFloatCell(dst, 11, refs.at(11), x.durStyle, c.ThinkMS/msPerDay, 64)
	}
	return append(dst, `</row>`...)
}

// appendWord appends a name (already xlsxText's) as a shared string, or
// inline past the table's bound for names; nothing if it is blank.
func (x *xlsxWriter) appendWord(dst []byte, col int, refs *cellRefs, text string) []byte {
	if text == "" {
		return dst
	}
	last := &x.shared.lastWord[col]
	if text != last.text {
		i, ok := x.shared.word(text)
		if !ok {
			return appendTextCell(dst, col, refs.at(col), 0, text)
		}
		*last = lastEntry{text, i}
	}
	return x.shared.appendCell(dst, col, refs.at(col), last.at)
}

// appendTimeValue appends a time (not zero) in the "time" style as cell
// writes it.
func (x *xlsxWriter) appendTimeValue(dst []byte, col int, row []byte, t time.Time) []byte {
	style, wall := x.timeStyle, x.wallClock(t)
	if serial, ok := excelSerial(wall); ok {
		return appendFloatCell(dst, col, row, style, serial, 64)
	}
	return appendTimeCell(dst, col, row, style, wall)
}

func (x *xlsxWriter) tools() error {
	cols := append([]column{{"Tool", 24, ""}, {"Category", 14, ""}, {"Calls", 10, "int"}, {"Share", 9, "pct"},
		{"Errors", 9, "int"}, {"Error rate", 11, "pct"}, {"Cancelled", 10, "int"}, {"Cancel rate", 11, "pct"}}, durationCols("Duration")...)
	t, err := x.newTable("Tools", cols...)
	if err != nil {
		return err
	}
	for _, tool := range x.r.Summary.Tools {
		row := append([]any{tool.Name, tool.Category, tool.Calls, tool.Share, tool.Errors, tool.ErrorRate, tool.Cancelled, tool.CancelRate}, statsValues(tool.DurationMS)...)
		if err := t.add(row...); err != nil {
			return err
		}
	}
	return t.close()
}

func (x *xlsxWriter) agents() error {
	t, err := x.newTable("Agents", column{"Agent", 24, ""}, column{"Runs", 10, "int"}, column{"Tool calls", 11, "int"},
		column{"Errors", 9, "int"}, column{"Error rate", 11, "pct"}, column{"Cost (USD)", 12, "usd"})
	if err != nil {
		return err
	}
	for _, a := range x.r.Summary.Agents {
		if err := t.add(a.Name, a.Runs, a.ToolCalls, a.Errors, a.ErrorRate, a.CostUSD); err != nil {
			return err
		}
	}
	return t.close()
}

// projects writes the Projects sheet: each project's runs, calls, tokens and cost.
func (x *xlsxWriter) projects() error {
	t, err := x.newTable("Projects", column{"Project", 28, ""}, column{"Path", 50, ""}, column{"Runs", 8, "int"},
		column{"Success rate", 12, "pct"}, column{"Tool calls", 11, "int"}, column{"Errors", 9, "int"}, column{"Error rate", 11, "pct"},
		column{"Cancelled", 10, "int"}, column{"Tokens", 14, "int"}, column{"Cost (USD)", 12, "usd"})
	if err != nil {
		return err
	}
	for _, p := range x.r.Summary.Projects {
		if err := t.add(p.Label, p.Project, p.Runs, p.SuccessRate, p.ToolCalls, p.Errors, p.ErrorRate, p.Cancelled, p.Tokens.Total, p.CostUSD); err != nil {
			return err
		}
	}
	return t.close()
}

// models writes the Models sheet: each model's requests, tokens and cost
// (blank where the price table does not price it).
func (x *xlsxWriter) models() error {
	t, err := x.newTable("Models", column{"Model", 30, ""}, column{"Requests", 10, "int"}, column{"Runs", 8, "int"},
		column{"Tokens", 14, "int"}, column{"Input", 12, "int"}, column{"Output", 12, "int"}, column{"Cache read", 14, "int"},
		column{"Cache write", 13, "int"}, column{"Cache write, 1 hour", 18, "int"}, column{"Cost (USD)", 12, "usd"})
	if err != nil {
		return err
	}
	for _, m := range x.r.Summary.Models {
		k := m.Tokens
		if err := t.add(m.Model, m.Requests, m.Runs, k.Total, k.Input, k.Output, k.CacheRead, k.CacheCreation, k.CacheWrite1h, m.CostUSD); err != nil {
			return err
		}
	}
	return t.close()
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
	t, err := x.newTable("Quality", column{"Group", 10, ""}, column{"Name", 30, ""}, column{"Evaluations", 12, "int"},
		column{"Mean score", 11, "score"}, column{"Output valid", 12, "pct"})
	if err != nil {
		return err
	}
	q := &x.r.Summary.Quality
	if err := t.add("all", "", q.Evaluations, q.Mean, q.OutputValidRate); err != nil {
		return err
	}
	for _, g := range q.ByPhase {
		if err := t.add("phase", g.Phase, g.Evaluations, g.Mean, g.OutputValidRate); err != nil {
			return err
		}
	}
	for _, g := range q.ByTool {
		if err := t.add("tool", g.Tool, g.Evaluations, g.Mean, g.OutputValidRate); err != nil {
			return err
		}
	}
	for _, b := range q.Distribution {
		if err := t.add("score bin", fmt.Sprintf("%d to %s%d", b.From, map[bool]string{true: "", false: "under "}[b.To == 10], b.To), b.Count, nil, nil); err != nil {
			return err
		}
	}
	return t.close()
}

func (x *xlsxWriter) context() error {
	t, err := x.newTable("Context", column{"What", 28, ""}, column{"Key", 30, ""}, column{"Count", 14, "int"})
	if err != nil {
		return err
	}
	c := &x.r.Summary.Context
	tok := c.Tokens
	for _, kv := range [][2]any{{"total", tok.Total}, {"input", tok.Input}, {"output", tok.Output}, {"cache_read", tok.CacheRead},
		{"cache_creation", tok.CacheCreation}, {"unspecified", tok.Unspecified}} {
		if err := t.add("tokens", kv[0], kv[1]); err != nil {
			return err
		}
	}
	for _, m := range x.r.Summary.Models {
		if err := t.add("tokens by model", m.Model, m.Tokens.Total); err != nil {
			return err
		}
	}
	for _, g := range []struct {
		what string
		m    map[string]int64
	}{{"references by type", c.RefsByType}, {"references by relevance", c.RefsByRelevance}, {"references by usage mode", c.RefsByUsageMode},
		{"contributions by type", c.ContributionsByType}, {"subagents by type", c.Subagents.ByType}} {
		names, counts := sortedCounts(g.m)
		for i := range names {
			if err := t.add(g.what, names[i], counts[i]); err != nil {
				return err
			}
		}
	}
	for _, kv := range [][2]any{{"subagent calls", c.Subagents.Calls}, {"subagent tokens", c.Subagents.Tokens},
		{"budget warnings", c.Budget.Warnings}, {"budgets exceeded", c.Budget.Exceeded}, {"retries", c.Budget.Retries}} {
		if err := t.add("totals", kv[0], kv[1]); err != nil {
			return err
		}
	}
	return t.close()
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
	t, err := x.newTable("Daily", cols...)
	if err != nil {
		return err
	}
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
		row = append(row, d.SuccessRate, d.ToolCalls, d.Errors, d.ErrorRate, d.DurationMSP50, d.DurationMSP95, d.Tokens,
			k.Input, k.Output, k.CacheRead, k.CacheCreation, k.Unspecified, d.CostUSD)
		if err := t.add(row...); err != nil {
			return err
		}
	}
	return t.close()
}

func (x *xlsxWriter) dataQuality() error {
	t, err := x.newTable("Data quality", column{"File or warning", 50, ""}, column{"Reason or count", 18, ""}, column{"Detail", 60, ""})
	if err != nil {
		return err
	}
	in := &x.r.Summary.Inputs
	for _, s := range in.Skipped {
		if err := t.add(s.Path, s.Reason, s.Detail); err != nil {
			return err
		}
	}
	names, counts := sortedCounts(in.Warnings)
	for i := range names {
		if err := t.add("warning: "+names[i], fmt.Sprint(counts[i]), in.WarningFiles[names[i]]); err != nil {
			return err
		}
	}
	return t.close()
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

package render

import (
	"encoding/xml"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/xuri/excelize/v2"
)

// The cell rules below (cellTextXML, bstrMarshal, excelTime, the value
// kinds of appendCellXML) follow excelize v2.10.1's trimCellValue,
// bstrMarshal, timeToExcelTime and setCellValFunc, so that a row is the
// bytes its StreamWriter writes. excelize: BSD 3-Clause, Copyright (c)
// 2016-2026 The excelize Authors.

// appendRowXML appends the XML that excelize's StreamWriter.SetRow writes
// for cells at row, from column A: a table's rows are made here and spliced
// into the sheet excelize wrote around its header (spliceRows). SetRow makes
// a cell name, an escaped copy and several allocations per cell, ~5 µs a
// row: the tool-call sheet of a long transcript (300,000 rows) took 1.6 s of
// a full report on one core that way. TestRowXMLSameAsExcelize and
// FuzzRowXML hold the two to the same bytes.
func appendRowXML(dst []byte, row int, cells []any) ([]byte, error) {
	var num [20]byte
	dst, digits := appendRowStart(dst, &num, row)
	var err error
	for i, v := range cells {
		if v == nil {
			continue
		}
		if dst, err = appendCellXML(dst, i, digits, v); err != nil {
			return dst, err
		}
	}
	return append(dst, `</row>`...), nil
}

// appendRowStart appends row's start tag and returns its number's digits
// (in num), formatted once for every cell's name.
func appendRowStart(dst []byte, num *[20]byte, row int) (_, digits []byte) {
	digits = strconv.AppendInt(num[:0], int64(row), 10)
	return append(append(append(dst, `<row r="`...), digits...), `">`...), digits
}

var errCellKind = errors.New("xlsx: a cell excelize would write otherwise (formula, rich text or an unstyled time)")

// appendCellXML appends one cell as excelize's writeCell does for what its
// setCellValFunc makes of v.
func appendCellXML(dst []byte, col int, row []byte, v any) ([]byte, error) {
	style := 0
	switch c := v.(type) {
	case excelize.Cell:
		if c.Formula != "" {
			return dst, errCellKind
		}
		style, v = c.StyleID, c.Value
	case *excelize.Cell:
		if c != nil {
			if c.Formula != "" {
				return dst, errCellKind
			}
			style, v = c.StyleID, c.Value
		}
	}
	switch x := v.(type) {
	case nil:
		return append(appendCellStart(dst, col, row, style, ""), `</c>`...), nil
	case xlsxLink:
		return appendLinkCell(dst, col, row, style, x), nil
	case int:
		return appendIntCell(dst, col, row, style, int64(x)), nil
	case int8:
		return appendIntCell(dst, col, row, style, int64(x)), nil
	case int16:
		return appendIntCell(dst, col, row, style, int64(x)), nil
	case int32:
		return appendIntCell(dst, col, row, style, int64(x)), nil
	case int64:
		return appendIntCell(dst, col, row, style, x), nil
	case uint:
		return appendNumberCell(dst, col, row, style, "", strconv.FormatUint(uint64(x), 10)), nil
	case uint8:
		return appendNumberCell(dst, col, row, style, "", strconv.FormatUint(uint64(x), 10)), nil
	case uint16:
		return appendNumberCell(dst, col, row, style, "", strconv.FormatUint(uint64(x), 10)), nil
	case uint32:
		return appendNumberCell(dst, col, row, style, "", strconv.FormatUint(uint64(x), 10)), nil
	case uint64:
		return appendNumberCell(dst, col, row, style, "", strconv.FormatUint(x, 10)), nil
	case float32:
		return appendFloatCell(dst, col, row, style, float64(x), 32), nil
	case float64:
		return appendFloatCell(dst, col, row, style, x, 64), nil
	case string:
		return appendTextCell(dst, col, row, style, x), nil
	case []byte:
		return appendTextCell(dst, col, row, style, string(x)), nil
	case time.Duration:
		return appendNumberCell(dst, col, row, style, "", strconv.FormatFloat(x.Seconds()/86400, 'f', -1, 32)), nil
	case time.Time:
		if style == 0 {
			return dst, errCellKind // excelize would add a date style to the workbook
		}
		return appendTimeCell(dst, col, row, style, x), nil
	case bool:
		if x {
			return appendNumberCell(dst, col, row, style, "b", "1"), nil
		}
		return appendNumberCell(dst, col, row, style, "b", "0"), nil
	case []excelize.RichTextRun:
		return dst, errCellKind
	}
	return appendTextCell(dst, col, row, style, fmt.Sprint(v)), nil
}

// appendCellStart appends a cell's start tag: its reference unless row is
// nil (a cell right after the one before it may go without), its style
// unless 0 and its type unless "".
func appendCellStart(dst []byte, col int, row []byte, style int, typ string) []byte {
	if row == nil {
		dst = append(dst, `<c`...)
	} else {
		dst = append(dst, `<c r="`...)
		dst = appendColumnName(dst, col)
		dst = append(dst, row...)
		dst = append(dst, '"')
	}
	if style != 0 {
		dst = append(dst, ` s="`...)
		dst = strconv.AppendInt(dst, int64(style), 10)
		dst = append(dst, '"')
	}
	if typ != "" {
		dst = append(dst, ` t="`...)
		dst = append(dst, typ...)
		dst = append(dst, '"')
	}
	return append(dst, '>')
}

// appendNumberCell appends a cell whose value num needs no escaping
// (digits, sign, point; "1" or "0" for a boolean).
func appendNumberCell(dst []byte, col int, row []byte, style int, typ, num string) []byte {
	dst = appendCellStart(dst, col, row, style, typ)
	dst = append(dst, `<v>`...)
	dst = append(dst, num...)
	return append(dst, `</v></c>`...)
}

func appendIntCell(dst []byte, col int, row []byte, style int, n int64) []byte {
	dst = appendCellStart(dst, col, row, style, "")
	dst = append(dst, `<v>`...)
	dst = strconv.AppendInt(dst, n, 10)
	return append(dst, `</v></c>`...)
}

// appendFloatCell is excelize's setCellFloat: NaN and infinities are text.
func appendFloatCell(dst []byte, col int, row []byte, style int, f float64, bits int) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return appendTextCell(dst, col, row, style, fmt.Sprint(f))
	}
	dst = appendCellStart(dst, col, row, style, "")
	dst = append(dst, `<v>`...)
	dst = appendShortestFloat(dst, f, bits)
	return append(dst, `</v></c>`...)
}

// appendShortestFloat is strconv.AppendFloat(dst, f, 'f', -1, bits). A
// whole number small enough that every whole number near it is a float of
// that size is its own shortest form: most durations are whole
// milliseconds, and formatting them as floats was ~3% of the full report's
// CPU (two million cells at 1 GB).
func appendShortestFloat(dst []byte, f float64, bits int) []byte {
	exact := float64(1 << 53)
	if bits == 32 {
		exact = 1 << 24
	}
	if f == math.Trunc(f) && math.Abs(f) < exact && (f != 0 || !math.Signbit(f)) {
		return strconv.AppendInt(dst, int64(f), 10)
	}
	return strconv.AppendFloat(dst, f, 'f', -1, bits)
}

// appendTextCell appends an inline string cell.
func appendTextCell(dst []byte, col int, row []byte, style int, s string) []byte {
	text, preserve := cellTextXML(s)
	return appendTextXML(dst, col, row, style, text, preserve)
}

// appendTextXML appends an inline string cell of text as cellTextXML made it.
func appendTextXML(dst []byte, col int, row []byte, style int, text string, preserve bool) []byte {
	dst = appendCellStart(dst, col, row, style, "inlineStr")
	dst = append(dst, `<is><t`...)
	if preserve {
		dst = append(dst, ` xml:space="preserve"`...)
	}
	dst = append(dst, '>')
	dst = append(dst, text...)
	return append(dst, `</t></is></c>`...)
}

// appendTimeCell is excelize's setCellTime for a styled cell: the wall
// clock as an Excel serial number, or as RFC 3339 text before 1900.
func appendTimeCell(dst []byte, col int, row []byte, style int, t time.Time) []byte {
	_, offset := t.Zone()
	wall := t.Add(time.Duration(offset) * time.Second)
	if serial := excelTime(wall); serial > 0 {
		return appendFloatCell(dst, col, row, style, serial, 64)
	}
	return appendTextCell(dst, col, row, style, wall.Format(time.RFC3339Nano))
}

// appendColumnName appends the letters of column col (0 for A).
func appendColumnName(dst []byte, col int) []byte {
	if col < 26 {
		return append(dst, byte('A'+col))
	}
	name, _ := excelize.ColumnNumberToName(col + 1)
	return append(dst, name...)
}

// cellTextXML is excelize's trimCellValue(s, true): clipped to Excel's
// limit in UTF-16 units, flagged to keep leading or trailing white space,
// escaped for XML (newlines kept as they are) and for Excel's _xHHHH_
// notation. Nearly every cell is plain ASCII that none of this changes.
func cellTextXML(s string) (string, bool) {
	if plainCellText(s) {
		return s, false
	}
	s = clipUTF16(s, maxCellText)
	preserve := false
	if s != "" {
		for _, b := range []byte{'\t', '\n', '\r', ' '} {
			if s[0] == b || s[len(s)-1] == b {
				preserve = true
				break
			}
		}
		var buf strings.Builder
		_ = xml.EscapeText(&buf, []byte(s))
		s = strings.ReplaceAll(buf.String(), "&#xA;", "\n")
	}
	return bstrMarshal(s), preserve
}

// plainCellText reports whether cellTextXML leaves s as it is: printable
// ASCII with nothing to escape, no '_' (which may start _xHHHH_) and no
// space at either end.
func plainCellText(s string) bool {
	if len(s) > maxCellText || s != "" && (s[0] == ' ' || s[len(s)-1] == ' ') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !plainByte[s[i]] {
			return false
		}
	}
	return true
}

// plainByte marks the bytes plainCellText lets through: a table rather
// than seven comparisons a byte, for the ~150 bytes of text each row of the
// tool-call sheet holds.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c <= 0x7E; c++ {
		t[c] = true
	}
	for _, c := range `"&'<>_` {
		t[c] = false
	}
	return t
}()

// clipUTF16 is s cut after n UTF-16 units, at a character's start (s
// itself when it is no longer).
func clipUTF16(s string, n int) string {
	units := 0
	for i, r := range s {
		if units += utf16.RuneLen(r); units > n {
			return s[:i]
		}
	}
	return s
}

var (
	bstrExp       = regexp.MustCompile(`_x[a-fA-F\d]{4}_`)
	bstrEscapeExp = regexp.MustCompile(`x[a-fA-F\d]{4}_`)
)

// bstrMarshal is excelize's: a literal "_xHHHH_" that Excel would read as
// an escaped character gets its underscore escaped ("_x005F_xHHHH_").
func bstrMarshal(s string) string {
	matches := bstrExp.FindAllStringSubmatchIndex(s, -1)
	if matches == nil {
		return s
	}
	var result strings.Builder
	l, cursor := len(s), 0
	for _, match := range matches {
		result.WriteString(s[cursor:match[0]])
		sub := s[match[0]:match[1]]
		if sub == "_x005F_" {
			cursor = match[1]
			if match[1]+6 <= l && bstrEscapeExp.MatchString(s[match[1]:match[1]+6]) {
				if _, err := strconv.Unquote(`"\u` + s[match[1]+1:match[1]+5] + `"`); err == nil {
					result.WriteString(sub + "x005F" + sub)
					continue
				}
			}
			result.WriteString(sub + "x005F_")
			continue
		}
		cursor = match[1]
		if _, err := strconv.Unquote(`"\u` + s[match[0]+2:match[1]-1] + `"`); err == nil {
			result.WriteString("_x005F" + sub)
			continue
		}
	}
	if cursor < l {
		result.WriteString(s[cursor:])
	}
	return result.String()
}

// The 1900 date system as excelize's timeToExcelTime computes it.
var (
	excelMinTime1900      = time.Date(1899, time.December, 31, 0, 0, 0, 0, time.UTC)
	excelBuggyPeriodStart = time.Date(1900, time.March, 1, 0, 0, 0, 0, time.UTC).Add(-time.Nanosecond)
)

// excelTime is excelize's timeToExcelTime for the 1900 date system: 0
// before its epoch, and in steps of 290 "years" past what a Duration holds.
func excelTime(t time.Time) float64 {
	const day = 24 * time.Hour
	const maxDuration = 290 * 364 * day
	if t.Before(excelMinTime1900) {
		return 0
	}
	tt, diff, result := t, t.Sub(excelMinTime1900), 0.0
	for diff >= maxDuration {
		result += float64(maxDuration / day)
		tt = tt.Add(-maxDuration)
		diff = tt.Sub(excelMinTime1900)
	}
	rem := diff % day
	result += float64(diff-rem)/float64(day) + float64(rem)/float64(day)
	if t.After(excelBuggyPeriodStart) {
		result++
	}
	return result
}

// xlsxLink is a cell that opens a file of the report (a run's page) by its
// path relative to the workbook: a HYPERLINK formula, its path the cached
// value, which a reader that computes no formula shows as it is.
type xlsxLink struct{ path string }

// appendLinkCell appends l's cell. Its path is agentstat's own (a sanitised
// page name), quoted in the formula as Excel quotes a string.
func appendLinkCell(dst []byte, col int, row []byte, style int, l xlsxLink) []byte {
	quoted := `"` + strings.ReplaceAll(l.path, `"`, `""`) + `"`
	var f, v strings.Builder
	_ = xml.EscapeText(&f, []byte("HYPERLINK("+quoted+","+quoted+")"))
	_ = xml.EscapeText(&v, []byte(l.path))
	dst = appendCellStart(dst, col, row, style, "str")
	return append(append(append(append(append(dst, `<f>`...), f.String()...), `</f><v>`...), v.String()...), `</v></c>`...)
}

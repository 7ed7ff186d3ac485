package render

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agentstat/agentstat/internal/tempfile"
)

// sharedText is the tool-call sheet's part of the workbook's shared string
// table: each run's id and source once, and each tool, category, agent and
// outcome name once, which its rows then name by index. Written inline,
// these texts were two thirds of the sheet's XML (~150 MB at 1 GB of logs,
// where a run's id and source repeat on each of its calls), and making and
// deflating that XML was an eighth of a full report's CPU.
//
// The entries go to a scratch file as they are written (~1.3 MB at 1 GB of
// logs) and are deflated once the sheets are (end), with the compressors
// the sheets let go rather than a second stream's beside the rows'.
// spliceShared puts them first in the table excelize wrote for the other
// sheets, whose indices shiftShared moves past them.
type sharedText struct {
	file  *tempfile.File
	out   *bufio.Writer
	rows  *sheetRows     // the entries deflated, after end
	n     int            // entries written
	refs  int            // cells that name one
	words map[string]int // names' entries (at most maxSharedWords)
	// The last name of each column (of toolCallColumns' 12): a run's calls
	// mostly repeat the name above, which costs less to compare than to
	// look up.
	lastWord [16]lastEntry
	// The last run's texts, whose entries a long run's next chunk and a
	// file's next run reuse.
	lastID, lastSource lastEntry
}

// lastEntry is a text (not blank once set) and its entry.
type lastEntry struct {
	text string
	at   int
}

// A name longer than maxSharedWord, or past maxSharedWords of them, stays
// inline: it bounds the table's index however many tool names logs invent.
const (
	maxSharedWord  = 64
	maxSharedWords = 4096
)

func newSharedText() (*sharedText, error) {
	f, err := tempfile.New("agentstat-shared-")
	if err != nil {
		return nil, err
	}
	return &sharedText{file: f, out: bufio.NewWriterSize(f, 64<<10), words: map[string]int{}}, nil
}

// add appends an entry for text, already cellTextXML's, and returns its
// index. A write error stays in out and is returned by end.
func (s *sharedText) add(text string, preserve bool) int {
	if preserve {
		s.out.WriteString(`<si><t xml:space="preserve">`)
	} else {
		s.out.WriteString(`<si><t>`)
	}
	s.out.WriteString(text)
	s.out.WriteString(`</t></si>`)
	s.n++
	return s.n - 1
}

// word is the entry of a name (already xlsxText's, not blank), added the
// first time; false when it stays inline.
func (s *sharedText) word(text string) (int, bool) {
	if i, ok := s.words[text]; ok {
		return i, true
	}
	if len(text) > maxSharedWord || len(s.words) >= maxSharedWords {
		return 0, false
	}
	i := s.add(cellTextXML(text))
	s.words[text] = i
	return i, true
}

// runText is the entry of a run's id or source (already xlsxText's), -1
// if blank; last remembers the previous run's.
func (s *sharedText) runText(text string, last *lastEntry) int {
	if text == "" {
		return -1
	}
	if text != last.text {
		*last = lastEntry{text, s.add(cellTextXML(text))}
	}
	return last.at
}

// end ends the entries and deflates them, ready to be spliced.
func (s *sharedText) end() error {
	if err := s.out.Flush(); err != nil {
		return err
	}
	r, err := newSheetRows()
	if err != nil {
		return err
	}
	s.rows = r
	if _, err := io.Copy(r, s.file.Section()); err != nil {
		return err
	}
	return r.end()
}

func (s *sharedText) Close() error {
	err := s.file.Close()
	if s.rows != nil {
		err = errors.Join(err, s.rows.Close())
	}
	return err
}

// appendCell appends a cell that names entry i, counted in refs (small
// enough to inline into a row's making, which calls it for most cells).
func (s *sharedText) appendCell(dst []byte, col int, row []byte, i int) []byte {
	s.refs++
	return appendSharedCell(dst, col, row, i)
}

// appendSharedCell appends a cell that names shared string entry i.
func appendSharedCell(dst []byte, col int, row []byte, i int) []byte {
	dst = appendCellStart(dst, col, row, 0, "s")
	dst = append(dst, `<v>`...)
	dst = strconv.AppendInt(dst, int64(i), 10)
	return append(dst, `</v></c>`...)
}

// The shared string table's start tag, its counts in it, and a cell that
// names one of its entries, as excelize writes them.
var (
	sstStart       = regexp.MustCompile(`<sst\b[^>]*>`)
	sstCount       = regexp.MustCompile(`\s(count|uniqueCount)="(\d+)"`)
	sharedCellWord = regexp.MustCompile(`(<c\s[^>]*\bt="s"[^>]*>\s*<v>)(\d+)(</v>)`)
)

// splitShared splits the table excelize wrote where its entries start,
// its counts raised by the tool-call sheet's: n entries, named by refs cells.
func splitShared(sst []byte, n, refs int) (head, tail []byte, err error) {
	loc := sstStart.FindIndex(sst)
	if loc == nil {
		return nil, nil, errors.New("no shared string table")
	}
	tag, tail := string(sst[loc[0]:loc[1]]), sst[loc[1]:]
	if empty, ok := strings.CutSuffix(tag, "/>"); ok {
		tag, tail = empty+">", append([]byte("</sst>"), tail...)
	}
	tag = sstCount.ReplaceAllStringFunc(tag, func(m string) string {
		sub := sstCount.FindStringSubmatch(m)
		v, e := strconv.Atoi(sub[2])
		if e != nil {
			err = e
			return m
		}
		if sub[1] == "count" {
			v += refs
		} else {
			v += n
		}
		return fmt.Sprintf(` %s="%d"`, sub[1], v)
	})
	return append(slices.Clip(sst[:loc[0]]), tag...), tail, err
}

// shiftShared moves the shared string indices of a sheet excelize wrote by
// n, past the tool-call sheet's entries, which come first in the table.
func shiftShared(sheet []byte, n int) ([]byte, error) {
	if n == 0 {
		return sheet, nil
	}
	var err error
	out := sharedCellWord.ReplaceAllFunc(sheet, func(m []byte) []byte {
		sub := sharedCellWord.FindSubmatch(m)
		v, e := strconv.Atoi(string(sub[2]))
		if e != nil {
			err = e
			return m
		}
		b := append(slices.Clip(sub[1]), strconv.Itoa(v+n)...)
		return append(b, sub[3]...)
	})
	return out, err
}

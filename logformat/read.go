package logformat

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/agentstat/agentstat/logformat/clamp"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"
	"golang.org/x/text/transform"
)

// Read: from a file's bytes to documents, each dispatched to the first
// format that matches it.

var bom = []byte{0xEF, 0xBB, 0xBF}

// asUTF8 reads r as UTF-8 text when it holds JSON in UTF-16 or UTF-32
// (Windows PowerShell's redirection writes UTF-16), and returns it as it is
// otherwise. JSON text begins with an ASCII character, so the zero bytes
// among its first four name the encoding (RFC 4627, section 3), as does a
// byte-order mark; without a mark, the character must be one a log
// document opens with, so that binary junk is not taken for text. The
// decoders of golang.org/x/text turn a bad sequence into U+FFFD.
func asUTF8(r io.Reader) (io.Reader, error) {
	var head [4]byte
	n, err := io.ReadFull(r, head[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, err
	}
	b := head[:n]
	r = io.MultiReader(bytes.NewReader(b), r)
	opens := func(c byte) bool { return strings.IndexByte("{[ \t\r\n", c) >= 0 } // how a log document can start
	var enc encoding.Encoding
	switch {
	case bytes.HasPrefix(b, []byte{0, 0, 0xFE, 0xFF}) || n == 4 && b[0] == 0 && b[1] == 0 && b[2] == 0 && opens(b[3]):
		enc = utf32.UTF32(utf32.BigEndian, utf32.UseBOM)
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE, 0, 0}) || n == 4 && opens(b[0]) && b[1] == 0 && b[2] == 0 && b[3] == 0:
		enc = utf32.UTF32(utf32.LittleEndian, utf32.UseBOM)
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}) || n >= 2 && b[0] == 0 && opens(b[1]):
		enc = unicode.UTF16(unicode.BigEndian, unicode.UseBOM)
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}) || n >= 2 && opens(b[0]) && b[1] == 0:
		enc = unicode.UTF16(unicode.LittleEndian, unicode.UseBOM)
	default:
		return r, nil
	}
	return transform.NewReader(r, enc.NewDecoder()), nil
}

// readers recycles read buffers: a run over many small files would otherwise
// spend its time allocating and clearing them.
var (
	readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}
	clamps  = sync.Pool{New: func() any { return clamp.NewReader() }}
)

// Read detects the format of one file's content and emits what it holds.
// name is the file's path relative to its root ('/'-separated); it decides
// nothing but whether the content is read as JSON Lines. A file that yields
// nothing returns a *SkipError; I/O errors from r are returned as they are.
func Read(r io.Reader, name string, opt Options, em reader.Emitter) error {
	err := read(r, name, opt, em)
	if errors.Is(err, clamp.ErrTokenTooLong) {
		return skip(ReasonInvalidJSON, err.Error())
	}
	return err
}

// A file is read the first of these ways that does not give up
// (errRawGaveUp), fastest first. A document no larger than
// maxSmallDocument is held whole and read as it is by the raw scanner
// (readHeld). A larger one that can be read again (Options.Reread) is read
// as it is by the raw document path, then through the clamp by the same
// path, then token by token. Everything else, and what those give up on,
// is read as its content says: JSON Lines, one document or several values.
type way int

const (
	byContent     way = iota // as the content says; a large document that can be read again gives up (errLargeDocument)
	heldAsIs                 // a small document held whole, unclamped, by the raw scanner alone
	streamAsIs               // a large document, unclamped, by the raw document path alone
	clampedStream            // a large document, clamped, by the raw document path (or as JSON Lines)
)

// errLargeDocument is byContent's answer for a large document that can be
// read again: read tries the raw document path on it first.
var errLargeDocument = errors.New("a large document")

func read(r io.Reader, name string, opt Options, em reader.Emitter) error {
	if opt.Location == nil {
		opt.Location = time.UTC
	}
	r, err := asUTF8(r)
	if err != nil {
		return err
	}
	if !jsonLinesName(name) && smallDocuments && opt.Reread == nil {
		// A file known to be larger (one that can be read again) is not
		// held: its first megabyte would be copied for nothing.
		held := documentBufs.Get().(*bytes.Buffer)
		defer documentBufs.Put(held)
		held.Reset()
		_, err := held.ReadFrom(io.LimitReader(r, maxSmallDocument+1))
		if err == nil && held.Len() <= maxSmallDocument {
			if err := readAs(bytes.NewReader(held.Bytes()), name, opt, em, heldAsIs, held.Bytes()); !errors.Is(err, errRawGaveUp) {
				return err
			}
		}
		var rest io.Reader = r
		if err != nil {
			rest = errReader{err} // met where the read above met it
		}
		return readAs(io.MultiReader(bytes.NewReader(held.Bytes()), rest), name, opt, em, byContent, nil)
	}
	if err := readAs(r, name, opt, em, byContent, nil); !errors.Is(err, errLargeDocument) {
		return err
	}
	// The clamp costs a pass over every line of a large document (a debug
	// bundle), which it nearly always leaves as it is: the raw document
	// path reads the file as it is, then clamped, and only then is it read
	// token by token.
	reread := func() (io.Reader, error) {
		r, err := opt.Reread()
		if err != nil {
			return nil, err
		}
		return asUTF8(r)
	}
	for _, w := range []way{streamAsIs, clampedStream} {
		again, err := reread()
		if err != nil {
			return err
		}
		if err := readAs(again, name, opt, em, w, nil); !errors.Is(err, errRawGaveUp) {
			return err
		}
	}
	again, err := reread()
	if err != nil {
		return err
	}
	opt.Reread = nil
	return readAs(again, name, opt, em, byContent, nil)
}

// readAs reads r the way w says; held is the file's bytes for heldAsIs.
func readAs(r io.Reader, name string, opt Options, em reader.Emitter, w way, held []byte) error {
	asIs := w == heldAsIs || w == streamAsIs
	cr := clamps.Get().(*clamp.Reader)
	cr.Reset(r)
	cr.Lines = jsonLinesName(name)
	// JSON Lines are read as they are and clamped line by line (readLines):
	// the lines the raw path takes skip the clamp. Any other file, and a
	// .jsonl file read whole after all, is clamped as one stream.
	eachLine := cr.Lines && !opt.streamClamp && !asIs
	br := readers.Get().(*bufio.Reader)
	if eachLine || asIs {
		br.Reset(r)
	} else {
		br.Reset(cr)
	}
	var clamped *bufio.Reader
	clampStream := func() {
		cr.Reset(br)
		cr.Lines, eachLine = true, false
		clamped = readers.Get().(*bufio.Reader)
		clamped.Reset(cr)
		br = clamped
	}
	own := br
	defer func() {
		for _, b := range []*bufio.Reader{own, clamped} {
			if b != nil {
				b.Reset(nil)
				readers.Put(b)
			}
		}
		cr.Reset(nil)
		clamps.Put(cr)
	}()
	if head, _ := br.Peek(3); bytes.Equal(head, bom) {
		if eachLine { // the clamp saw the mark before the first line
			clampStream()
		}
		br.Discard(3)
	}
	first, err := firstByte(br)
	if err == io.EOF {
		return skip(ReasonEmpty, "")
	}
	if err != nil {
		return err
	}
	spill := opt.Spill
	if spill != nil && spill.Loc() != opt.Location {
		spill = nil
	}
	c := reader.NewCtx(name, opt.Location, spill, em)
	lines := jsonLinesName(name) && first != '[' && !prettyPrinted(br) // a .jsonl holding an array, or indented JSON, is read whole
	if eachLine && !lines {
		clampStream()
	}
	switch {
	case w == heldAsIs:
		if err = errRawGaveUp; first == '{' {
			err = readHeld(bytes.TrimPrefix(held, bom), c)
		}
	case w == streamAsIs:
		if err = errRawGaveUp; first == '{' {
			err = readRawAsIs(br, c)
		}
	case lines || !jsonLinesName(name) && first == '{' && oneValuePerLine(br):
		err = readLines(br, c, opt.LineWorkers, eachLine)
	case first == '{' && opt.Reread != nil && w == byContent:
		return errLargeDocument
	case first == '{' && opt.Reread != nil:
		err = readRawDocument(br, c)
	default:
		err = readValues(br, c)
	}
	if errors.Is(err, errRawGaveUp) { // nothing was emitted: the next way reads the file
		return err
	}
	if !errors.Is(cr.Err(), clamp.ErrTokenTooLong) { // a document the clamp refused is skipped whole, whatever it read before
		for range cr.NonFinite { // each a value read as null
			c.Warn(reader.WarnBadNumber)
		}
	}
	if err == nil {
		c.End()
	}
	return err
}

// prettyPrinted reports whether the content ahead opens with a line holding
// only "{": indented JSON (jq's output, say) saved under a .jsonl name. No
// JSON line is a lone brace.
func prettyPrinted(br *bufio.Reader) bool {
	head, _ := br.Peek(64)
	line, _, _ := bytes.Cut(head, []byte{'\n'})
	return string(bytes.TrimSpace(line)) == "{" && len(line) < len(head)
}

// oneValuePerLine reports whether the content ahead is JSON Lines under a
// .json name (an appending logger's): its first line is one whole value and
// more follows. Read as one stream of values, a broken value in it would end
// the file there; read as lines, it costs its line.
func oneValuePerLine(br *bufio.Reader) bool {
	head, _ := br.Peek(br.Size())
	first, rest, ok := bytes.Cut(head, []byte{'\n'})
	rest = bytes.TrimLeft(rest, " \t\r\n")
	if !ok || len(rest) == 0 {
		return false // one line, or nothing after the first within reach
	}
	whole := func(line []byte) bool {
		return jsontext.Value(bytes.TrimSpace(line)).IsValid(jsontext.AllowDuplicateNames(true))
	}
	second, _, complete := bytes.Cut(rest, []byte{'\n'})
	return whole(first) && (!complete || whole(second)) // a second line cut by the peek cannot tell
}

// jsonLinesName reports whether a file is read as JSON Lines (unless it holds one array).
func jsonLinesName(name string) bool {
	lower := strings.ToLower(name)
	return strings.HasSuffix(lower, ".jsonl") || strings.HasSuffix(lower, ".jsonl.gz")
}

func firstByte(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.ReadByte()
		if err != nil {
			return 0, err
		}
		if b != ' ' && b != '\t' && b != '\r' && b != '\n' {
			return b, br.UnreadByte()
		}
	}
}

// readValues reads a file as one JSON value, or several in a row.
func readValues(br *bufio.Reader, c *reader.Ctx) error {
	// A fresh decoder, not a pooled one: the JSON pointer in a reused
	// one's syntax error could name members of what it had read before
	// (one broken file's error read "//0/isStuck" or
	// "/thinkActSteps/0/isStuck" depending on the pool), and a report's
	// data-quality details must be the same run after run.
	dec := jsontext.NewDecoder(br, jsontext.AllowDuplicateNames(true))
	opts := jsonscan.DecodeOptions(c)
	matched := false
	for c.Ord = 0; ; c.Ord++ {
		if dec.PeekKind() == 0 {
			_, err := dec.ReadToken()
			if err == io.EOF {
				break
			}
			if c.Ord == 0 {
				return classify(err)
			}
			c.Warn(reader.WarnInvalidLine)
			break
		}
		var ok bool
		var err error
		if dec.PeekKind() == '[' {
			ok, err = readArray(dec, opts, c)
		} else {
			ok, err = readDocument(dec, opts, c)
		}
		if err != nil {
			if c.Ord == 0 && c.Emits() == 0 {
				return classify(err)
			}
			c.Warn(reader.WarnInvalidLine)
			break
		}
		matched = matched || ok
	}
	return verdict(matched, c)
}

// readHeld reads a document held whole with the raw scanner, or gives up
// (errRawGaveUp) having emitted nothing: whole as a line is, or, for a
// debug bundle, by the raw document path with the document as its window.
// The bytes are not clamped: the scanner also gives up on anything the
// clamp would change (see readRawAsIs), and the document is clamped and
// read by content. A document the scanner reads as it is holds one object
// and nothing the clamp changes, so the choices made on the clamped bytes
// (one value per line or not, a document) would have led to readValues
// reading that object.
func readHeld(doc []byte, c *reader.Ctx) error {
	var d document
	var w jsonscan.WarnList
	if decodeRaw(jsonscan.Scanner{B: doc, AsIs: true}, &d, &w) {
		for _, kind := range w.Kinds {
			c.Warn(kind)
		}
		return verdict(dispatch(&d, c), c)
	}
	if bytes.Contains(doc, []byte(`"events"`)) { // a debug bundle
		return rawDocument(jsonscan.HeldStream(doc), c)
	}
	return errRawGaveUp
}

// maxSmallDocument is the largest document read holds whole.
const maxSmallDocument = 1 << 20

// smallDocuments lets read hold them (a variable for tests).
var smallDocuments = true

var documentBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// errReader fails every read with its error.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// readArray reads a top-level array whose elements are documents (a list of
// conversations or messages, or of records of any format).
func readArray(dec *jsontext.Decoder, opts json.Options, c *reader.Ctx) (bool, error) {
	if _, err := dec.ReadToken(); err != nil {
		return false, err
	}
	matched := false
	for dec.PeekKind() != ']' {
		if dec.PeekKind() != '{' {
			if err := dec.SkipValue(); err != nil {
				return matched, err
			}
			continue
		}
		ok, err := readDocument(dec, opts, c)
		if err != nil {
			return matched, err
		}
		matched = matched || ok
		c.Ord++
	}
	_, err := dec.ReadToken()
	return matched, err
}

func keepFirst(old, err error) error {
	if old != nil {
		return old
	}
	return err
}

func verdict(matched bool, c *reader.Ctx) error {
	switch {
	case c.Emits() > 0:
		return nil
	case matched:
		return skip(ReasonNoRuns, "")
	}
	return skip(ReasonUnknown, "")
}

// classify turns a decode error of a file's first value into a skip reason.
func classify(err error) error {
	var se *SkipError
	switch {
	case errors.As(err, &se):
		return err
	case jsonscan.IsInvalidUTF8(err):
		return skip(ReasonNotUTF8, err.Error())
	case errors.Is(err, io.ErrUnexpectedEOF):
		return skip(ReasonTruncated, err.Error())
	}
	if errors.Is(err, clamp.ErrTokenTooLong) {
		return skip(ReasonInvalidJSON, err.Error())
	}
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) {
		return skip(ReasonInvalidJSON, err.Error())
	}
	var sem *json.SemanticError
	if errors.As(err, &sem) {
		return skip(ReasonInvalidJSON, err.Error())
	}
	return err
}

// readDocument decodes one JSON object and hands it to the first format whose
// signature it matches. ok reports that some format matched.
func readDocument(dec *jsontext.Decoder, opts json.Options, c *reader.Ctx) (ok bool, err error) {
	var d document
	if err := json.UnmarshalDecode(dec, &d, opts); err != nil {
		return false, err
	}
	return dispatch(&d, c), nil
}

func dispatch(d *document, c *reader.Ctx) bool {
	for _, f := range registry {
		if f.match(d) {
			f.read(d, c)
			return true
		}
	}
	return false
}

// lineReader yields one line at a time as a reader, so that a line of any
// length streams through the decoder without being held whole.
type lineReader struct {
	br     *bufio.Reader
	inLine bool // a line is open: Read serves it until its newline
	done   bool // input exhausted
	err    error
}

// next drains what is left of the current line and opens the next one.
func (l *lineReader) next() bool {
	if l.done {
		return false
	}
	if l.inLine {
		for {
			_, err := l.br.ReadSlice('\n')
			if err == nil {
				break
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != io.EOF {
				l.err = err
			}
			l.done = true
			return false
		}
	}
	if _, err := l.br.Peek(1); err != nil {
		if err != io.EOF {
			l.err = err
		}
		l.done = true
		return false
	}
	l.inLine = true
	return true
}

func (l *lineReader) Read(p []byte) (int, error) {
	if !l.inLine {
		return 0, io.EOF
	}
	buf, err := l.br.Peek(1)
	if len(buf) == 0 {
		if err != io.EOF {
			l.err = err
		}
		l.inLine, l.done = false, true
		return 0, io.EOF
	}
	n := l.br.Buffered()
	if n > len(p) {
		n = len(p)
	}
	buf, _ = l.br.Peek(n)
	if i := bytes.IndexByte(buf, '\n'); i >= 0 {
		copy(p, buf[:i])
		l.br.Discard(i + 1)
		l.inLine = false
		return i, nil
	}
	copy(p, buf)
	l.br.Discard(n)
	return n, nil
}

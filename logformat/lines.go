package logformat

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"slices"
	"sync"

	"github.com/agentstat/agentstat/logformat/clamp"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// JSONL is read in chunks of whole lines. Each line is first tried by the
// raw scanner (package jsonscan), else decoded by the reflective one, then
// handed to the readers strictly in file order. A long file (a transcript
// of hundreds of MB) has its chunks decoded by several goroutines, which
// would otherwise idle while one core reads; a short one is decoded inline.
var (
	chunkBytes   = 1 << 18 // lines per chunk, by size (a variable for tests); see chunksInFlight
	maxChunkLine = 1 << 20 // a longer line is decoded in order, streaming, as readLines does
	// chunkLines bounds a chunk of short lines: each line costs a decoded
	// document (about 2 KB) whatever its length.
	chunkLines = 512
)

// chunksInFlight is how many chunks each decoding goroutine may hold. A
// chunk's decoded documents (1.9 KB each) take about as much memory as its
// lines, and these chunks are most of what a long file's read holds; more
// in flight read a long transcript no faster.
const chunksInFlight = 1 // per decoding goroutine

// decodedLine is one line after decoding, before any reader saw it.
type decodedLine struct {
	doc   *document
	blank bool  // nothing but white space
	err   error // not one valid JSON value
}

type lineChunk struct {
	seq   int
	data  []byte
	ends  []int // end offset of each line in data
	open  bool  // its last line is the file's, with no newline
	lines []decodedLine
	docs  []document       // the lines' documents: one allocation per chunk, not per line
	arena reader.LineArena // what the raw path decodes for them
	warns map[string]int   // warnings counted while decoding
}

// reset empties k for the next lines once readers have seen its documents;
// they keep no pointer into one, and cleared documents hold nothing alive.
func (k *lineChunk) reset() {
	clear(k.warns)
	clear(k.docs)
	k.arena.Reset()
	k.data, k.ends, k.lines, k.docs, k.open = k.data[:0], k.ends[:0], k.lines[:0], k.docs[:0], false
}

func (k *lineChunk) Warn(kind string) { k.warns[kind]++ }

// decodeFrom points dec at line through buf: jsontext parses a
// bytes.Buffer's bytes where they are, where it would copy a bytes.Reader's
// into a buffer of its own, growing it for every long line.
func decodeFrom(dec *jsontext.Decoder, buf *bytes.Buffer, line []byte) {
	*buf = *bytes.NewBuffer(line)
	dec.Reset(buf, jsontext.AllowDuplicateNames(true))
}

// lineState is what readLines tracks across lines; both line readers share it.
type lineState struct {
	matched, valid bool
	firstErr       error
}

// take hands one decoded line to the readers, in file order.
func (s *lineState) take(l decodedLine, c *reader.Ctx) {
	switch {
	case l.blank:
		return
	case l.err != nil:
		s.firstErr = keepFirst(s.firstErr, l.err)
		c.Warn(reader.WarnInvalidLine)
		return
	}
	s.valid = true
	before := c.Emits()
	ok := dispatch(l.doc, c)
	if !ok && c.Emits() == before {
		c.Warn(reader.WarnUnknownLine)
	}
	s.matched = s.matched || ok
	c.Ord++
}

func (s *lineState) verdict(c *reader.Ctx) error {
	if !s.valid && s.firstErr != nil {
		return classify(s.firstErr)
	}
	if !s.valid {
		return skip(ReasonEmpty, "")
	}
	return verdict(s.matched, c)
}

// lineDecoder decodes the lines of chunks; each goroutine has its own.
type lineDecoder struct {
	buf         bytes.Buffer // the line being decoded
	dec         *jsontext.Decoder
	rawWarns    *jsonscan.WarnList // the raw path's, counted only when it takes a line
	rawOK, miss int                // lines the raw path took and gave up on, in this file
	clampEach   bool               // lines come as written: clamp each (see read)
	clamp       *clamp.Reader
	clamped     []byte // the last clamped line's bytes, reused
}

func newLineDecoder() *lineDecoder {
	d := &lineDecoder{rawWarns: &jsonscan.WarnList{}, clamp: clamp.NewReader()}
	d.dec = jsontext.NewDecoder(&d.buf)
	return d
}

// Short files are many: their decoders and chunk buffers are reused.
var (
	lineDecoders = sync.Pool{New: func() any { return newLineDecoder() }}
	inlineChunks = sync.Pool{New: func() any { return &lineChunk{warns: map[string]int{}} }}
)

// decode fills k.lines from k's data.
func (d *lineDecoder) decode(k *lineChunk) {
	opts := jsonscan.DecodeOptions(k)
	k.docs = slices.Grow(k.docs[:0], len(k.ends))[:len(k.ends)] // zero: reset cleared them
	start, broken := 0, false
	for i, end := range k.ends {
		line := k.data[start:end]
		start = end
		doc := &k.docs[i]
		// The raw path is tried while it pays: a file of another format
		// gives it up after a few lines, a transcript's odd lines do not.
		fast := d.miss < 4 || d.rawOK > d.miss
		raw := fast
		if d.clampEach {
			// A line with no room for a string or bare token the clamp
			// would cut, taken whole by the raw path (which refuses what
			// else the clamp changes: surrogate escapes, NaN, Infinity), is
			// one the clamp leaves as it is: most of a transcript's.
			if fast && clamp.ShortAndQuoted(line, clamp.MaxString, clamp.MaxBareToken) {
				if decodeLineRaw(line, doc, d.rawWarns, &k.arena) {
					d.rawDecoded(k, doc)
					continue
				}
				*doc = document{}
			}
			var copied bool
			line, copied = d.clampLine(k, line, !k.open || i < len(k.ends)-1)
			raw = fast && copied // a line the clamp left as it is was tried above
		}
		if fast {
			if raw && decodeLineRaw(line, doc, d.rawWarns, &k.arena) {
				d.rawDecoded(k, doc)
				continue
			}
			*doc = document{}
			d.miss++
		}
		decodeFrom(d.dec, &d.buf, line)
		l := decodeLine(d.dec, opts, doc)
		if l.err != nil && !broken { // only a chunk's first error can be its file's first
			broken = true
			if err := lineError(line); err != nil {
				l.err = err
			}
		}
		k.lines = append(k.lines, l)
	}
	decodeFrom(d.dec, &d.buf, nil) // a pooled decoder holds on to no chunk
}

// clampLine is line as the clamp makes it in the stream (see
// clamp.Reader.Line), its NaN and Infinity counted; copied reports
// new bytes.
func (d *lineDecoder) clampLine(k *lineChunk, line []byte, ended bool) (out []byte, copied bool) {
	out, nulls, copied := d.clamp.Line(line, d.clamped, ended)
	if copied {
		d.clamped = out[:0]
	}
	for range nulls {
		k.Warn(reader.WarnBadNumber)
	}
	return out, copied
}

// rawDecoded takes a line the raw path decoded into doc, with its warnings.
func (d *lineDecoder) rawDecoded(k *lineChunk, doc *document) {
	for _, kind := range d.rawWarns.Kinds {
		k.Warn(kind)
	}
	k.lines = append(k.lines, decodedLine{doc: doc})
	d.rawOK++
}

// lineError is the error a fresh decoder gives for a broken line. A reused
// decoder's message can name object members it saw on earlier lines (with
// duplicate names allowed, jsontext's pointer on malformed input reads stale
// names), and the same file must always get the same detail.
func lineError(line []byte) error {
	dec := jsontext.NewDecoder(bytes.NewReader(line), jsontext.AllowDuplicateNames(true))
	return decodeLine(dec, jsonscan.DecodeOptions(discardWarner{}), nil).err
}

type discardWarner struct{}

func (discardWarner) Warn(string) {}

// readLines reads JSON Lines: one document per line, lines of any length (a
// line over maxChunkLine streams through the decoder), a broken line
// counted and passed over. With workers > 1 chunks are decoded on that
// many goroutines. With clampEach, br gives the lines as written and each
// is clamped as it is decoded; else br is the clamp's.
func readLines(br *bufio.Reader, c *reader.Ctx, workers int, clampEach bool) error {
	inline := workers <= 1
	var todo, done chan *lineChunk
	var own *lineDecoder
	cur := &lineChunk{warns: map[string]int{}}
	if inline {
		own = lineDecoders.Get().(*lineDecoder)
		own.rawOK, own.miss, own.clampEach = 0, 0, clampEach
		cur = inlineChunks.Get().(*lineChunk)
		defer func() {
			lineDecoders.Put(own)
			cur.reset()
			inlineChunks.Put(cur)
		}()
	} else {
		todo, done = make(chan *lineChunk), make(chan *lineChunk, workers*chunksInFlight)
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				d := newLineDecoder()
				d.clampEach = clampEach
				for k := range todo {
					d.decode(k)
					done <- k
				}
			})
		}
		defer func() {
			close(todo)
			wg.Wait()
		}()
	}

	var st lineState
	inFlight, next, seq := 0, 0, 0
	ready := map[int]*lineChunk{}
	var free []*lineChunk // chunks whose lines the readers have seen
	apply := func(k *lineChunk) {
		for kind, n := range k.warns {
			for range n {
				c.Warn(kind)
			}
		}
		for _, l := range k.lines {
			st.take(l, c)
		}
	}
	// consume hands finished chunks to the readers in file order, waiting
	// for chunks while more than limit are in flight.
	consume := func(limit int) {
		for inFlight > limit || len(done) > 0 {
			k := <-done
			ready[k.seq] = k
			for k := ready[next]; k != nil; k = ready[next] {
				delete(ready, next)
				apply(k)
				k.reset()
				free = append(free, k)
				next++
				inFlight--
			}
		}
	}
	submit := func() {
		if len(cur.ends) == 0 {
			return
		}
		if inline { // decode now, and reuse the chunk: documents hold no part of it
			own.decode(cur)
			apply(cur)
			cur.reset()
			return
		}
		consume(workers*chunksInFlight - 1)
		cur.seq, seq = seq, seq+1
		inFlight++
		todo <- cur
		if n := len(free); n > 0 {
			cur, free = free[n-1], free[:n-1]
		} else {
			cur = &lineChunk{warns: map[string]int{}, data: make([]byte, 0, chunkBytes+4096)}
		}
	}
	var long []byte
	for {
		frag, err := br.ReadSlice('\n')
		if errors.Is(err, io.ErrUnexpectedEOF) { // a compressed stream cut short: the lines before the cut count
			c.Warn(reader.WarnTruncatedStream)
			err = io.EOF
		}
		if err != nil && err != bufio.ErrBufferFull && err != io.EOF {
			return err
		}
		full := err == bufio.ErrBufferFull
		if len(long) > 0 || full {
			long = append(long, frag...)
		}
		if full {
			if len(long) <= maxChunkLine {
				continue
			}
			// A very long line: decode it streaming, in order, once every earlier line is read.
			submit()
			consume(0)
			lr := &lineReader{br: br, inLine: true}
			var in io.Reader = io.MultiReader(bytes.NewReader(long), lr)
			var lc *clamp.Reader
			if clampEach { // the clamp sees the line's newline, as in the stream; the decoder does not
				lc = clamps.Get().(*clamp.Reader)
				lc.Reset(io.MultiReader(in, &newlineAfter{lr: lr}))
				lc.Lines, in = true, &beforeNewline{r: lc}
			}
			line := decodeLine(jsontext.NewDecoder(in, jsontext.AllowDuplicateNames(true)), jsonscan.DecodeOptions(c), nil)
			if lc != nil {
				for range lc.NonFinite {
					c.Warn(reader.WarnBadNumber)
				}
				lc.Reset(nil)
				clamps.Put(lc)
			}
			if lr.err != nil {
				return lr.err
			}
			lr.next() // drain what the decoder left of the line
			if lr.err != nil {
				return lr.err
			}
			st.take(line, c)
			long = long[:0]
			continue
		}
		line := frag
		if len(long) > 0 {
			line = long
		}
		line = bytes.TrimSuffix(line, []byte{'\n'})
		if !blank(line) { // a blank line is no document: it costs nothing
			cur.data = append(cur.data, line...)
			cur.ends = append(cur.ends, len(cur.data))
			cur.open = err == io.EOF
			if len(cur.data) >= chunkBytes || len(cur.ends) >= chunkLines {
				submit()
			}
		}
		long = long[:0]
		if err == io.EOF {
			break
		}
	}
	submit()
	consume(0)
	return st.verdict(c)
}

// blank reports whether line holds nothing but JSON white space.
func blank(line []byte) bool {
	for _, b := range line {
		if b != ' ' && b != '\t' && b != '\r' {
			return false
		}
	}
	return true
}

// newlineAfter gives a newline once a line's reader has read to one, and
// nothing after the last line of a file.
type newlineAfter struct {
	lr   *lineReader
	sent bool
}

func (n *newlineAfter) Read(p []byte) (int, error) {
	if n.sent || n.lr.done || n.lr.err != nil || len(p) == 0 {
		return 0, io.EOF
	}
	n.sent, p[0] = true, '\n'
	return 1, io.EOF
}

// beforeNewline reads r up to its first newline.
type beforeNewline struct {
	r    io.Reader
	done bool
}

func (b *beforeNewline) Read(p []byte) (int, error) {
	if b.done {
		return 0, io.EOF
	}
	n, err := b.r.Read(p)
	if i := bytes.IndexByte(p[:n], '\n'); i >= 0 {
		b.done = true
		return i, io.EOF
	}
	return n, err
}

// decodeLine decodes the one JSON value of a line; the line is invalid when
// it holds anything else, and then no reader sees it.
func decodeLine(dec *jsontext.Decoder, opts json.Options, d *document) decodedLine {
	if dec.PeekKind() == 0 {
		if _, err := dec.ReadToken(); err != nil && err != io.EOF {
			return decodedLine{err: err}
		}
		return decodedLine{blank: true}
	}
	if d == nil {
		d = new(document)
	}
	err := json.UnmarshalDecode(dec, d, opts)
	if err == nil {
		if _, err = dec.ReadToken(); err == io.EOF {
			err = nil
		} else if err == nil {
			err = errors.New("more than one value on a line")
		}
	}
	if err != nil {
		return decodedLine{err: err}
	}
	return decodedLine{doc: d}
}

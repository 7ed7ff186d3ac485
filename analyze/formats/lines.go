package formats

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"slices"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// JSONL is read in chunks of whole lines. Each line is first tried by the
// token-level Claude Code decoder, else decoded by the general one, then
// handed to the readers strictly in file order. A long file (a transcript
// of hundreds of MB) has its chunks decoded by several goroutines, which
// would otherwise idle while one core reads; a short one is decoded inline.
var (
	chunkBytes   = 1 << 19 // lines per chunk, by size (a variable for tests); see chunksInFlight
	maxChunkLine = 1 << 20 // a longer line is decoded in order, streaming, as readLines does
)

// chunksInFlight is how many chunks each decoding goroutine may hold. A
// chunk's decoded documents (1.7 KB each) take about as much memory as its
// lines, and these chunks were most of what a long file's read held: 512 KB
// chunks halved it from 1 MB ones at the same CPU; 256 KB ones cost 5%.
const chunksInFlight = 2 // per decoding goroutine

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
	lines []decodedLine
	docs  []document     // the lines' documents: one allocation per chunk, not per line
	warns map[string]int // warnings counted while decoding
}

// reset empties k for the next lines once readers have seen its documents;
// they keep no pointer into one, and cleared documents hold nothing alive.
func (k *lineChunk) reset() {
	clear(k.warns)
	clear(k.docs)
	k.data, k.ends, k.lines, k.docs = k.data[:0], k.ends[:0], k.lines[:0], k.docs[:0]
}

func (k *lineChunk) Warn(kind string) { k.warns[kind]++ }

// decodeFast tries the Claude Code fast path on one line into d; ok only
// when it read the whole line as one value (else d is left dirty).
func decodeFast(dec *jsontext.Decoder, buf *bytes.Buffer, line []byte, d *document, w *warnList, opts json.Options) bool {
	decodeFrom(dec, buf, line)
	w.kinds = w.kinds[:0]
	if err := decodeClaudeFast(dec, d, w, opts); err != nil {
		return false
	}
	_, err := dec.ReadToken()
	return err == io.EOF
}

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
func (s *lineState) take(l decodedLine, c *readCtx) {
	switch {
	case l.blank:
		return
	case l.err != nil:
		s.firstErr = keepFirst(s.firstErr, l.err)
		c.Warn(WarnInvalidLine)
		return
	}
	s.valid = true
	before := c.emits
	ok := dispatch(l.doc, c)
	if !ok && c.emits == before {
		c.Warn(WarnUnknownLine)
	}
	s.matched = s.matched || ok
	c.ord++
}

func (s *lineState) verdict(c *readCtx) error {
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
	buf          bytes.Buffer // the line being decoded
	dec          *jsontext.Decoder
	fastWarns    *warnList
	fastOpts     json.Options
	fastOK, miss int // lines the fast path took and gave up on, in this file
}

func newLineDecoder() *lineDecoder {
	d := &lineDecoder{fastWarns: &warnList{}}
	d.dec = jsontext.NewDecoder(&d.buf)
	d.fastOpts = decodeOptions(d.fastWarns)
	return d
}

// Short files are many: their decoders and chunk buffers are reused.
var (
	lineDecoders = sync.Pool{New: func() any { return newLineDecoder() }}
	inlineChunks = sync.Pool{New: func() any { return &lineChunk{warns: map[string]int{}} }}
)

// decode fills k.lines from k's data.
func (d *lineDecoder) decode(k *lineChunk) {
	opts := decodeOptions(k)
	k.docs = slices.Grow(k.docs[:0], len(k.ends))[:len(k.ends)] // zero: reset cleared them
	start, broken := 0, false
	for i, end := range k.ends {
		line := k.data[start:end]
		start = end
		doc := &k.docs[i]
		// The fast path is tried while it pays: a file of another format
		// gives it up after a few lines, a transcript's odd lines do not.
		if d.miss < 4 || d.fastOK > d.miss {
			ok := decodeClaudeRaw(line, doc, d.fastWarns)
			if !ok {
				*doc = document{}
				ok = decodeFast(d.dec, &d.buf, line, doc, d.fastWarns, d.fastOpts)
			}
			if ok {
				for _, kind := range d.fastWarns.kinds {
					k.Warn(kind)
				}
				k.lines = append(k.lines, decodedLine{doc: doc})
				d.fastOK++
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

// lineError is the error a fresh decoder gives for a broken line. A reused
// decoder's message can name object members it saw on earlier lines (with
// duplicate names allowed, jsontext's pointer on malformed input reads stale
// names), and the same file must always get the same detail.
func lineError(line []byte) error {
	dec := jsontext.NewDecoder(bytes.NewReader(line), jsontext.AllowDuplicateNames(true))
	return decodeLine(dec, decodeOptions(discardWarner{}), nil).err
}

type discardWarner struct{}

func (discardWarner) Warn(string) {}

// readLines reads JSON Lines: one document per line, lines of any length (a
// line over maxChunkLine streams through the decoder), a broken line
// counted and passed over. With workers > 1 chunks are decoded on that
// many goroutines.
func readLines(br *bufio.Reader, c *readCtx, workers int) error {
	inline := workers <= 1
	var todo, done chan *lineChunk
	var own *lineDecoder
	cur := &lineChunk{warns: map[string]int{}}
	if inline {
		own = lineDecoders.Get().(*lineDecoder)
		own.fastOK, own.miss = 0, 0
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
			c.Warn(WarnTruncatedStream)
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
			line := decodeLine(jsontext.NewDecoder(io.MultiReader(bytes.NewReader(long), lr), jsontext.AllowDuplicateNames(true)), decodeOptions(c), nil)
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
		if len(line) > 0 || err == nil {
			cur.data = append(cur.data, line...)
			cur.ends = append(cur.ends, len(cur.data))
			if len(cur.data) >= chunkBytes {
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

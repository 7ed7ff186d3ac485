package formats

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// A long JSONL file (a transcript of hundreds of MB) would otherwise keep
// one core busy while the others idle. Its lines are read here in chunks,
// decoded by several goroutines, and handed to the readers strictly in file
// order, so the result is the same as reading line by line.
var (
	chunkBytes   = 1 << 20 // lines per chunk, by size (a variable for tests)
	maxChunkLine = 1 << 20 // a longer line is decoded in order, streaming, as readLines does
)

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
	warns map[string]int // warnings counted while decoding
}

func (k *lineChunk) Warn(kind string) { k.warns[kind]++ }

// decodeFast tries the Claude Code fast path on one line; ok only when it
// read the whole line as one value.
func decodeFast(dec *jsontext.Decoder, r *bytes.Reader, line []byte, w *warnList, opts json.Options) (*document, bool) {
	r.Reset(line)
	dec.Reset(r, jsontext.AllowDuplicateNames(true))
	w.kinds = w.kinds[:0]
	d := new(document)
	if err := decodeClaudeFast(dec, d, w, opts); err != nil {
		return nil, false
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return nil, false
	}
	return d, true
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

// readLinesParallel is readLines with the decoding spread over workers goroutines.
func readLinesParallel(br *bufio.Reader, c *readCtx, workers int) error {
	todo := make(chan *lineChunk)
	done := make(chan *lineChunk, workers*chunksInFlight)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var r bytes.Reader
			dec := jsontext.NewDecoder(&r)
			fastWarns := &warnList{}
			fastOpts := decodeOptions(fastWarns)
			for k := range todo {
				opts := decodeOptions(k)
				start := 0
				for _, end := range k.ends {
					line := k.data[start:end]
					start = end
					if d, ok := decodeFast(dec, &r, line, fastWarns, fastOpts); ok {
						for _, kind := range fastWarns.kinds {
							k.Warn(kind)
						}
						k.lines = append(k.lines, decodedLine{doc: d})
						continue
					}
					r.Reset(line)
					dec.Reset(&r, jsontext.AllowDuplicateNames(true))
					k.lines = append(k.lines, decodeLine(dec, opts))
				}
				done <- k
			}
		})
	}
	defer func() {
		close(todo)
		wg.Wait()
	}()

	var st lineState
	inFlight, next, seq := 0, 0, 0
	ready := map[int]*lineChunk{}
	// consume hands finished chunks to the readers in file order, waiting
	// for chunks while more than limit are in flight.
	consume := func(limit int) {
		for inFlight > limit || len(done) > 0 {
			k := <-done
			ready[k.seq] = k
			for k := ready[next]; k != nil; k = ready[next] {
				delete(ready, next)
				for kind, n := range k.warns {
					for range n {
						c.Warn(kind)
					}
				}
				for _, l := range k.lines {
					st.take(l, c)
				}
				next++
				inFlight--
			}
		}
	}
	cur := &lineChunk{warns: map[string]int{}}
	submit := func() {
		if len(cur.ends) == 0 {
			return
		}
		consume(workers*chunksInFlight - 1)
		cur.seq, seq = seq, seq+1
		inFlight++
		todo <- cur
		cur = &lineChunk{warns: map[string]int{}, data: make([]byte, 0, chunkBytes+4096)}
	}
	var long []byte
	for {
		frag, err := br.ReadSlice('\n')
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
			line := decodeLine(jsontext.NewDecoder(io.MultiReader(bytes.NewReader(long), lr), jsontext.AllowDuplicateNames(true)), decodeOptions(c))
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
			if cur.data == nil {
				cur.data = make([]byte, 0, chunkBytes+4096)
			}
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
func decodeLine(dec *jsontext.Decoder, opts json.Options) decodedLine {
	if dec.PeekKind() == 0 {
		if _, err := dec.ReadToken(); err != nil && err != io.EOF {
			return decodedLine{err: err}
		}
		return decodedLine{blank: true}
	}
	d := new(document)
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

package logformat

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"unsafe"

	"github.com/go-json-experiment/json"
)

// A debug bundle is one document, most of it an events array whose
// metadata payloads jsontext skips token by token at 400-500 MB/s.
// readRawDocument reads a large document as readValues does, but a member
// whose type streams itself (rawStreamed: a bundle's events) reads itself
// straight from the bytes with the raw scanner (see rawScan), over a window
// that slides along the stream; every other member is decoded by the
// general decoder as it is. Like decodeLineRaw it accepts
// only what it is sure of, and it emits nothing until the document has
// ended: when in doubt it returns errRawGaveUp, with nothing emitted, and
// the caller reads the file again through the token path (Options.Reread).

var errRawGaveUp = errors.New("the raw document path gave up")

// rawLookahead is how many bytes the window holds past the scan position
// before a step (a key, an event, a member's value); a step that fails
// with the window's end in reach runs again with twice as many, up to
// maxRawWindow. A variable so that tests can make it tiny.
var rawLookahead = 256 << 10

const (
	maxRawWindow = 8 << 20 // the most lookahead an event may need (its buffer is twice that)
	maxRawMember = 1 << 20 // the longest member other than the events
)

// rawStream is a window over a stream for the raw scanner.
type rawStream struct {
	r     io.Reader
	spill *RecordSpill // where a long events array's blocks go (eventList)
	buf   []byte       // backing array of s.b
	s     rawScan
	eof   bool
	need  int
}

// fill reads until the window holds need bytes past the scan position, or
// the input ends; a read error other than the end gives up.
func (r *rawStream) fill() bool {
	s := &r.s
	for !r.eof && len(s.b)-s.i < r.need {
		if len(r.buf)-len(s.b) < r.need { // too little room at the end: move what is left to the front
			size := max(len(r.buf), 4*rawLookahead, 2*r.need)
			if size > len(r.buf) {
				r.buf = make([]byte, size)
			}
			n := copy(r.buf, s.b[s.i:])
			s.b, s.i = r.buf[:n], 0
		}
		n, err := r.r.Read(r.buf[len(s.b):])
		s.b = r.buf[:len(s.b)+n]
		switch {
		case err == io.EOF:
			r.eof = true
		case err != nil:
			return false
		}
	}
	s.more = !r.eof
	return true
}

// step runs f at the scan position; when f fails before the input's end
// it may have been cut by the window, so it runs again over a larger one,
// up to limit. f must start afresh when run again.
func (r *rawStream) step(f func(s *rawScan) bool) bool { return r.stepUpTo(maxRawWindow, f) }

func (r *rawStream) stepUpTo(limit int, f func(s *rawScan) bool) bool {
	defer func() { r.need = rawLookahead }()
	for {
		if !r.fill() {
			return false
		}
		start := r.s.i
		if f(&r.s) {
			return true
		}
		r.s.i = start
		if r.eof || r.need >= limit {
			return false
		}
		r.need *= 2
	}
}

// open consumes the opening bracket c.
func (r *rawStream) open(c byte) bool {
	return r.step(func(s *rawScan) bool {
		s.ws()
		if s.peek() != c {
			return false
		}
		s.i++
		return true
	})
}

// members reads an object member by member, calling member with the scan
// position at each value, which it must consume. Keys with escapes give up
// (they might spell one read), unless anyKey: the keys are then not used.
func (r *rawStream) members(anyKey bool, member func(key string) bool) bool {
	if !r.open('{') {
		return false
	}
	for first := true; ; first = false {
		var key string
		closed := false
		if !r.step(func(s *rawScan) bool {
			var ok bool
			if closed, ok = s.next('}', first); closed || !ok {
				return ok
			}
			start := s.i
			if s.peek() != '"' || !s.skipString() {
				return false
			}
			name := s.b[start+1 : s.i-1]
			if !anyKey && bytes.IndexByte(name, '\\') >= 0 {
				return false
			}
			if s.ws(); s.peek() != ':' {
				return false
			}
			s.i++
			s.ws()
			key = string(name)
			return true
		}) {
			return false
		}
		if closed {
			return true
		}
		if !member(key) {
			return false
		}
	}
}

// skipValue consumes one value of up to limit bytes, handing its bytes to
// use (valid until the next step).
func (r *rawStream) skipValue(limit int, use func(v []byte) bool) bool {
	var v []byte
	return r.stepUpTo(limit, func(s *rawScan) bool {
		start := s.i
		if !s.skip() || s.i-start > limit {
			return false
		}
		v = s.b[start:s.i]
		return true
	}) && (use == nil || use(v))
}

// elements reads an array element by element, calling elem with the scan
// position at each, which it must consume.
func (r *rawStream) elements(elem func() bool) bool {
	if !r.open('[') {
		return false
	}
	for first := true; ; first = false {
		closed := false
		if !r.step(func(s *rawScan) bool {
			var ok bool
			closed, ok = s.next(']', first)
			return ok
		}) {
			return false
		}
		if closed {
			return true
		}
		if !elem() {
			return false
		}
	}
}

// skipAny consumes one value of any size: an object or array a member or
// element at a time (a debug bundle's payloads can be as large as its
// events), anything else whole.
func (r *rawStream) skipAny(depth int) bool {
	switch r.peekKind() {
	case '{':
		return depth < maxRawDepth && r.members(true, func(string) bool { return r.skipAny(depth + 1) })
	case '[':
		return depth < maxRawDepth && r.elements(func() bool { return r.skipAny(depth + 1) })
	}
	return r.skipValue(maxRawWindow, nil)
}

func (r *rawStream) peekKind() byte {
	var k byte
	r.step(func(s *rawScan) bool {
		s.ws()
		k = s.peek()
		return k != 0
	})
	return k
}

// readRawDocument reads a file holding one JSON object, as readValues
// would; errRawGaveUp means it read nothing it kept.
func readRawDocument(in io.Reader, c *readCtx) error {
	return rawDocument(&rawStream{r: in, need: rawLookahead}, c)
}

// readRawAsIs is readRawDocument over a document's bytes as they are, not
// clamped: it gives up on anything the clamp would change (a string longer
// than maxString or a number longer than maxBareToken; the scanner refuses
// surrogate escapes, NaN and Infinity), so that what it reads is what it
// would have read through the clamp.
func readRawAsIs(in io.Reader, c *readCtx) error {
	return rawDocument(&rawStream{r: in, need: rawLookahead, s: rawScan{asIs: true}}, c)
}

func rawDocument(r *rawStream, c *readCtx) error {
	r.spill = c.spill
	var (
		d        document
		w        warnList
		member   []byte
		streamed []string
	)
	opts := decodeOptions(&w)
	ok := r.members(false, func(key string) bool {
		f := documentPlan.field(key)
		if f == nil { // the general decoder skips it too
			return r.skipAny(0)
		}
		if f.stream != nil {
			if slices.Contains(streamed, key) {
				return false // written twice: left to the token path
			}
			streamed = append(streamed, key)
			return f.stream(r, unsafe.Add(unsafe.Pointer(&d), f.off), &w)
		}
		// A long member gives up: the document is not a bundle, and the
		// general decoder would scan its bytes a second time.
		return r.skipValue(maxRawMember, func(v []byte) bool {
			// The member alone, decoded into d as the general decoder
			// decodes it in the whole object: unmarshaling merges.
			member = append(append(append(append(member[:0], `{"`...), key...), `":`...), v...)
			member = append(member, '}')
			return json.Unmarshal(member, &d, opts) == nil
		})
	})
	// Only white space may follow: more values are readValues' to read.
	for ok && r.fill() {
		r.s.ws()
		if r.s.i < len(r.s.b) {
			ok = false
		} else if r.eof {
			break
		}
		r.s.b, r.s.i = r.s.b[:0], 0
	}
	if !ok || !r.eof {
		return errRawGaveUp
	}
	for _, k := range w.kinds {
		c.Warn(k)
	}
	return verdict(dispatch(&d, c), c)
}

// next moves to a container's next member or element: past the comma
// after the first, or past the closing bracket end (closed).
func (s *rawScan) next(end byte, first bool) (closed, ok bool) {
	if s.ws(); s.peek() == end {
		s.i++
		return true, true
	}
	return false, first || s.comma()
}

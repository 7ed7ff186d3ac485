package jsonscan

import (
	"bytes"
	"io"
)

// MaxWindow is the most lookahead a step may need (an event of a
// debug bundle; its buffer is twice that).
const MaxWindow = 8 << 20

// Lookahead is how many bytes the window holds past the scan position
// before a step (a key, an event, a member's value); a step that fails
// with the window's end in reach runs again with twice as many, up to
// MaxWindow. A variable so that tests can make it tiny.
var Lookahead = 256 << 10

// Stream is a window over a stream for the raw scanner.
type Stream struct {
	r    io.Reader
	Env  any    // the reader's, for the types that stream themselves (spillOf)
	buf  []byte // backing array of s.b
	s    Scanner
	eof  bool
	need int
}

// NewStream is a window on in; asIs: in is not clamped.
func NewStream(in io.Reader, asIs bool) *Stream {
	return &Stream{r: in, need: Lookahead, s: Scanner{AsIs: asIs}}
}

// HeldStream is a window on a whole document held as it is.
func HeldStream(doc []byte) *Stream {
	return &Stream{s: Scanner{B: doc, AsIs: true}, eof: true, need: Lookahead}
}

// End reports whether only white space is left, to the end of the input.
func (r *Stream) End() bool {
	for r.fill() {
		r.s.ws()
		if r.s.i < len(r.s.B) {
			return false
		} else if r.eof {
			return true
		}
		r.s.B, r.s.i = r.s.B[:0], 0
	}
	return false
}

// fill reads until the window holds need bytes past the scan position, or
// the input ends; a read error other than the end gives up.
func (r *Stream) fill() bool {
	s := &r.s
	for !r.eof && len(s.B)-s.i < r.need {
		if len(r.buf)-len(s.B) < r.need { // too little room at the end: move what is left to the front
			size := max(len(r.buf), 4*Lookahead, 2*r.need)
			if size > len(r.buf) {
				r.buf = make([]byte, size)
			}
			n := copy(r.buf, s.B[s.i:])
			s.B, s.i = r.buf[:n], 0
		}
		n, err := r.r.Read(r.buf[len(s.B):])
		s.B = r.buf[:len(s.B)+n]
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

// Step runs f at the scan position; when f fails before the input's end
// it may have been cut by the window, so it runs again over a larger one,
// up to limit. f must start afresh when run again.
func (r *Stream) Step(f func(s *Scanner) bool) bool { return r.stepUpTo(MaxWindow, f) }

func (r *Stream) stepUpTo(limit int, f func(s *Scanner) bool) bool {
	defer func() { r.need = Lookahead }()
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
func (r *Stream) open(c byte) bool {
	return r.Step(func(s *Scanner) bool {
		s.ws()
		if s.Peek() != c {
			return false
		}
		s.i++
		return true
	})
}

// Members reads an object member by member, calling member with the scan
// position at each value, which it must consume. Keys with escapes give up
// (they might spell one read), unless anyKey: the keys are then not used.
func (r *Stream) Members(anyKey bool, member func(key string) bool) bool {
	if !r.open('{') {
		return false
	}
	for first := true; ; first = false {
		var key string
		closed := false
		if !r.Step(func(s *Scanner) bool {
			var ok bool
			if closed, ok = s.next('}', first); closed || !ok {
				return ok
			}
			start := s.i
			if s.Peek() != '"' || !s.skipString() {
				return false
			}
			name := s.B[start+1 : s.i-1]
			if !anyKey && bytes.IndexByte(name, '\\') >= 0 {
				return false
			}
			if s.ws(); s.Peek() != ':' {
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

// SkipValue consumes one value of up to limit bytes, handing its bytes to
// use (valid until the next step).
func (r *Stream) SkipValue(limit int, use func(v []byte) bool) bool {
	var v []byte
	return r.stepUpTo(limit, func(s *Scanner) bool {
		start := s.i
		if !s.Skip() || s.i-start > limit {
			return false
		}
		v = s.B[start:s.i]
		return true
	}) && (use == nil || use(v))
}

// Elements reads an array element by element, calling elem with the scan
// position at each, which it must consume.
func (r *Stream) Elements(elem func() bool) bool {
	if !r.open('[') {
		return false
	}
	for first := true; ; first = false {
		closed := false
		if !r.Step(func(s *Scanner) bool {
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

// SkipAny consumes one value of any size: an object or array a member or
// element at a time (a debug bundle's payloads can be as large as its
// events), anything else whole.
func (r *Stream) SkipAny(depth int) bool {
	switch r.PeekKind() {
	case '{':
		return depth < maxRawDepth && r.Members(true, func(string) bool { return r.SkipAny(depth + 1) })
	case '[':
		return depth < maxRawDepth && r.Elements(func() bool { return r.SkipAny(depth + 1) })
	}
	return r.SkipValue(MaxWindow, nil)
}

// PeekKind is the first byte of the next value (past white space), 0 if
// there is none in reach.
func (r *Stream) PeekKind() byte {
	var k byte
	r.Step(func(s *Scanner) bool {
		s.ws()
		k = s.Peek()
		return k != 0
	})
	return k
}

// next moves to a container's next member or element: past the comma
// after the first, or past the closing bracket end (closed).
func (s *Scanner) next(end byte, first bool) (closed, ok bool) {
	if s.ws(); s.Peek() == end {
		s.i++
		return true, true
	}
	return false, first || s.comma()
}

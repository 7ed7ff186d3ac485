package jsonscan

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"

	"github.com/agentstat/agentstat/logformat/clamp"
)

// The raw scanner's skipping of the values no reader reads: most of a
// transcript's bytes, validated as jsontext would and not decoded.

// Skip validates and skips one value of any kind.
func (s *Scanner) Skip() bool { return s.skipDepth(0) }

func (s *Scanner) skipDepth(depth int) bool {
	switch c := s.Peek(); {
	case c == '"':
		return s.skipString()
	case c == '{' || c == '[':
		if depth == maxRawDepth {
			return false
		}
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		s.i++
		for first := true; ; first = false {
			if s.ws(); s.Peek() == end {
				s.i++
				return true
			}
			if !first && !s.comma() {
				return false
			}
			if c == '{' {
				if s.Peek() != '"' || !s.skipString() {
					return false
				}
				if s.ws(); s.Peek() != ':' {
					return false
				}
				s.i++
				s.ws()
			}
			if !s.skipDepth(depth + 1) {
				return false
			}
		}
	case c == '-' || '0' <= c && c <= '9':
		return s.skipNumber()
	}
	return s.literal("true") || s.literal("false") || s.Null()
}

// skipNumber consumes a number in JSON's grammar: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?
func (s *Scanner) skipNumber() bool {
	b, i := s.B, s.i
	digits := func() bool {
		j := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	if !s.delimited(i) || s.AsIs && i-s.i > clamp.MaxBareToken {
		return false
	}
	s.i = i
	return true
}

// Quoted consumes a string as skipString does, and is its bytes, quotes
// and escapes included (valid until the scanner moves on).
func (s *Scanner) Quoted() ([]byte, bool) {
	start := s.i
	ok := s.skipString()
	return s.B[start:s.i], ok
}

// skipString validates and consumes a string (the scanner at its quote):
// escapes as JSON has them (none a surrogate half: those are left to
// jsontext), no control byte, UTF-8 only.
func (s *Scanner) skipString() bool {
	b, i := s.B, s.i+1
	for {
		// plainEnd, inline: a transcript's strings stop every twenty bytes
		// or so, and a call at each stop cost a tenth of the scan.
	plain:
		for ; i+8 <= len(b); i += 8 {
			w := binary.LittleEndian.Uint64(b[i:])
			q, s := w^(ones*'"'), w^(ones*'\\')
			if m := ((q-ones)&^q | (s-ones)&^s | (w-ones*0x20)&^w | w) & highs; m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break plain
			}
		}
		if i+8 > len(b) {
			i += plainEnd(b[i:])
		}
		if i >= len(b) {
			return false
		}
		switch c := b[i]; {
		case c == '"':
			if s.AsIs && i-s.i-1 > clamp.MaxString { // the clamp would cut it
				return false
			}
			s.i = i + 1
			return true
		case c == '\\':
			n := escapeLen(b[i:])
			if n == 0 {
				return false
			}
			i += n
		case c < 0x20:
			return false
		default: // a run of non-ASCII bytes: whole characters, or not UTF-8
			n, ok := utf8Run(b[i:])
			if !ok {
				return false
			}
			i += n
		}
	}
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plainEnd is the index of the first byte of b that a string cannot hold
// as it is: a quote, a backslash, a control byte or a non-ASCII byte
// (len(b) if none), found eight bytes at a time.
func plainEnd(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		q, s := w^(ones*'"'), w^(ones*'\\')
		// A byte's high bit in (x-ones)&^x marks a zero byte of x, and in
		// (w-ones*0x20)&^w a byte below 0x20; the lowest mark is exact.
		if m := ((q-ones)&^q | (s-ones)&^s | (w-ones*0x20)&^w | w) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
			return i
		}
	}
	return i
}

// utf8Run is the length of the run of non-ASCII bytes b starts with,
// false if they are not UTF-8.
func utf8Run(b []byte) (int, bool) {
	n := asciiStart(b)
	return n, utf8.Valid(b[:n])
}

// asciiStart is the index of the first ASCII byte of b (len(b) if none).
func asciiStart(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if m := ^binary.LittleEndian.Uint64(b[i:]) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if b[i] < 0x80 {
			return i
		}
	}
	return i
}

// escapeLen is the length of the escape b starts with (at its backslash),
// 0 if it is not one skipString takes.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(b) < 6 {
			return 0
		}
		if v, ok := clamp.Hex4(b[2:6]); !ok || 0xD800 <= v && v < 0xE000 {
			return 0
		}
		return 6
	}
	return 0
}

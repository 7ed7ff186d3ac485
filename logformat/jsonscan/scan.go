package jsonscan

import (
	"bytes"
	"math"
	"strconv"
	"unsafe"

	"github.com/agentstat/agentstat/logformat/clamp"
)

// Scanner reads JSON from B: a line, a document, or a window on a stream.
type Scanner struct {
	B     []byte
	AsIs  bool  // B is not clamped: a string or number the clamp would change gives up
	Arena Arena // where what pointers point to goes; nil: the heap

	i     int
	more  bool // B is a window on a stream that goes on past its end
	depth int  // objects open (Plan.Read)
}

// maxRawDepth bounds the raw scanner's nesting (jsontext allows 10,000):
// deeper lines take the reflective path.
const maxRawDepth = 64

// Whole reads what s holds, one object and nothing after it but space,
// into p by plan.
func (s *Scanner) Whole(plan *Plan, p unsafe.Pointer, w *WarnList) bool {
	if s.ws(); !plan.Read(s, p, w) {
		return false
	}
	s.ws()
	return s.i == len(s.B)
}

// Each reads an array of objects one at a time (DecodeEach's raw
// twin): reset(false) for null, reset(true) then add for each object of
// an array, after fill read it; any other kind gives up.
func Each[T any](s *Scanner, reset func(array bool), fill func(*T) bool, add func(*T)) bool {
	if s.Null() {
		reset(false)
		return true
	}
	if s.Peek() != '[' {
		return false
	}
	reset(true)
	return s.Elements(func() bool {
		var e T
		if s.Peek() != '{' || !fill(&e) {
			return false
		}
		add(&e)
		return true
	})
}

// Elements reads an array (the scanner at its '['), calling elem with the
// scanner at each element, which elem must consume.
func (s *Scanner) Elements(elem func() bool) bool {
	if s.Peek() != '[' {
		return false
	}
	s.i++
	for first := true; ; first = false {
		if s.ws(); s.Peek() == ']' {
			s.i++
			return true
		}
		if !first && !s.comma() {
			return false
		}
		if !elem() {
			return false
		}
	}
}

// anyStr decodes a value into p as decodeStr does.
func (s *Scanner) anyStr(p *Str, w *WarnList) bool {
	switch c := s.Peek(); c {
	case '{', '[':
		w.Warn(WarnTypeMismatch)
		return s.Skip()
	case '"', 'n':
		return s.Str(p)
	case 't', 'f':
		word := "true"
		if c == 'f' {
			word = "false"
		}
		if !s.literal(word) {
			return false
		}
		*p = Str{V: word, Set: true}
		return true
	}
	start := s.i
	if !s.skipNumber() {
		return false
	}
	*p = Str{V: string(s.B[start:s.i]), Set: true}
	return true
}

// members reads an object (the scanner at its '{'), calling member with
// each member's name and the scanner at its value, which it must consume.
func (s *Scanner) members(member func(name []byte) bool) bool {
	if s.Peek() != '{' {
		return false
	}
	s.i++
	for first := true; ; first = false {
		if s.ws(); s.Peek() == '}' {
			s.i++
			return true
		}
		if !first && !s.comma() {
			return false
		}
		name, ok := s.memberName()
		if !ok || !member(name) {
			return false
		}
	}
}

// memberName reads a member's name and its colon (the scanner at the
// name's quote), leaving the scanner at the value; an escaped name (rare,
// left to jsontext) gives up.
func (s *Scanner) memberName() ([]byte, bool) {
	start := s.i
	if s.Peek() != '"' {
		return nil, false
	}
	// A name is a few ASCII letters: a byte at a time costs less than
	// skipString's words and a search for a backslash after it.
	i := start + 1
	for i < len(s.B) && s.B[i] != '"' && s.B[i] != '\\' && 0x20 <= s.B[i] && s.B[i] < 0x80 {
		i++
	}
	if i < len(s.B) && s.B[i] == '"' && !(s.AsIs && i-start-1 > clamp.MaxString) {
		s.i = i + 1
	} else if !s.skipString() || bytes.IndexByte(s.B[start+1:s.i-1], '\\') >= 0 {
		return nil, false
	}
	name := s.B[start+1 : s.i-1]
	if s.ws(); s.Peek() != ':' {
		return nil, false
	}
	s.i++
	s.ws()
	return name, true
}

// comma consumes the comma between two members or elements.
func (s *Scanner) comma() bool {
	if s.Peek() != ',' {
		return false
	}
	s.i++
	s.ws()
	return true
}

// Peek is the byte at the scan position, 0 at the end.
func (s *Scanner) Peek() byte {
	if s.i < len(s.B) {
		return s.B[s.i]
	}
	return 0
}

func (s *Scanner) ws() {
	for s.i < len(s.B) {
		switch s.B[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

// Null consumes a null, reporting whether there was one.
func (s *Scanner) Null() bool {
	if bytes.HasPrefix(s.B[s.i:], []byte("null")) && s.delimited(s.i+4) {
		s.i += 4
		return true
	}
	return false
}

// delimited reports whether a literal or number may end at j: JSON allows
// only punctuation or white space (or the end) after one.
func (s *Scanner) delimited(j int) bool {
	if j == len(s.B) {
		return !s.more // a number cut by a window's end may go on
	}
	switch s.B[j] {
	case ',', '}', ']', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// Str decodes a string into p as decodeStr does; null leaves p alone. Any
// other kind gives up.
func (s *Scanner) Str(p *Str) bool {
	if s.Null() {
		return true
	}
	start := s.i
	if s.Peek() != '"' || !s.skipString() {
		return false
	}
	v, err := unquote(s.B[start:s.i])
	*p = Str{V: string(v), Set: true}
	return err == nil
}

// plain is the content of the string just skipped, from start, if it has
// no escape: what unquote would give.
func (s *Scanner) plain(start int) ([]byte, bool) {
	v := s.B[start+1 : s.i-1]
	return v, bytes.IndexByte(v, '\\') < 0
}

// Prefix reads a string's first n bytes as ReadStringPrefix does.
func (s *Scanner) Prefix(n int) (string, bool) {
	start := s.i
	if !s.skipString() {
		return "", false
	}
	v, err := stringPrefix(s.B[start:s.i], n)
	return v, err == nil
}

func (s *Scanner) bool(p *bool) bool {
	switch {
	case s.literal("true"):
		*p = true
	case s.literal("false"), s.Null():
		*p = false
	default:
		return false
	}
	return true
}

func (s *Scanner) boolPtr(p **bool) bool {
	if s.Null() {
		*p = nil
		return true
	}
	if *p == nil {
		*p = new(bool)
	}
	return s.bool(*p)
}

func (s *Scanner) literal(word string) bool {
	if bytes.HasPrefix(s.B[s.i:], []byte(word)) && s.delimited(s.i+len(word)) {
		s.i += len(word)
		return true
	}
	return false
}

// num decodes a number as DecodeNum does; a numeric string gives up.
func (s *Scanner) num(p *Num, w *WarnList) bool {
	if s.Null() {
		return true
	}
	start := s.i
	if !s.skipNumber() {
		return false
	}
	f, err := strconv.ParseFloat(string(s.B[start:s.i]), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		w.Warn(WarnBadNumber)
		return true
	}
	*p = Num{V: f, Set: true}
	return true
}

// time decodes a timestamp string as decodeTime does; null leaves p alone,
// and any other kind gives up.
func (s *Scanner) time(p *Time, w *WarnList) bool {
	if s.Null() {
		return true
	}
	start := s.i
	if s.Peek() != '"' || !s.skipString() {
		return false
	}
	if v, ok := s.plain(start); ok {
		timeText(string(v), p, w) // on the stack: timeText keeps no part of it
		return true
	}
	s.i = start
	var v Str
	if !s.Str(&v) {
		return false
	}
	timeText(v.V, p, w)
	return true
}

// anyTime decodes a timestamp as decodeTime does; a Jackson array gives up.
func (s *Scanner) anyTime(p *Time, w *WarnList) bool {
	switch c := s.Peek(); c {
	case '[':
		return false
	case '{':
		w.Warn(WarnBadTimestamp)
		return s.Skip()
	case '"', 'n':
		return s.time(p, w)
	case 't', 'f':
		if !s.literal("true") && !s.literal("false") {
			return false
		}
		w.Warn(WarnBadTimestamp)
		return true
	}
	start := s.i
	if !s.skipNumber() {
		return false
	}
	timeNumber(string(s.B[start:s.i]), p, w)
	return true
}

// numMap reads an object of numbers into p as the general decoder does:
// null clears it, an object makes it (empty, not nil, for {}); an escaped
// or repeated name, or any other kind, gives up.
func (s *Scanner) numMap(p *map[string]Num, w *WarnList) bool {
	if s.Null() {
		*p = nil
		return true
	}
	if s.Peek() != '{' || *p != nil {
		return false
	}
	m := map[string]Num{}
	ok := s.members(func(name []byte) bool {
		if _, dup := m[string(name)]; dup {
			return false
		}
		var n Num
		if !s.num(&n, w) {
			return false
		}
		m[string(name)] = n
		return true
	})
	if ok {
		*p = m
	}
	return ok
}

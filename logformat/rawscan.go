package logformat

import (
	"bytes"
	"math"
	"strconv"
	"unsafe"

	"github.com/agentstat/agentstat/logformat/clamp"
)

// The raw scanner reads a line or a small document straight from its
// bytes into the document the reflective decoder fills, by plans made
// from the same struct tags (rawplan.go), with the same warnings. Half a
// transcript's bytes are payload text the metrics never read, which
// jsontext validates a character at a time; the scanner skips it with a
// test of eight bytes at a time, and reads a transcript about three times
// as fast as the reflective decoder (BenchmarkDecodeLineRaw). It accepts
// only what it is sure of: at any doubt (a value of an unexpected kind, a
// name written twice, a surrogate escape, deep nesting, a byte JSON
// forbids) it gives up, and the reflective decoder reads the line or
// document. What it accepts, jsontext accepts too: differential tests and
// fuzz targets hold the two equal. It can go when a general JSON decoder
// skips unread values at its speed.

// rawScan reads JSON from b: a line, a document, or a window on a stream.
type rawScan struct {
	b     []byte
	i     int
	more  bool       // b is a window on a stream that goes on past its end
	asIs  bool       // b is not clamped: a string or number the clamp would change gives up
	arena *lineArena // where messages and blocks go; nil: the heap
	depth int        // objects open (rawStruct.read)
}

// maxRawDepth bounds the raw scanner's nesting (jsontext allows 10,000):
// deeper lines take the reflective path.
const maxRawDepth = 64

// decodeLineRaw decodes line into d, reporting false when it gives up
// (d and w are then dirty).
func decodeLineRaw(line []byte, d *document, w *warnList, a *lineArena) bool {
	return decodeRaw(rawScan{b: line, arena: a}, d, w)
}

// decodeRaw is decodeLineRaw with s set up by the caller.
func decodeRaw(s rawScan, d *document, w *warnList) bool {
	w.kinds = w.kinds[:0]
	return s.whole(documentPlan, unsafe.Pointer(d), w)
}

// whole reads what s holds, one object and nothing after it but space,
// into p by plan.
func (s *rawScan) whole(plan *rawStruct, p unsafe.Pointer, w *warnList) bool {
	if s.ws(); !plan.read(s, p, w) {
		return false
	}
	s.ws()
	return s.i == len(s.b)
}

// rawEach reads an array of objects one at a time (decodeEach's raw
// twin): reset(false) for null, reset(true) then add for each object of
// an array, after fill read it; any other kind gives up.
func rawEach[T any](s *rawScan, reset func(array bool), fill func(*T) bool, add func(*T)) bool {
	if s.null() {
		reset(false)
		return true
	}
	if s.peek() != '[' {
		return false
	}
	reset(true)
	return s.elements(func() bool {
		var e T
		if s.peek() != '{' || !fill(&e) {
			return false
		}
		add(&e)
		return true
	})
}

// elements reads an array (the scanner at its '['), calling elem with the
// scanner at each element, which elem must consume.
func (s *rawScan) elements(elem func() bool) bool {
	if s.peek() != '[' {
		return false
	}
	s.i++
	for first := true; ; first = false {
		if s.ws(); s.peek() == ']' {
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
func (s *rawScan) anyStr(p *Str, w *warnList) bool {
	switch c := s.peek(); c {
	case '{', '[':
		w.Warn(WarnTypeMismatch)
		return s.skip()
	case '"', 'n':
		return s.str(p)
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
	*p = Str{V: string(s.b[start:s.i]), Set: true}
	return true
}

// members reads an object (the scanner at its '{'), calling member with
// each member's name and the scanner at its value, which it must consume.
func (s *rawScan) members(member func(name []byte) bool) bool {
	if s.peek() != '{' {
		return false
	}
	s.i++
	for first := true; ; first = false {
		if s.ws(); s.peek() == '}' {
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
func (s *rawScan) memberName() ([]byte, bool) {
	start := s.i
	if s.peek() != '"' {
		return nil, false
	}
	// A name is a few ASCII letters: a byte at a time costs less than
	// skipString's words and a search for a backslash after it.
	i := start + 1
	for i < len(s.b) && s.b[i] != '"' && s.b[i] != '\\' && 0x20 <= s.b[i] && s.b[i] < 0x80 {
		i++
	}
	if i < len(s.b) && s.b[i] == '"' && !(s.asIs && i-start-1 > clamp.MaxString) {
		s.i = i + 1
	} else if !s.skipString() || bytes.IndexByte(s.b[start+1:s.i-1], '\\') >= 0 {
		return nil, false
	}
	name := s.b[start+1 : s.i-1]
	if s.ws(); s.peek() != ':' {
		return nil, false
	}
	s.i++
	s.ws()
	return name, true
}

// comma consumes the comma between two members or elements.
func (s *rawScan) comma() bool {
	if s.peek() != ',' {
		return false
	}
	s.i++
	s.ws()
	return true
}

func (s *rawScan) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *rawScan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

// null consumes a null, reporting whether there was one.
func (s *rawScan) null() bool {
	if bytes.HasPrefix(s.b[s.i:], []byte("null")) && s.delimited(s.i+4) {
		s.i += 4
		return true
	}
	return false
}

// delimited reports whether a literal or number may end at j: JSON allows
// only punctuation or white space (or the end) after one.
func (s *rawScan) delimited(j int) bool {
	if j == len(s.b) {
		return !s.more // a number cut by a window's end may go on
	}
	switch s.b[j] {
	case ',', '}', ']', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// str decodes a string into p as decodeStr does; null leaves p alone. Any
// other kind gives up.
func (s *rawScan) str(p *Str) bool {
	if s.null() {
		return true
	}
	start := s.i
	if s.peek() != '"' || !s.skipString() {
		return false
	}
	v, err := unquote(s.b[start:s.i])
	*p = Str{V: string(v), Set: true}
	return err == nil
}

// plain is the content of the string just skipped, from start, if it has
// no escape: what unquote would give.
func (s *rawScan) plain(start int) ([]byte, bool) {
	v := s.b[start+1 : s.i-1]
	return v, bytes.IndexByte(v, '\\') < 0
}

// prefix reads a string's first n bytes as readStringPrefix does.
func (s *rawScan) prefix(n int) (string, bool) {
	start := s.i
	if !s.skipString() {
		return "", false
	}
	v, err := stringPrefix(s.b[start:s.i], n)
	return v, err == nil
}

func (s *rawScan) bool(p *bool) bool {
	switch {
	case s.literal("true"):
		*p = true
	case s.literal("false"), s.null():
		*p = false
	default:
		return false
	}
	return true
}

func (s *rawScan) boolPtr(p **bool) bool {
	if s.null() {
		*p = nil
		return true
	}
	if *p == nil {
		*p = new(bool)
	}
	return s.bool(*p)
}

func (s *rawScan) literal(word string) bool {
	if bytes.HasPrefix(s.b[s.i:], []byte(word)) && s.delimited(s.i+len(word)) {
		s.i += len(word)
		return true
	}
	return false
}

// num decodes a number as decodeNum does; a numeric string gives up.
func (s *rawScan) num(p *Num, w *warnList) bool {
	if s.null() {
		return true
	}
	start := s.i
	if !s.skipNumber() {
		return false
	}
	f, err := strconv.ParseFloat(string(s.b[start:s.i]), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		w.Warn(WarnBadNumber)
		return true
	}
	*p = Num{V: f, Set: true}
	return true
}

// time decodes a timestamp string as decodeTime does; null leaves p alone,
// and any other kind gives up.
func (s *rawScan) time(p *Time, w *warnList) bool {
	if s.null() {
		return true
	}
	start := s.i
	if s.peek() != '"' || !s.skipString() {
		return false
	}
	if v, ok := s.plain(start); ok {
		timeText(string(v), p, w) // on the stack: timeText keeps no part of it
		return true
	}
	s.i = start
	var v Str
	if !s.str(&v) {
		return false
	}
	timeText(v.V, p, w)
	return true
}

// anyTime decodes a timestamp as decodeTime does; a Jackson array gives up.
func (s *rawScan) anyTime(p *Time, w *warnList) bool {
	switch c := s.peek(); c {
	case '[':
		return false
	case '{':
		w.Warn(WarnBadTimestamp)
		return s.skip()
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
	timeNumber(string(s.b[start:s.i]), p, w)
	return true
}

// numMap reads an object of numbers into p as the general decoder does:
// null clears it, an object makes it (empty, not nil, for {}); an escaped
// or repeated name, or any other kind, gives up.
func (s *rawScan) numMap(p *map[string]Num, w *warnList) bool {
	if s.null() {
		*p = nil
		return true
	}
	if s.peek() != '{' || *p != nil {
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

package logformat

import (
	"bytes"
	"math"
	"strconv"
)

// The raw scanner's primitives, shared by every format's raw reader:
// objects, arrays, strings, numbers and literals read straight from a
// line's bytes, and payload values skipped. See claudecode_raw.go for why
// it exists.

// rawSlice decodes an array of objects into a slice as the general decoder
// does: null clears it, an array makes it (empty, not nil, for []); any
// other kind, or an element that is not an object, gives up.
func rawSlice[T any](s *rawScan, p *[]T, fill func(*T) bool) bool {
	if s.null() {
		*p = nil
		return true
	}
	if s.peek() != '[' {
		return false
	}
	*p = make([]T, 0, 4)
	return s.elements(func() bool {
		if s.peek() != '{' {
			return false
		}
		*p = append(*p, *new(T))
		return fill(&(*p)[len(*p)-1])
	})
}

// rawEach is rawSlice for a reader that keeps each element as it needs it
// (decodeEach's raw twin): reset(false) for null, reset(true) then add for
// each object of an array, after fill read it; any other kind gives up.
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

// strFlex decodes a value into p as decodeStr does: a string, a number as
// written, a boolean as true or false; null leaves p alone. An object or
// an array (which decodeStr warns about) gives up.
func (s *rawScan) strFlex(p *Str) bool {
	switch c := s.peek(); {
	case c == '"' || c == 'n':
		return s.str(p)
	case c == 't' || c == 'f':
		b := c == 't'
		if !s.literal(strconv.FormatBool(b)) {
			return false
		}
		*p = Str{V: strconv.FormatBool(b), Set: true}
		return true
	case c == '-' || '0' <= c && c <= '9':
		start := s.i
		if !s.skipNumber() {
			return false
		}
		*p = Str{V: string(s.b[start:s.i]), Set: true}
		return true
	}
	return false
}

// rawPtr decodes a pointer-to-struct field as fastPtr does: null clears
// it, an object fills it; any other kind gives up.
func rawPtr[T any](s *rawScan, p **T, fill func(*T) bool) bool {
	if s.null() {
		*p = nil
		return true
	}
	if s.peek() != '{' {
		return false
	}
	if *p == nil {
		*p = new(T)
	}
	return fill(*p)
}

// object reads an object as objectFields does: field is called, with the
// scanner at the value, for each key some decoder reads (fieldKeys) and
// must consume the value; every other value is skipped. A key that field
// is given twice gives up unless dupOK.
func (s *rawScan) object(dupOK bool, field func(key string) bool) bool {
	var seen seenKeys
	return s.members(func(name []byte) bool {
		key, ok := fieldKey(name)
		if !ok {
			return s.skip()
		}
		if !dupOK && !seen.first(key) {
			return false
		}
		return field(key)
	})
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
	if i < len(s.b) && s.b[i] == '"' && !(s.asIs && i-start-1 > maxString) {
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

// toolInput reads a tool call's input object (Claude Code's input, Gemini
// CLI's args): the keys that name what the call was given.
func (s *rawScan) toolInput(dst **claudeToolInput) bool {
	return rawPtr(s, dst, func(in *claudeToolInput) bool {
		return s.object(false, func(key string) bool {
			var p *inputText
			switch key {
			case "subagent_type":
				return s.str(&in.SubagentType)
			case "command":
				p = &in.Command
			case "file_path":
				p = &in.FilePath
			case "absolute_path":
				p = &in.AbsolutePath
			case "notebook_path":
				p = &in.NotebookPath
			case "path":
				p = &in.Path
			case "pattern":
				p = &in.Pattern
			case "url":
				p = &in.URL
			case "query":
				p = &in.Query
			case "description":
				p = &in.Description
			default:
				return s.skip()
			}
			if s.peek() != '"' {
				return s.str(&p.Str)
			}
			text, ok := s.prefix(inputClip + 1)
			p.Str = Str{V: text, Set: true}
			return ok
		})
	})
}

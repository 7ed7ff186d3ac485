package logformat

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
	"unicode/utf8"

	simdutf8 "github.com/segmentio/asm/utf8"
)

// Half a transcript's bytes are payload text the metrics never read, and
// jsontext skips it at 400-500 MB/s, decoding each character of Chinese
// text through utf8.DecodeRune. decodeLineRaw reads a plain Claude Code
// or Codex line straight from its bytes: the same fields as the general
// decoder, into the same document,
// with the same warnings, skipping payload values with a validator that
// tests eight bytes at a time. It accepts only what it is sure of: any
// doubt (a value of an unexpected kind, a surrogate escape, deep nesting, a
// byte JSON forbids) and it gives up, and the line takes the reflective
// path. What it accepts, jsontext would accept too: a differential test and
// a fuzz target hold the paths equal. It exists because it reads the full
// set 1.7 times as fast; it can go when a general JSON decoder skips
// unread values at its speed.

// rawScan reads one line.
type rawScan struct {
	b     []byte
	i     int
	more  bool       // b is a window on a stream that goes on past its end
	asIs  bool       // b is not clamped: a string or number the clamp would change gives up
	arena *lineArena // where messages and blocks go; nil: the heap

	// A message's texts are read only for a user's line (a prompt): once
	// a line's type says it is another's, they are skipped (a second type
	// gives up, as any repeated member of a line does).
	noTexts bool
}

// lineArena holds the messages and content blocks the raw path decodes
// for a chunk's lines, in slabs reused chunk after chunk: a new message
// and a block slice grown from nothing, for each of a transcript's lines,
// were half the bytes the raw path allocated. The documents that point
// into it must be done with before reset (see lineChunk.reset).
type lineArena struct {
	msgs   []claudeMessage
	blocks []claudeBlock
	// The last session id and model read: a transcript's lines repeat
	// them, and each was a string allocated per line.
	session, model, cwd, branch string
}

func (a *lineArena) reset() {
	clear(a.msgs)
	clear(a.blocks)
	a.msgs, a.blocks = a.msgs[:0], a.blocks[:0]
}

// message is a zero message of the arena.
func (a *lineArena) message() *claudeMessage {
	if len(a.msgs) == cap(a.msgs) {
		// A new slab, not a copy: earlier lines point into the last one.
		a.msgs = make([]claudeMessage, 0, max(256, 2*cap(a.msgs)))
	}
	a.msgs = a.msgs[:len(a.msgs)+1]
	return &a.msgs[len(a.msgs)-1]
}

// maxRawDepth bounds the skipper's nesting (jsontext allows 10,000): deeper
// lines take the reflective path.
const maxRawDepth = 64

// decodeLineRaw decodes line into d, reporting false when it gives up
// (d and w are then dirty).
func decodeLineRaw(line []byte, d *document, w *warnList, a *lineArena) bool {
	return decodeRaw(rawScan{b: line, arena: a}, d, w)
}

// decodeRaw is decodeLineRaw with s set up by the caller.
func decodeRaw(s rawScan, d *document, w *warnList) bool {
	w.kinds = w.kinds[:0]
	if s.ws(); !s.object(false, func(key string) bool { return s.topField(key, d, w) }) {
		return false
	}
	s.ws()
	return s.i == len(s.b)
}

func (s *rawScan) topField(key string, d *document, w *warnList) bool {
	switch key {
	case "type":
		return s.known(&d.Type)
	case "sessionId":
		if s.arena != nil {
			return s.repeated(&d.SessionIDCamel, &s.arena.session)
		}
		return s.str(&d.SessionIDCamel)
	case "uuid":
		return s.str(&d.UUID)
	case "leafUuid":
		return s.str(&d.LeafUUID)
	case "requestId":
		return s.str(&d.RequestID)
	case "agentId":
		return s.str(&d.AgentID)
	case "subtype":
		return s.known(&d.Subtype)
	case "cwd":
		if s.arena != nil {
			return s.repeated(&d.Cwd, &s.arena.cwd)
		}
		return s.str(&d.Cwd)
	case "gitBranch":
		if s.arena != nil {
			return s.repeated(&d.GitBranch, &s.arena.branch)
		}
		return s.str(&d.GitBranch)
	case "data":
		if s.peek() != '{' {
			return s.skip()
		}
		return rawPtr(s, &d.Data.P, func(p *claudeProgress) bool { return s.progress(p, w) })
	case "timestamp":
		return s.time(&d.Timestamp, w)
	case "isSidechain":
		return s.boolPtr(&d.IsSidechain)
	case "isApiErrorMessage":
		return s.boolPtr(&d.IsAPIError)
	case "isMeta":
		return s.bool(&d.IsMeta)
	case "toolUseResult":
		return s.toolUseResult(&d.ToolUseResult, w)
	case "message":
		if s.arena != nil && d.Message == nil && s.peek() == '{' {
			d.Message = s.arena.message()
		}
		s.noTexts = d.Type.Set && d.Type.V != "user"
		ok := rawPtr(s, &d.Message, func(m *claudeMessage) bool { return s.message(m, w) })
		s.noTexts = false
		return ok
	case "payload": // Codex: an envelope line
		return rawPtr(s, &d.Payload, func(it *codexItem) bool { return s.codexItem(it, w) })
	case "id": // and a pre-envelope line's, a document's (a number in planexec's)
		return s.strFlex(&d.ID)
	case "instructions":
		return s.str(&d.Instructions)
	case "name":
		return s.known(&d.Name)
	case "call_id":
		return s.str(&d.CallID)
	case "role":
		return s.known(&d.Role)
	case "output":
		return s.codexOutput(&d.Output, w)
	case "resourceSpans": // OTel: an OTLP/JSON trace export
		return s.resourceSpans(&d.ResourceSpans, w)
	}
	if documentKeys[key] {
		if ok, read := s.sessionField(key, d, w); read { // a session document (STD-001)
			return ok
		}
		if ok, read := s.planexecField(key, d, w); read { // a PlanExecutionRecord
			return ok
		}
		if ok, read := s.geminiField(key, d, w); read { // a Gemini CLI session, or one of its lines
			return ok
		}
		return false // a field of another format
	}
	return s.skip()
}

// progress reads a progress entry's data: a subagent's message, nested.
func (s *rawScan) progress(p *claudeProgress, w *warnList) bool {
	return s.object(false, func(key string) bool {
		switch key {
		case "type":
			return s.known(&p.Type)
		case "agentId":
			return s.str(&p.AgentID)
		case "message":
			return rawPtr(s, &p.Message, func(n *claudeNested) bool {
				return s.object(false, func(key string) bool {
					switch key {
					case "type":
						return s.known(&n.Type)
					case "uuid":
						return s.str(&n.UUID)
					case "timestamp":
						return s.time(&n.Timestamp, w)
					case "requestId":
						return s.str(&n.RequestID)
					case "message":
						noTexts := s.noTexts
						s.noTexts = n.Type.Set && n.Type.V != "user"
						ok := rawPtr(s, &n.Message, func(m *claudeMessage) bool { return s.message(m, w) })
						s.noTexts = noTexts
						return ok
					}
					return s.skip()
				})
			})
		}
		return s.skip()
	})
}

// content reads a message's content as claudeContent.decodeFlex does: text
// (clipped), blocks or null; any other kind gives up.
func (s *rawScan) content(c *claudeContent, w *warnList) bool {
	switch s.peek() {
	case '[':
		return s.blocks(&c.Blocks, w)
	case '"':
		if s.noTexts {
			return s.skipString()
		}
		text, ok := s.prefix(promptClip + 1)
		c.Text = clipString(text, promptClip)
		return ok
	}
	return s.null()
}

func (s *rawScan) message(m *claudeMessage, w *warnList) bool {
	return s.object(false, func(key string) bool {
		switch key {
		case "id":
			return s.str(&m.ID)
		case "model":
			if s.arena != nil {
				return s.repeated(&m.Model, &s.arena.model)
			}
			return s.str(&m.Model)
		case "role":
			return s.known(&m.Role)
		case "content":
			return s.content(&m.Content, w)
		case "usage":
			return rawPtr(s, &m.Usage, func(u *claudeUsageField) bool {
				return s.object(false, func(key string) bool {
					switch key {
					case "input_tokens":
						return s.num(&u.Input, w)
					case "output_tokens":
						return s.num(&u.Output, w)
					case "cache_creation_input_tokens":
						return s.num(&u.CacheCreation, w)
					case "cache_read_input_tokens":
						return s.num(&u.CacheRead, w)
					case "cache_creation":
						return rawPtr(s, &u.CacheTTL, func(c *claudeCacheCreation) bool {
							return s.object(false, func(key string) bool {
								if key == "ephemeral_1h_input_tokens" {
									return s.num(&c.OneHour, w)
								}
								return s.skip()
							})
						})
					}
					return s.skip()
				})
			})
		}
		return s.skip()
	})
}

func (s *rawScan) blocks(blocks *[]claudeBlock, w *warnList) bool {
	s.i++ // '['
	if *blocks == nil {
		*blocks = []claudeBlock{}
	}
	*blocks = (*blocks)[:0]
	start := 0 // where this line's blocks begin in the arena
	if s.arena != nil {
		if s.arena.blocks == nil {
			s.arena.blocks = make([]claudeBlock, 0, 1024)
		}
		start, *blocks = len(s.arena.blocks), s.arena.blocks
	}
	for first := true; ; first = false {
		if s.ws(); s.peek() == ']' {
			s.i++
			if s.arena != nil {
				s.arena.blocks = *blocks
				*blocks = (*blocks)[start:len(*blocks):len(*blocks)] // an append would not reach the next line's
			}
			return true
		}
		if !first && !s.comma() {
			return false
		}
		var b claudeBlock
		switch s.peek() {
		case '{':
			ok := s.object(false, func(key string) bool {
				switch key {
				case "type":
					return s.known(&b.Type)
				case "id":
					return s.str(&b.ID)
				case "name":
					return s.known(&b.Name)
				case "tool_use_id":
					return s.str(&b.ToolUseID)
				case "text":
					if s.peek() != '"' {
						return s.str(&b.Text.Str)
					}
					if s.noTexts {
						return s.skipString()
					}
					text, ok := s.prefix(promptClip + 1)
					b.Text.Str = Str{V: text, Set: true}
					return ok
				case "is_error":
					return s.boolPtr(&b.IsError)
				case "input":
					return s.toolInput(&b.Input)
				}
				return s.skip()
			})
			if !ok {
				return false
			}
		case 'n':
			if !s.null() {
				return false
			}
		default:
			return false
		}
		*blocks = append(*blocks, b)
	}
}

func (s *rawScan) toolUseResult(t *toolUseResultField, w *warnList) bool {
	switch s.peek() {
	case '"':
		text, ok := s.prefix(errorClip + 1)
		t.Text, t.Set = clipString(text, errorClip), true
		return ok
	case '{':
		var duration Num
		var interrupted *bool
		var agentID Str
		ok := s.object(true, func(key string) bool {
			switch key {
			case "durationMs":
				return s.num(&duration, w)
			case "interrupted":
				return s.boolPtr(&interrupted)
			case "agentId":
				return s.str(&agentID)
			}
			return s.skip()
		})
		t.DurationMS, t.Interrupted, t.AgentID, t.Set = duration, interrupted != nil && *interrupted, agentID.V, true
		return ok
	}
	return s.skip()
}

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
	if s.peek() != '{' {
		return false
	}
	s.i++
	var seen seenKeys
	for first := true; ; first = false {
		if s.ws(); s.peek() == '}' {
			s.i++
			return true
		}
		if !first && !s.comma() {
			return false
		}
		name, ok := s.memberName()
		if !ok {
			return false
		}
		key, ok := fieldKey(name)
		if !ok {
			if !s.skip() {
				return false
			}
			continue
		}
		if !dupOK && !seen.first(key) {
			return false
		}
		if !field(key) {
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

// known reads a string as str does, without allocating one of the type,
// role and tool names lines repeat (knownWord).
func (s *rawScan) known(p *Str) bool {
	start := s.i
	if s.peek() != '"' {
		return s.str(p)
	}
	if !s.skipString() {
		return false
	}
	if v, ok := s.plain(start); ok {
		if k := knownWord(v); k != "" {
			*p = Str{V: k, Set: true}
			return true
		}
	}
	s.i = start
	return s.str(p)
}

// knownWord is b as a constant, if it is a type, role or tool name common
// in lines of Claude Code and Codex; else "".
func knownWord(b []byte) string {
	switch string(b) {
	case "Bash":
		return "Bash"
	case "Read":
		return "Read"
	case "Edit":
		return "Edit"
	case "Write":
		return "Write"
	case "Grep":
		return "Grep"
	case "Glob":
		return "Glob"
	case "Task":
		return "Task"
	case "TodoWrite":
		return "TodoWrite"
	case "WebFetch":
		return "WebFetch"
	case "WebSearch":
		return "WebSearch"
	case "shell":
		return "shell"
	case "apply_patch":
		return "apply_patch"
	case "user":
		return "user"
	case "assistant":
		return "assistant"
	case "system":
		return "system"
	case "text":
		return "text"
	case "tool_use":
		return "tool_use"
	case "tool_result":
		return "tool_result"
	case "thinking":
		return "thinking"
	case "summary":
		return "summary"
	case "response_item":
		return "response_item"
	case "event_msg":
		return "event_msg"
	case "message":
		return "message"
	case "function_call":
		return "function_call"
	case "function_call_output":
		return "function_call_output"
	case "reasoning":
		return "reasoning"
	}
	return ""
}

// repeated reads a string as str does, reusing *last when it is the same
// (a session id, a model): a line's string would be allocated again.
func (s *rawScan) repeated(p *Str, last *string) bool {
	start := s.i
	if s.peek() != '"' {
		return s.str(p)
	}
	if !s.skipString() {
		return false
	}
	if v, ok := s.plain(start); ok && string(v) == *last {
		*p = Str{V: *last, Set: true}
		return true
	}
	s.i = start
	if !s.str(p) {
		return false
	}
	*last = p.V
	return true
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
	f, ok := smallInteger(s.b[start:s.i])
	if !ok {
		var err error
		f, err = strconv.ParseFloat(string(s.b[start:s.i]), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			w.Warn(WarnBadNumber)
			return true
		}
	}
	*p = Num{V: f, Set: true}
	return true
}

// smallInteger is the value of a JSON number that is an integer of up to
// 15 digits (exact in a float64, so what ParseFloat gives), ok false for
// any other: most numbers in logs are token counts and ids, and
// ParseFloat's string cost an allocation each.
func smallInteger(b []byte) (f float64, ok bool) {
	digits := b
	if len(b) > 0 && b[0] == '-' {
		digits = b[1:]
	}
	if len(digits) == 0 || len(digits) > 15 {
		return 0, false
	}
	var v int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if f = float64(v); len(digits) < len(b) {
		f = -f // -0 too, as ParseFloat gives
	}
	return f, true
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

// skip validates and skips one value of any kind.
func (s *rawScan) skip() bool { return s.skipDepth(0) }

func (s *rawScan) skipDepth(depth int) bool {
	switch c := s.peek(); {
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
			if s.ws(); s.peek() == end {
				s.i++
				return true
			}
			if !first && !s.comma() {
				return false
			}
			if c == '{' {
				if s.peek() != '"' || !s.skipString() {
					return false
				}
				if s.ws(); s.peek() != ':' {
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
	return s.literal("true") || s.literal("false") || s.null()
}

// skipNumber consumes a number in JSON's grammar: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?
func (s *rawScan) skipNumber() bool {
	b, i := s.b, s.i
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
	if !s.delimited(i) || s.asIs && i-s.i > maxBareToken {
		return false
	}
	s.i = i
	return true
}

// skipString validates and consumes a string (the scanner at its quote):
// escapes as JSON has them (none a surrogate half: those are left to
// jsontext), no control byte, UTF-8 only. Past its first 32 bytes a
// string is payload text, most of what is read: skipLong takes it on
// where it can.
func (s *rawScan) skipString() bool {
	b, i, start := s.b, s.i+1, s.i
text:
	for {
		if longStrings && i-start > longAfter && len(b)-i >= longRoom {
			end, ok, done := s.skipLong(i)
			if done {
				return ok
			}
			i = end
		}
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
			if longStrings && i+8-start > longAfter && len(b)-(i+8) >= longRoom {
				i += 8
				continue text // past longAfter plain bytes: a long string
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
			if s.asIs && i-s.i-1 > maxString { // the clamp would cut it
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

// utf8Run is the length of the run of non-ASCII characters b starts with,
// false if they are not UTF-8. Three-byte characters whose lead byte allows
// any continuation (CJK text) are checked inline; the rest as utf8 decodes them.
func utf8Run(b []byte) (int, bool) {
	i := 0
	for i+3 <= len(b) {
		// Two three-byte characters at once (CJK text): leads E1-EF but ED
		// (E0 and ED need a narrower second byte), then continuations.
		if i+8 <= len(b) {
			if w := binary.LittleEndian.Uint64(b[i:]); w&0xC0C0F0C0C0F0 == 0x8080E08080E0 {
				if l0, l1 := byte(w), byte(w>>24); l0&0x0F != 0 && l0 != 0xED && l1&0x0F != 0 && l1 != 0xED {
					i += 6
					continue
				}
			}
		}
		c := b[i]
		if c < utf8.RuneSelf {
			return i, true
		}
		if 0xE1 <= c && c <= 0xEF && c != 0xED && b[i+1]&0xC0 == 0x80 && b[i+2]&0xC0 == 0x80 {
			i += 3
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i, false
		}
		i += n
	}
	j := i + asciiStart(b[i:])
	return j, utf8.Valid(b[i:j])
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

// A string is taken on by skipLong once longAfter of its bytes are passed,
// if longRoom more are in the buffer: from 64 bytes on it is faster, 2-4 ns
// slower for strings of 33 to 64 (stopWindow's call, the check's).
const longAfter, longRoom = 32, 128

// skipLong goes on with a long string from i, a character's start, as
// skipString does: its quotes, backslashes and control bytes found 64
// bytes at a time (stopWindow), its text checked for UTF-8 all at once
// when its end is found (validText; escapes are ASCII, so the bytes
// between the quotes are UTF-8 if and only if the text is), and not at all
// if no byte from 0x80 was passed. done says it found the string's end
// (ok: a valid string, consumed) or a fault (not ok). Else fewer than 64
// bytes are left, and the string goes on from end, a character's start,
// valid up to there.
func (s *rawScan) skipLong(i int) (end int, ok, done bool) {
	b, start := s.b, i
	wide := false // a byte from 0x80 since start: the text is to be checked
windows:
	for {
		off, m, highs, before := stopWindow(b[i:])
		i += off
		wide = wide || before
		if m == 0 { // fewer than 64 bytes left: not into a character
			for k := 0; k < 3 && i > start && i < len(b) && b[i]&0xC0 == 0x80; k++ {
				i--
			}
			if wide && !validText(b[start:i]) {
				return 0, false, true
			}
			return i, true, false
		}
		for m != 0 {
			k := bits.TrailingZeros64(m)
			j := i + k
			switch c := b[j]; {
			case c == '"':
				if s.asIs && j-s.i-1 > maxString {
					return 0, false, true
				}
				if (wide || highs&(1<<k-1) != 0) && !validText(b[start:j]) {
					return 0, false, true
				}
				s.i = j + 1
				return 0, true, true
			case c == '\\':
				e := escapeLen(b[j:])
				if e == 0 {
					return 0, false, true
				}
				if k+e >= 64 {
					wide = wide || highs&(1<<k-1) != 0
					i = j + e
					continue windows
				}
				m &^= 1<<(k+e) - 1
			default:
				return 0, false, true
			}
		}
		wide = wide || highs != 0
		i += 64
	}
}

// validText is utf8.Valid, 32 bytes at a time from 32 bytes on: ~15 GB/s
// on a 200-byte mix of Chinese and English, where utf8.Valid makes 2.3.
func validText(b []byte) bool {
	if len(b) < 32 {
		return utf8.Valid(b)
	}
	return simdutf8.Valid(b)
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
		if v, ok := hex4(b[2:6]); !ok || 0xD800 <= v && v < 0xE000 {
			return 0
		}
		return 6
	}
	return 0
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

package logformat

import (
	"reflect"
	"unsafe"
)

// lineArena holds the messages and content blocks the raw path decodes
// for a chunk's lines, in slabs reused chunk after chunk: a new message
// and a block slice grown from nothing, for each of a transcript's lines,
// were half the bytes the raw path allocated. The documents that point
// into it must be done with before reset (see lineChunk.reset).
type lineArena struct {
	msgs   []claudeMessage
	blocks []claudeBlock
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

var (
	progressReader = rawPointer(reflect.TypeFor[claudeProgress]())
	blockPlan      = rawPlanOf(reflect.TypeFor[claudeBlock]())
	toolResultPlan = dupOK(rawPlanOf(reflect.TypeFor[toolResultObject]())) // a tool's output may repeat a name
)

// rawFlex reads a progress entry's data as decodeFlex does.
func (p *progressData) rawFlex(s *rawScan, w *warnList) bool {
	if s.peek() != '{' {
		return s.skip()
	}
	return progressReader(s, unsafe.Pointer(&p.P), w)
}

// rawFlex reads a message's content as decodeFlex does: text (clipped),
// blocks or null; any other kind gives up.
func (c *claudeContent) rawFlex(s *rawScan, w *warnList) bool {
	switch s.peek() {
	case '[':
		return s.blocks(&c.Blocks, w)
	case '"':
		text, ok := s.prefix(promptClip + 1)
		c.Text = clipString(text, promptClip)
		return ok
	}
	return s.null()
}

// rawFlex reads a block's text as decodeFlex does.
func (t *promptText) rawFlex(s *rawScan, _ *warnList) bool { return s.clipped(&t.Str, promptClip+1) }

// rawFlex reads a tool input's argument as decodeFlex does.
func (t *inputText) rawFlex(s *rawScan, _ *warnList) bool { return s.clipped(&t.Str, inputClip+1) }

// clipped reads a string's first n bytes as decodeStrPrefix does; a value
// of another kind as str does.
func (s *rawScan) clipped(p *Str, n int) bool {
	if s.peek() != '"' {
		return s.str(p)
	}
	text, ok := s.prefix(n)
	*p = Str{V: text, Set: true}
	return ok
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
		switch *blocks = append(*blocks, claudeBlock{}); s.peek() { // read in place: a block on the stack would escape
		case '{':
			if !blockPlan.read(s, unsafe.Pointer(&(*blocks)[len(*blocks)-1]), w) {
				return false
			}
		case 'n':
			if !s.null() {
				return false
			}
		default:
			return false
		}
	}
}

// rawFlex reads a toolUseResult as decodeFlex does.
func (t *toolUseResultField) rawFlex(s *rawScan, w *warnList) bool {
	switch s.peek() {
	case '"':
		text, ok := s.prefix(errorClip + 1)
		t.Text, t.Set = clipString(text, errorClip), true
		return ok
	case '{':
		var o toolResultObject
		ok := toolResultPlan.read(s, unsafe.Pointer(&o), w)
		t.set(&o)
		return ok
	}
	return s.skip()
}

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
	blocks []contentBlock
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
	toolResultPlan = dupOK(rawPlanOf(reflect.TypeFor[toolResultObject]())) // a tool's output may repeat a name
)

// rawFlex reads a progress entry's data as decodeFlex does.
func (p *progressData) rawFlex(s *rawScan, w *warnList) bool {
	if s.peek() != '{' {
		return s.skip()
	}
	return progressReader(s, unsafe.Pointer(&p.P), w)
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

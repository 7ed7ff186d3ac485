package logformat

import (
	"reflect"
	"unsafe"
)

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

package claudecode

import (
	"reflect"
	"unsafe"

	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/reader"
)

var (
	progressReader = jsonscan.PointerReader(reflect.TypeFor[agentProgress]())
	toolResultPlan = jsonscan.DupOK(jsonscan.PlanOf(reflect.TypeFor[toolResultObject]())) // a tool's output may repeat a name
)

// ScanFlex reads a progress entry's data as DecodeFlex does.
func (p *progressData) ScanFlex(s *jsonscan.Scanner, w *jsonscan.WarnList) bool {
	if s.Peek() != '{' {
		return s.Skip()
	}
	return progressReader(s, unsafe.Pointer(&p.P), w)
}

// ScanFlex reads a toolUseResult as DecodeFlex does.
func (t *toolUseResultField) ScanFlex(s *jsonscan.Scanner, w *jsonscan.WarnList) bool {
	switch s.Peek() {
	case '"':
		text, ok := s.Prefix(reader.ErrorClip + 1)
		t.Text, t.Set = reader.ClipString(text, reader.ErrorClip), true
		return ok
	case '{':
		var o toolResultObject
		ok := toolResultPlan.Read(s, unsafe.Pointer(&o), w)
		t.set(&o)
		return ok
	}
	return s.Skip()
}

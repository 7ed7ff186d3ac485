package reader

import (
	"reflect"
	"unsafe"

	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Shared holds the top-level members several formats read, each decoded
// into one type that serves every format reading it; a format's own
// members are its Fields, beside its reader.
type Shared struct {
	ID             jsonscan.Str  `json:"id"`
	PlanID         jsonscan.Str  `json:"planId"`
	Title          jsonscan.Str  `json:"title"`
	StartTime      jsonscan.Time `json:"startTime"`
	Summary        Summary       `json:"summary"`
	Steps          StepList      `json:"steps"`
	Status         jsonscan.Str  `json:"status"`
	CreatedAt      jsonscan.Time `json:"created_at"`
	Timestamp      jsonscan.Time `json:"timestamp"`
	SessionIDCamel jsonscan.Str  `json:"sessionId"`
	Type           jsonscan.Str  `json:"type"`
}

// Summary is a summary written as text or as an object of figures.
type Summary struct {
	Text            string
	TotalDurationMS jsonscan.Num
	ToolCallsCount  jsonscan.Num
	Errors          jsonscan.Num
}

// summaryObject is a summary written as an object.
type summaryObject struct {
	TotalDurationMS jsonscan.Num `json:"total_duration_ms"`
	ToolCallsCount  jsonscan.Num `json:"tool_calls_count"`
	Errors          jsonscan.Num `json:"errors_encountered"`
	Description     jsonscan.Str `json:"description"`
}

func (s *Summary) set(o *summaryObject) {
	s.TotalDurationMS, s.ToolCallsCount, s.Errors, s.Text = o.TotalDurationMS, o.ToolCallsCount, o.Errors, o.Description.V
}

// DecodeFlex reads a summary as text or as an object.
func (s *Summary) DecodeFlex(dec *jsontext.Decoder, w jsonscan.Warner, opts json.Options) error {
	return jsonscan.DecodeTextOrObject(dec, w, opts, func(t string) { s.Text = t }, s.set)
}

// StepList is planexec's list of step texts or session v1.0's list of step objects.
type StepList struct {
	Texts   []string
	Objects []SessionStep
	Present bool
}

// SessionStep is one step of a session v1.0 document.
type SessionStep struct {
	StepID     jsonscan.Str  `json:"step_id"`
	StepName   jsonscan.Str  `json:"step_name"`
	Status     jsonscan.Str  `json:"status"`
	DurationMS jsonscan.Num  `json:"duration_ms"`
	Timestamp  jsonscan.Time `json:"timestamp"`
}

// DecodeFlex reads steps: texts, objects, or both; an element of another kind is a warning.
func (s *StepList) DecodeFlex(dec *jsontext.Decoder, w jsonscan.Warner, opts json.Options) error {
	if dec.PeekKind() != '[' {
		if dec.PeekKind() != 'n' {
			w.Warn(WarnTypeMismatch)
		}
		return dec.SkipValue()
	}
	s.Present = true
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for dec.PeekKind() != ']' {
		switch dec.PeekKind() {
		case '{':
			var o SessionStep
			if err := json.UnmarshalDecode(dec, &o, opts); err != nil {
				return err
			}
			s.Objects = append(s.Objects, o)
		case '"':
			tok, err := dec.ReadToken()
			if err != nil {
				return err
			}
			s.Texts = append(s.Texts, tok.String())
		default:
			if err := dec.SkipValue(); err != nil {
				return err
			}
			w.Warn(WarnTypeMismatch)
		}
	}
	_, err := dec.ReadToken()
	return err
}

var summaryPlan = jsonscan.PlanOf(reflect.TypeFor[summaryObject]())

// ScanFlex reads a summary as DecodeFlex does.
func (f *Summary) ScanFlex(s *jsonscan.Scanner, w *jsonscan.WarnList) bool {
	return jsonscan.TextOrObject(s, w, summaryPlan, func(t string) { f.Text = t }, f.set)
}

// ScanFlex reads steps as DecodeFlex does: planexec's texts, or session
// v1.0's step objects; an element of another kind gives up.
func (l *StepList) ScanFlex(s *jsonscan.Scanner, w *jsonscan.WarnList) bool {
	if s.Null() {
		return true
	}
	l.Present = true
	return s.Elements(func() bool {
		switch s.Peek() {
		case '"':
			var text jsonscan.Str
			ok := s.Str(&text)
			l.Texts = append(l.Texts, text.V)
			return ok
		case '{':
			var o SessionStep
			ok := stepPlan.Read(s, unsafe.Pointer(&o), w)
			l.Objects = append(l.Objects, o)
			return ok
		}
		return false
	})
}

var stepPlan = jsonscan.PlanOf(reflect.TypeFor[SessionStep]())

// Presence records that a key was there, whatever its value, without reading it.
type Presence struct{ Present bool }

// DecodeFlex skips the value, noting the key.
func (p *Presence) DecodeFlex(dec *jsontext.Decoder, _ jsonscan.Warner, _ json.Options) error {
	p.Present = true
	return dec.SkipValue()
}

// ScanFlex skips the value, noting the key.
func (p *Presence) ScanFlex(s *jsonscan.Scanner, _ *jsonscan.WarnList) bool {
	p.Present = true
	return s.Skip()
}

package logformat

import (
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// document is the union of the top-level members of every format's
// documents: the members several formats read, then each format's own
// (its <format>Fields, beside its reader), embedded so that the decoders
// read them as the document's. A file is decoded once into it, keeping
// only what metrics need: values of any other key (tool outputs, file
// contents, payloads, checkpoints) are skipped by the decoder without being
// materialised. Signatures are then tested on which fields were present,
// in any key order. A member name belongs to one field only.
type document struct {
	ID                Str          `json:"id"`
	PlanID            Str          `json:"planId"`
	Title             Str          `json:"title"`
	StartTime         Time         `json:"startTime"`
	Summary           summaryField `json:"summary"`
	Steps             stepList     `json:"steps"`
	Status            Str          `json:"status"`
	CreatedAt         Time         `json:"created_at"`
	Phases            []phase      `json:"phases"` // session v2.x, and structmsg
	Timestamp         Time         `json:"timestamp"`
	SessionIDCamel    Str          `json:"sessionId"`
	Type              Str          `json:"type"`
	Message           *apiMessage  `json:"message"`
	Payload           *codexItem   `json:"payload"`
	StructuredContext embedded     `json:"structured_context"`
	Messages          messages     `json:"messages"`

	claudeFields
	codexFields
	otelFields
	geminiFields
	bundleFields
	structmsgFields
	planagentFields
	planexecFields
	sessionFields
}

// decodeTextOrObject decodes a value written as a string (text) or as an
// object of type O (obj): null is nothing, another kind a warning.
func decodeTextOrObject[O any](dec *jsontext.Decoder, w Warner, opts json.Options, text func(string), obj func(*O)) error {
	switch dec.PeekKind() {
	case '"':
		tok, err := dec.ReadToken()
		if err == nil {
			text(tok.String())
		}
		return err
	case '{':
		var o O
		if err := json.UnmarshalDecode(dec, &o, opts); err != nil {
			return err
		}
		obj(&o)
		return nil
	case 'n':
		return dec.SkipValue()
	}
	w.Warn(WarnTypeMismatch)
	return dec.SkipValue()
}

// summaryField is a summary written as text or as an object of figures.
type summaryField struct {
	Text            string
	TotalDurationMS Num
	ToolCallsCount  Num
	Errors          Num
}

// summaryObject is a summary written as an object.
type summaryObject struct {
	TotalDurationMS Num `json:"total_duration_ms"`
	ToolCallsCount  Num `json:"tool_calls_count"`
	Errors          Num `json:"errors_encountered"`
	Description     Str `json:"description"`
}

func (s *summaryField) set(o *summaryObject) {
	s.TotalDurationMS, s.ToolCallsCount, s.Errors, s.Text = o.TotalDurationMS, o.ToolCallsCount, o.Errors, o.Description.V
}

func (s *summaryField) decodeFlex(dec *jsontext.Decoder, w Warner, opts json.Options) error {
	return decodeTextOrObject(dec, w, opts, func(t string) { s.Text = t }, s.set)
}

// stepList is planexec's list of step texts or session v1.0's list of step objects.
type stepList struct {
	Texts   []string
	Objects []sessionStep
	Present bool
}

type sessionStep struct {
	StepID     Str  `json:"step_id"`
	StepName   Str  `json:"step_name"`
	Status     Str  `json:"status"`
	DurationMS Num  `json:"duration_ms"`
	Timestamp  Time `json:"timestamp"`
}

func (s *stepList) decodeFlex(dec *jsontext.Decoder, w Warner, opts json.Options) error {
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
			var o sessionStep
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

// agentField is a session's agent: an object naming the model, or a bare name.
type agentField struct {
	Name, Model string
}

// agentObject is an agent written as an object.
type agentObject struct {
	Name    Str `json:"name"`
	ModelID Str `json:"model_id"`
	Model   Str `json:"model"`
}

func (a *agentField) set(o *agentObject) { a.Name, a.Model = o.Name.V, firstOf(o.ModelID, o.Model) }

func (a *agentField) decodeFlex(dec *jsontext.Decoder, w Warner, opts json.Options) error {
	return decodeTextOrObject(dec, w, opts, func(t string) { a.Name = t }, a.set)
}

// contribField is a context_contribution: an object with a type, or a plain string.
type contribField struct {
	Type string
}

// contribObject is a context contribution written as an object.
type contribObject struct {
	Type Str `json:"type"`
}

func (c *contribField) set(o *contribObject) {
	if c.Type = o.Type.V; c.Type == "" {
		c.Type = "unspecified"
	}
}

func (c *contribField) decodeFlex(dec *jsontext.Decoder, w Warner, opts json.Options) error {
	return decodeTextOrObject(dec, w, opts, func(t string) { c.Type = t }, c.set)
}

// embedded is a message's structured_context; Present is set even when it is
// null, so that a conversation with none is told apart from a foreign file.
type embedded struct {
	Doc     *document
	Present bool
}

func (e *embedded) decodeFlex(dec *jsontext.Decoder, w Warner, opts json.Options) error {
	e.Present = true
	if dec.PeekKind() != '{' {
		if dec.PeekKind() != 'n' {
			w.Warn(WarnTypeMismatch)
		}
		return dec.SkipValue()
	}
	e.Doc = new(document)
	return json.UnmarshalDecode(dec, e.Doc, opts)
}

// tri is a boolean that counts only when written as one.
type tri struct {
	V, Set bool
}

func (t *tri) decodeFlex(dec *jsontext.Decoder, w Warner, _ json.Options) error {
	switch dec.PeekKind() {
	case 't', 'f':
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		t.V, t.Set = tok.Bool(), true
		return nil
	case 'n':
		return dec.SkipValue()
	}
	w.Warn(WarnTypeMismatch)
	return dec.SkipValue()
}

// score is a number that counts only when written as a JSON number.
type score struct {
	V   float64
	Set bool
}

func (s *score) decodeFlex(dec *jsontext.Decoder, w Warner, _ json.Options) error {
	if dec.PeekKind() != '0' {
		if dec.PeekKind() != 'n' {
			w.Warn(WarnTypeMismatch)
		}
		return dec.SkipValue()
	}
	var n Num
	if err := decodeNum(dec, &n, w); err != nil {
		return err
	}
	s.V, s.Set = n.V, n.Set
	return nil
}

type contextRef struct {
	Type      Str `json:"type"`
	Relevance Str `json:"relevance"`
	UsageMode Str `json:"usage_mode"`
}

func firstOf(ss ...Str) string {
	for _, s := range ss {
		if s.Set && s.V != "" {
			return s.V
		}
	}
	return ""
}

// presence records that a key was there, whatever its value, without reading it.
type presence struct{ Present bool }

func (p *presence) decodeFlex(dec *jsontext.Decoder, _ Warner, _ json.Options) error {
	p.Present = true
	return dec.SkipValue()
}

func (p *presence) rawFlex(s *rawScan, _ *warnList) bool {
	p.Present = true
	return s.skip()
}

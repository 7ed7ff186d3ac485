package logformat

import (
	"github.com/agentstat/agentstat/logformat/claudecode"
	"github.com/agentstat/agentstat/logformat/codex"
	"github.com/agentstat/agentstat/logformat/debugbundle"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/otel"
	"github.com/agentstat/agentstat/logformat/planagent"
	"github.com/agentstat/agentstat/logformat/planexec"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// document is the union of the top-level members of every format's
// documents: the members several formats read (reader.Shared, and the
// members below whose types are one format's), then each format's own: the
// Fields of a format package, tagged embed, or the <format>Fields of a
// format read here, embedded, so that the decoders read them as the
// document's. A file is decoded once into it, keeping
// only what metrics need: values of any other key (tool outputs, file
// contents, payloads, checkpoints) are skipped by the decoder without being
// materialised. Signatures are then tested on which fields were present,
// in any key order. A member name belongs to one field only.
type document struct {
	reader.Shared
	Phases            []phase         `json:"phases"` // session v2.x, and structmsg
	Message           *reader.Message `json:"message"`
	Payload           *codex.Item     `json:"payload"` // Codex's, whose presence Gemini CLI's signature tests
	StructuredContext embedded        `json:"structured_context"`
	Messages          messages        `json:"messages"`

	Claude claudecode.Fields `json:",embed"`
	Codex  codex.Fields      `json:",embed"`
	Otel   otel.Fields       `json:",embed"`
	geminiFields
	Bundle debugbundle.Fields `json:",embed"`
	structmsgFields
	Planagent planagent.Fields `json:",embed"`
	Planexec  planexec.Fields  `json:",embed"`
	sessionFields
}

// agentField is a session's agent: an object naming the model, or a bare name.
type agentField struct {
	Name, Model string
}

// agentObject is an agent written as an object.
type agentObject struct {
	Name    jsonscan.Str `json:"name"`
	ModelID jsonscan.Str `json:"model_id"`
	Model   jsonscan.Str `json:"model"`
}

func (a *agentField) set(o *agentObject) {
	a.Name, a.Model = o.Name.V, reader.FirstOf(o.ModelID, o.Model)
}

func (a *agentField) DecodeFlex(dec *jsontext.Decoder, w Warner, opts json.Options) error {
	return jsonscan.DecodeTextOrObject(dec, w, opts, func(t string) { a.Name = t }, a.set)
}

// contribField is a context_contribution: an object with a type, or a plain string.
type contribField struct {
	Type string
}

// contribObject is a context contribution written as an object.
type contribObject struct {
	Type jsonscan.Str `json:"type"`
}

func (c *contribField) set(o *contribObject) {
	if c.Type = o.Type.V; c.Type == "" {
		c.Type = "unspecified"
	}
}

func (c *contribField) DecodeFlex(dec *jsontext.Decoder, w Warner, opts json.Options) error {
	return jsonscan.DecodeTextOrObject(dec, w, opts, func(t string) { c.Type = t }, c.set)
}

// embedded is a message's structured_context; Present is set even when it is
// null, so that a conversation with none is told apart from a foreign file.
type embedded struct {
	Doc     *document
	Present bool
}

func (e *embedded) DecodeFlex(dec *jsontext.Decoder, w Warner, opts json.Options) error {
	e.Present = true
	if dec.PeekKind() != '{' {
		if dec.PeekKind() != 'n' {
			w.Warn(reader.WarnTypeMismatch)
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

func (t *tri) DecodeFlex(dec *jsontext.Decoder, w Warner, _ json.Options) error {
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
	w.Warn(reader.WarnTypeMismatch)
	return dec.SkipValue()
}

// score is a number that counts only when written as a JSON number.
type score struct {
	V   float64
	Set bool
}

func (s *score) DecodeFlex(dec *jsontext.Decoder, w Warner, _ json.Options) error {
	if dec.PeekKind() != '0' {
		if dec.PeekKind() != 'n' {
			w.Warn(reader.WarnTypeMismatch)
		}
		return dec.SkipValue()
	}
	var n jsonscan.Num
	if err := jsonscan.DecodeNum(dec, &n, w); err != nil {
		return err
	}
	s.V, s.Set = n.V, n.Set
	return nil
}

type contextRef struct {
	Type      jsonscan.Str `json:"type"`
	Relevance jsonscan.Str `json:"relevance"`
	UsageMode jsonscan.Str `json:"usage_mode"`
}

// presence records that a key was there, whatever its value, without reading it.
type presence struct{ Present bool }

func (p *presence) DecodeFlex(dec *jsontext.Decoder, _ Warner, _ json.Options) error {
	p.Present = true
	return dec.SkipValue()
}

func (p *presence) ScanFlex(s *jsonscan.Scanner, _ *jsonscan.WarnList) bool {
	p.Present = true
	return s.Skip()
}

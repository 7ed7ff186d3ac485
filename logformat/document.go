package logformat

import (
	"unsafe"

	"github.com/agentstat/agentstat/logformat/claudecode"
	"github.com/agentstat/agentstat/logformat/codex"
	"github.com/agentstat/agentstat/logformat/debugbundle"
	"github.com/agentstat/agentstat/logformat/gemini"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/otel"
	"github.com/agentstat/agentstat/logformat/planagent"
	"github.com/agentstat/agentstat/logformat/planexec"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/agentstat/agentstat/logformat/session"
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

	Claude claudecode.Fields  `json:",embed"`
	Codex  codex.Fields       `json:",embed"`
	Otel   otel.Fields        `json:",embed"`
	Gemini gemini.Fields      `json:",embed"`
	Bundle debugbundle.Fields `json:",embed"`
	structmsgFields
	Planagent planagent.Fields `json:",embed"`
	Planexec  planexec.Fields  `json:",embed"`
	Session   session.Fields   `json:",embed"`
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

// messages is a document's messages: what Gemini CLI reads of each, and
// the structured contexts (structmsg's) some carry, kept as each message
// is decoded into the union.
type messages struct {
	gemini.Messages
	embedded []embeddedAt // the messages that carry a structured_context
}

// embeddedAt is a message's structured_context, and the message's place and id.
type embeddedAt struct {
	n   int // 1 for the first message
	id  string
	doc embedded
}

// add keeps what the readers read of message m.
func (ms *messages) add(m *document) {
	ms.Messages.Add(geminiView(m))
	if m.StructuredContext.Present {
		ms.embedded = append(ms.embedded, embeddedAt{ms.N, reader.FirstOf(m.ID), m.StructuredContext})
	}
}

// DecodeFlex decodes messages one at a time.
func (ms *messages) DecodeFlex(dec *jsontext.Decoder, w Warner, opts json.Options) error {
	return jsonscan.DecodeEach(dec, w, opts, ms.start, ms.add)
}

// ScanFlex reads messages one at a time, as DecodeFlex does.
func (ms *messages) ScanFlex(s *jsonscan.Scanner, w *jsonscan.WarnList) bool {
	return jsonscan.Each(s, ms.start, func(m *document) bool { return documentPlan.Read(s, unsafe.Pointer(m), w) }, ms.add)
}

func (ms *messages) start(array bool) { *ms = messages{Messages: gemini.Messages{Array: array}} }

// phase is one of a document's phases: a session v2.x phase's members and a
// structmsg phase's.
type phase struct {
	Session session.Phase `json:",embed"`
	ID      jsonscan.Str  `json:"id"`
	Name    jsonscan.Str  `json:"name"`
	Rounds  []round       `json:"rounds"`
	Status  jsonscan.Str  `json:"status"`
}

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
	"github.com/agentstat/agentstat/logformat/structmsg"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// document is the union of the top-level members of every format's
// documents: the members several formats read (reader.Shared, then those
// whose types are one format's: Claude Code's message, read by Gemini CLI
// too, …), then each format's own Fields, tagged embed, so that the
// decoders read them as the document's. A file is decoded once into it,
// keeping only what metrics need: values of any other key (tool outputs,
// file contents, payloads, checkpoints) are skipped by the decoder without
// being materialised. Each format tests its signature on its view of it
// (below), in any key order. A member name belongs to one field only.
type document struct {
	reader.Shared
	Phases            []phase         `json:"phases"`             // session v2.x's and structmsg's
	Message           *reader.Message `json:"message"`            // Claude Code's; a Gemini CLI line has none
	Payload           *codex.Item     `json:"payload"`            // Codex's; a Gemini CLI line has none
	StructuredContext embedded        `json:"structured_context"` // structmsg's
	Messages          messages        `json:"messages"`           // Gemini CLI's, and structmsg's contexts in them
	ContextMessages   []document      `json:"context_messages"`   // structmsg's

	Claude    claudecode.Fields  `json:",embed"`
	Codex     codex.Fields       `json:",embed"`
	Otel      otel.Fields        `json:",embed"`
	Gemini    gemini.Fields      `json:",embed"`
	Bundle    debugbundle.Fields `json:",embed"`
	Struct    structmsg.Fields   `json:",embed"`
	Planagent planagent.Fields   `json:",embed"`
	Planexec  planexec.Fields    `json:",embed"`
	Session   session.Fields     `json:",embed"`
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
	Session session.Phase   `json:",embed"`
	Struct  structmsg.Phase `json:",embed"`
}

// Each format's view of a document: the shared members, its own, and the
// union's members it reads.

func bundleView(d *document) debugbundle.Doc {
	return debugbundle.Doc{Shared: &d.Shared, Fields: &d.Bundle}
}

func otelView(d *document) otel.Doc { return otel.Doc{Shared: &d.Shared, Fields: &d.Otel} }

func claudeView(d *document) claudecode.Doc {
	return claudecode.Doc{Shared: &d.Shared, Fields: &d.Claude, Message: d.Message}
}

func codexView(d *document) codex.Doc {
	return codex.Doc{Shared: &d.Shared, Fields: &d.Codex, Payload: d.Payload}
}

// geminiView is Gemini CLI's view of a document, or of a message in one.
func geminiView(d *document) gemini.Doc {
	return gemini.Doc{Shared: &d.Shared, Fields: &d.Gemini, Message: d.Message, Payload: d.Payload != nil, Messages: &d.Messages.Messages}
}

// sessionView is session's view of a document: its phases are the union's.
func sessionView(d *document) session.Doc {
	v := session.Doc{Shared: &d.Shared, Fields: &d.Session}
	if d.Phases != nil {
		v.Phases = make([]*session.Phase, len(d.Phases))
		for i := range d.Phases {
			v.Phases[i] = &d.Phases[i].Session
		}
	}
	return v
}

// structView is structmsg's view of a document, and of the documents
// nested in it: its structured context and its messages'.
func structView(d *document) structmsg.Doc {
	v := structmsg.Doc{Shared: &d.Shared, Fields: &d.Struct, Context: nestedView(d.StructuredContext)}
	if d.Phases != nil {
		v.Phases = make([]*structmsg.Phase, len(d.Phases))
		for i := range d.Phases {
			v.Phases[i] = &d.Phases[i].Struct
		}
	}
	for i := range d.ContextMessages {
		m := &d.ContextMessages[i]
		v.ContextMessages = append(v.ContextMessages, structmsg.Message{N: i + 1, ID: reader.FirstOf(m.ID), Context: nestedView(m.StructuredContext)})
	}
	for _, e := range d.Messages.embedded {
		v.Messages = append(v.Messages, structmsg.Message{N: e.n, ID: e.id, Context: nestedView(e.doc)})
	}
	return v
}

func nestedView(e embedded) structmsg.Nested {
	n := structmsg.Nested{Present: e.Present}
	if e.Doc != nil {
		v := structView(e.Doc)
		n.Doc = &v
	}
	return n
}

func planagentView(d *document) planagent.Doc {
	return planagent.Doc{Shared: &d.Shared, Fields: &d.Planagent}
}

func planexecView(d *document) planexec.Doc {
	return planexec.Doc{Shared: &d.Shared, Fields: &d.Planexec}
}

package logformat

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/join"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/agentstat/agentstat/model"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// gemini: Gemini CLI sessions, a JSON document {sessionId, startTime,
// lastUpdated, messages[]} or JSON Lines (a header line, then one message
// per line, and "$set" updates). One run per session id.
var geminiFormat = &Format{
	Name:      "gemini",
	Title:     "Gemini CLI session (JSON document, or JSONL of a header and messages)",
	Signature: "sessionId with projectHash or messages of type user/gemini; in JSON Lines, message lines (id, timestamp, type user/gemini/info/error) and $set lines",
	match: func(d *document) bool {
		if d.SessionIDCamel.Set && !d.Type.Set && (d.ProjectHash.Set || d.Messages.array) && d.Payload == nil {
			return !d.Messages.otherType
		}
		if d.SetUpdate.Present {
			return true
		}
		switch d.Type.V {
		case "gemini":
			return !d.SessionIDCamel.Set
		case "user", "info", "error":
			return !d.SessionIDCamel.Set && d.ID.Set && d.Timestamp.Set && d.Payload == nil && d.Message == nil
		}
		return false
	},
	read: readGemini,
}

// geminiFields are the members only a Gemini CLI session or JSONL line has.
type geminiFields struct {
	ProjectHash     jsonscan.Str     `json:"projectHash"`
	LastUpdated     jsonscan.Time    `json:"lastUpdated"`
	SetUpdate       presence         `json:"$set"`
	Model           jsonscan.Str     `json:"model"`
	Tokens          *geminiTokens    `json:"tokens"`
	Content         reader.Content   `json:"content"`
	GeminiToolCalls []geminiToolCall `json:"toolCalls"`
}

type geminiTokens struct {
	Input    jsonscan.Num `json:"input"`
	Output   jsonscan.Num `json:"output"`
	Cached   jsonscan.Num `json:"cached"`
	Thoughts jsonscan.Num `json:"thoughts"`
	Tool     jsonscan.Num `json:"tool"`
}

// geminiToolCall is what a Gemini message's tool call tells: its name,
// status and the key argument of its args (its results are payload).
type geminiToolCall struct {
	Name   jsonscan.Str      `json:"name"`
	Status jsonscan.Str      `json:"status"`
	Args   *reader.ToolInput `json:"args"`
}

// geminiLog is a file's entries of one session.
type geminiLog = join.EntryLog[geminiEntry]

type geminiEntry struct { // its session is its log's
	start, at   time.Time
	kind        string // header, user, gemini, other
	model       string
	tokens      model.Tokens
	prompt      string
	calls       []geminiCall
	hasTokens   bool
	lastUpdated time.Time
	project     string // the header's projectHash: Gemini CLI keeps no path
}

type geminiCall struct {
	name, status, input string
}

// geminiFile is what a Gemini CLI file's reader keeps: the session its
// JSONL header named (else the file's), and its entries by session.
type geminiFile struct {
	session string
	logs    map[string]*geminiLog
}

func geminiFileOf(c *reader.Ctx) *geminiFile {
	return reader.FileState(c, func() *geminiFile { return &geminiFile{session: c.FallbackID()} })
}

func readGemini(d *document, c *reader.Ctx) {
	st := geminiFileOf(c)
	if d.SetUpdate.Present {
		return // an update of the header's lastUpdated: the messages carry their own times
	}
	if d.SessionIDCamel.Set && !d.Type.Set { // a whole session, or the JSONL header
		st.session = cmp.Or(d.SessionIDCamel.V, st.session)
		st.log(c).Push(c.Spill, geminiEntry{kind: "header", start: d.StartTime.In(c.Loc), lastUpdated: d.LastUpdated.In(c.Loc), project: d.ProjectHash.V})
		for i := range d.Messages.gemini {
			st.log(c).Push(c.Spill, d.Messages.gemini[i].entry(c.Loc))
		}
		return
	}
	geminiMessage(d, c)
}

// log is the file's log of the current session.
func (st *geminiFile) log(c *reader.Ctx) *geminiLog {
	session := st.session
	return reader.LogFor(c, &st.logs, session, geminiCodec, func(l *geminiLog) *join.Fragment {
		return &join.Fragment{Kind: join.FragmentGemini, Key: session, Records: l}
	})
}

func geminiMessage(m *document, c *reader.Ctx) {
	g := geminiMessageOf(m)
	geminiFileOf(c).log(c).Push(c.Spill, g.entry(c.Loc))
}

// messages is a document's messages, each kept as the little a reader
// reads of it as soon as it is decoded: held as documents (some 2 KB each),
// a Gemini CLI session of 300,000 messages would take 2.8 GB.
type messages struct {
	gemini    []geminiMsg  // each message as a Gemini CLI message
	embedded  []embeddedAt // the messages that carry a structured_context
	n         int          // how many messages
	array     bool         // messages held an array, even an empty one
	otherType bool         // a message's type is none of Gemini's
}

// embeddedAt is a message's structured_context, and the message's place and id.
type embeddedAt struct {
	n   int // 1 for the first message
	id  string
	doc embedded
}

// geminiMsg is a message as readGemini reads it, its time not yet in the --tz zone.
type geminiMsg struct {
	at jsonscan.Time
	e  geminiEntry // but its time
}

// add keeps what the readers read of message m.
func (ms *messages) add(m *document) {
	ms.n++
	if t := m.Type.V; t != "user" && t != "gemini" && t != "info" && t != "error" {
		ms.otherType = true
	}
	if m.StructuredContext.Present {
		ms.embedded = append(ms.embedded, embeddedAt{ms.n, reader.FirstOf(m.ID), m.StructuredContext})
	}
	ms.gemini = append(ms.gemini, geminiMessageOf(m))
}

// DecodeFlex decodes messages one at a time.
func (ms *messages) DecodeFlex(dec *jsontext.Decoder, w Warner, opts json.Options) error {
	return jsonscan.DecodeEach(dec, w, opts, func(array bool) { *ms = messages{array: array} }, ms.add)
}

// ScanFlex reads messages one at a time, as DecodeFlex does.
func (ms *messages) ScanFlex(s *jsonscan.Scanner, w *jsonscan.WarnList) bool {
	return jsonscan.Each(s, func(array bool) { *ms = messages{array: array} },
		func(m *document) bool { return documentPlan.Read(s, unsafe.Pointer(m), w) }, ms.add)
}

// geminiMessageOf is what readGemini reads of message m.
func geminiMessageOf(m *document) geminiMsg {
	e := geminiEntry{kind: m.Type.V, model: m.Model.V}
	if m.Type.V == "user" {
		e.prompt = m.Content.Text
		for _, b := range m.Content.Blocks {
			if e.prompt == "" {
				e.prompt = b.Text.V
			}
		}
		e.prompt = reader.ClipString(e.prompt, 2000)
	}
	if t := m.Tokens; t != nil {
		// input counts the cached tokens: take them out; thoughts are output.
		e.tokens = model.Tokens{Input: t.Input.Int() + t.Tool.Int() - t.Cached.Int(), CacheRead: t.Cached.Int(), Output: t.Output.Int() + t.Thoughts.Int()}
		e.hasTokens = true
	}
	for _, tc := range m.GeminiToolCalls {
		call := geminiCall{name: tc.Name.V, status: tc.Status.V}
		if tc.Args != nil {
			call.input = tc.Args.Key()
		}
		e.calls = append(e.calls, call)
	}
	return geminiMsg{at: m.Timestamp, e: e}
}

// entry is the message's entry, its time in loc.
func (g *geminiMsg) entry(loc *time.Location) geminiEntry {
	e := g.e
	e.at = g.at.In(loc)
	return e
}

func joinGemini(frags []*join.Fragment, w Warner, emit func(*model.Run, []*join.Fragment)) {
	for fs, entries := range join.Loaded[geminiEntry](frags) {
		id := fs[0].Key
		r := &model.Run{ID: id, Format: "gemini", Agent: "gemini-cli", Status: model.StatusUnknown, Source: fs[0].Source}
		var first, last time.Time
		perModel := map[string]int64{}
		for _, es := range entries {
			for _, e := range es {
				for _, t := range []time.Time{e.start, e.at, e.lastUpdated} {
					reader.Widen(&first, &last, t)
				}
				if r.Request == "" && e.prompt != "" {
					r.Request = e.prompt
				}
				if r.Project == "" {
					r.Project = e.project
				}
				if e.hasTokens {
					r.AddRequest(model.Request{Model: e.model, At: e.at, Tokens: e.tokens})
					perModel[e.model] += e.tokens.Total()
				}
				for _, call := range e.calls {
					tc := model.ToolCall{Name: call.name, Agent: r.Agent, Span: model.Span{Started: e.at}, Input: call.input}
					switch strings.ToLower(call.status) {
					case "success":
						tc.Outcome = model.OutcomeOK
					case "error":
						tc.Outcome, tc.Error = model.OutcomeError, "error"
					case "cancelled", "canceled":
						tc.Outcome = model.OutcomeCancelled
					}
					r.ToolCalls = append(r.ToolCalls, tc)
				}
			}
		}
		r.Model = reader.TopModel(perModel)
		r.Span = reader.SpanOf(first, last, w)
		r.Title = cmp.Or(reader.ClipString(strings.TrimSpace(r.Request), 120), id)
		emit(r, fs)
	}
}

func init() { join.RegisterEntries(join.FragmentGemini, geminiCodec, joinGemini) }

var geminiCodec = &join.EntryCodec[geminiEntry]{
	Encode: func(b []byte, e *geminiEntry, loc *time.Location) []byte {
		b = recordspill.AppendTime(b, e.start, loc)
		b = recordspill.AppendTime(b, e.at, loc)
		b = recordspill.AppendTime(b, e.lastUpdated, loc)
		b = recordspill.AppendText(b, e.kind)
		b = recordspill.AppendText(b, e.model)
		b = recordspill.AppendTokens(b, &e.tokens)
		b = recordspill.AppendBool(b, e.hasTokens)
		b = recordspill.AppendText(b, e.prompt)
		b = recordspill.AppendText(b, e.project)
		b = binary.AppendUvarint(b, uint64(len(e.calls)))
		for _, c := range e.calls {
			b = recordspill.AppendText(b, c.name)
			b = recordspill.AppendText(b, c.status)
			b = recordspill.AppendText(b, c.input)
		}
		return b
	},
	Decode: func(r *recordspill.Reader, loc *time.Location) (e geminiEntry) {
		e.start, e.at, e.lastUpdated = r.Time(loc), r.Time(loc), r.Time(loc)
		e.kind, e.model = r.Text(), r.Text()
		e.tokens = r.Tokens()
		e.hasTokens = r.Bool()
		e.prompt = r.Text()
		e.project = r.Text()
		if n := r.Uvarint(); n > 0 {
			e.calls = make([]geminiCall, n)
			for i := range e.calls {
				e.calls[i] = geminiCall{name: r.Text(), status: r.Text(), input: r.Text()}
			}
		}
		return e
	},
	Withhold: func(e *geminiEntry) {
		join.WithholdText(&e.prompt)
		e.calls = slices.Clone(e.calls)
		for i := range e.calls {
			join.WithholdText(&e.calls[i].input)
		}
	},
}

// Package gemini reads Gemini CLI sessions: a JSON document {sessionId,
// startTime, lastUpdated, messages[]}, or JSON Lines (a header line, then
// one message per line, and "$set" updates). One run per session id, joined
// across files.
package gemini

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strings"
	"time"

	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/join"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/agentstat/agentstat/model"
)

// Format is gemini's entry in the registry.
var Format = reader.Format[Doc]{
	Name:      "gemini",
	Title:     "Gemini CLI session (JSON document, or JSONL of a header and messages)",
	Signature: "sessionId with projectHash or messages of type user/gemini; in JSON Lines, message lines (id, timestamp, type user/gemini/info/error) and $set lines",
	Match: func(d Doc) bool {
		if d.SessionIDCamel.Set && !d.Type.Set && (d.ProjectHash.Set || d.Messages.Array) && !d.Payload {
			return !d.Messages.OtherType
		}
		if d.SetUpdate.Present {
			return true
		}
		switch d.Type.V {
		case "gemini":
			return !d.SessionIDCamel.Set
		case "user", "info", "error":
			return !d.SessionIDCamel.Set && d.ID.Set && d.Timestamp.Set && !d.Payload && d.Message == nil
		}
		return false
	},
	Read: read,
}

// Doc is what gemini reads of a document; the members below Fields are the
// union's, which other formats read too.
type Doc struct {
	*reader.Shared
	*Fields
	Message  *reader.Message // Claude Code's: a line with one is no Gemini CLI message
	Payload  bool            // a Codex payload is there
	Messages *Messages
}

// Fields are the members only a Gemini CLI session or JSONL line has.
type Fields struct {
	ProjectHash     jsonscan.Str    `json:"projectHash"`
	LastUpdated     jsonscan.Time   `json:"lastUpdated"`
	SetUpdate       reader.Presence `json:"$set"`
	Model           jsonscan.Str    `json:"model"`
	Tokens          *tokens         `json:"tokens"`
	Content         reader.Content  `json:"content"`
	GeminiToolCalls []toolCall      `json:"toolCalls"`
}

type tokens struct {
	Input    jsonscan.Num `json:"input"`
	Output   jsonscan.Num `json:"output"`
	Cached   jsonscan.Num `json:"cached"`
	Thoughts jsonscan.Num `json:"thoughts"`
	Tool     jsonscan.Num `json:"tool"`
}

// toolCall is what a Gemini message's tool call tells: its name,
// status and the key argument of its args (its results are payload).
type toolCall struct {
	Name   jsonscan.Str      `json:"name"`
	Status jsonscan.Str      `json:"status"`
	Args   *reader.ToolInput `json:"args"`
}

// entryLog is a file's entries of one session.
type entryLog = join.EntryLog[Entry]

type Entry struct { // its session is its log's
	start, at   time.Time
	kind        string // header, user, gemini, other
	model       string
	tokens      model.Tokens
	prompt      string
	calls       []call
	hasTokens   bool
	lastUpdated time.Time
	project     string // the header's projectHash: Gemini CLI keeps no path
}

type call struct {
	name, status, input string
}

// fileSessions is what a Gemini CLI file's reader keeps: the session its
// JSONL header named (else the file's), and its entries by session.
type fileSessions struct {
	session string
	logs    map[string]*entryLog
}

func fileOf(c *reader.Ctx) *fileSessions {
	return reader.FileState(c, func() *fileSessions { return &fileSessions{session: c.FallbackID()} })
}

func read(d Doc, c *reader.Ctx) {
	st := fileOf(c)
	if d.SetUpdate.Present {
		return // an update of the header's lastUpdated: the messages carry their own times
	}
	if d.SessionIDCamel.Set && !d.Type.Set { // a whole session, or the JSONL header
		st.session = cmp.Or(d.SessionIDCamel.V, st.session)
		st.log(c).Push(c.Spill, Entry{kind: "header", start: d.StartTime.In(c.Loc), lastUpdated: d.LastUpdated.In(c.Loc), project: d.ProjectHash.V})
		for i := range d.Messages.Gemini {
			st.log(c).Push(c.Spill, d.Messages.Gemini[i].entry(c.Loc))
		}
		return
	}
	readMessage(d, c)
}

// log is the file's log of the current session.
func (st *fileSessions) log(c *reader.Ctx) *entryLog {
	session := st.session
	return reader.LogFor(c, &st.logs, session, codec, func(l *entryLog) *join.Fragment {
		return &join.Fragment{Kind: join.FragmentGemini, Key: session, Records: l}
	})
}

func readMessage(m Doc, c *reader.Ctx) {
	g := messageOf(m)
	fileOf(c).log(c).Push(c.Spill, g.entry(c.Loc))
}

// Messages is what Gemini CLI reads of a document's messages, each kept
// as the little it reads of it as soon as it is decoded: held as documents
// (some 2 KB each), a session of 300,000 messages would take 2.8 GB.
type Messages struct {
	Gemini    []Msg // each message as a Gemini CLI message
	N         int   // how many messages
	Array     bool  // messages held an array, even an empty one
	OtherType bool  // a message's type is none of Gemini's
}

// Msg is a message as read reads it, its time not yet in the --tz zone.
type Msg struct {
	at jsonscan.Time
	e  Entry // but its time
}

// Add keeps what Gemini CLI reads of message m.
func (ms *Messages) Add(m Doc) {
	ms.N++
	if t := m.Type.V; t != "user" && t != "gemini" && t != "info" && t != "error" {
		ms.OtherType = true
	}
	ms.Gemini = append(ms.Gemini, messageOf(m))
}

// messageOf is what read reads of message m.
func messageOf(m Doc) Msg {
	e := Entry{kind: m.Type.V, model: m.Model.V}
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
		call := call{name: tc.Name.V, status: tc.Status.V}
		if tc.Args != nil {
			call.input = tc.Args.Key()
		}
		e.calls = append(e.calls, call)
	}
	return Msg{at: m.Timestamp, e: e}
}

// entry is the message's entry, its time in loc.
func (g *Msg) entry(loc *time.Location) Entry {
	e := g.e
	e.at = g.at.In(loc)
	return e
}

func joinSessions(frags []*join.Fragment, w jsonscan.Warner, emit func(*model.Run, []*join.Fragment)) {
	for fs, entries := range join.Loaded[Entry](frags) {
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

func init() { join.RegisterEntries(join.FragmentGemini, codec, joinSessions) }

var codec = &join.EntryCodec[Entry]{
	Encode: func(b []byte, e *Entry, loc *time.Location) []byte {
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
	Decode: func(r *recordspill.Reader, loc *time.Location) (e Entry) {
		e.start, e.at, e.lastUpdated = r.Time(loc), r.Time(loc), r.Time(loc)
		e.kind, e.model = r.Text(), r.Text()
		e.tokens = r.Tokens()
		e.hasTokens = r.Bool()
		e.prompt = r.Text()
		e.project = r.Text()
		if n := r.Uvarint(); n > 0 {
			e.calls = make([]call, n)
			for i := range e.calls {
				e.calls[i] = call{name: r.Text(), status: r.Text(), input: r.Text()}
			}
		}
		return e
	},
	Withhold: func(e *Entry) {
		join.WithholdText(&e.prompt)
		e.calls = slices.Clone(e.calls)
		for i := range e.calls {
			join.WithholdText(&e.calls[i].input)
		}
	},
}

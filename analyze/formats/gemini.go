package formats

import (
	"strings"
	"time"

	"github.com/agentstat/agentstat/analyze/model"
)

// gemini: Gemini CLI sessions, a JSON document {sessionId, startTime,
// lastUpdated, messages[]} or JSON Lines (a header line, then one message
// per line, and "$set" updates). One run per session id.
var geminiFormat = &Format{
	Name:      "gemini",
	Title:     "Gemini CLI session (JSON document, or JSONL of a header and messages)",
	Signature: "sessionId with projectHash or messages of type user/gemini; in JSON Lines, message lines (id, timestamp, type user/gemini/info/error) and $set lines",
	match: func(d *document) bool {
		if d.SessionIDCamel.Set && !d.Type.Set && (d.ProjectHash.Set || d.Messages != nil) && d.Payload == nil {
			for i := range d.Messages {
				if t := d.Messages[i].Type.V; t != "user" && t != "gemini" && t != "info" && t != "error" {
					return false
				}
			}
			return true
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

type geminiTokens struct {
	Input    Num `json:"input"`
	Output   Num `json:"output"`
	Cached   Num `json:"cached"`
	Thoughts Num `json:"thoughts"`
	Tool     Num `json:"tool"`
}

// geminiLog is a file's entries of one session.
type geminiLog = entryLog[geminiEntry]

type geminiEntry struct { // its session is its log's
	start, at   time.Time
	kind        string // header, user, gemini, other
	model       string
	tokens      model.Tokens
	prompt      string
	calls       []geminiCall
	hasTokens   bool
	lastUpdated time.Time
}

type geminiCall struct {
	name, status string
}

func readGemini(d *document, c *readCtx) {
	if c.gemini == "" {
		c.gemini = c.fallbackID()
	}
	if d.SetUpdate.Present {
		return // an update of the header's lastUpdated: the messages carry their own times
	}
	if d.SessionIDCamel.Set && !d.Type.Set { // a whole session, or the JSONL header
		c.gemini = cmpOr(d.SessionIDCamel.V, c.gemini)
		c.geminiLog().add(c, geminiEntry{kind: "header", start: d.StartTime.In(c.loc), lastUpdated: d.LastUpdated.In(c.loc)})
		for i := range d.Messages {
			geminiMessage(&d.Messages[i], c)
		}
		return
	}
	geminiMessage(d, c)
}

// geminiLog is the file's log of the current session.
func (c *readCtx) geminiLog() *geminiLog {
	session := c.gemini
	return logFor(c, &c.geminiLogs, session, geminiCodec, func(l *geminiLog) *Fragment {
		return &Fragment{Kind: FragmentGemini, key: session, gemini: l}
	})
}

func geminiMessage(m *document, c *readCtx) {
	e := geminiEntry{at: m.Timestamp.In(c.loc), kind: m.Type.V, model: m.Model.V}
	if m.Type.V == "user" {
		e.prompt = m.Content.Text
		for _, b := range m.Content.Blocks {
			if e.prompt == "" {
				e.prompt = b.Text.V
			}
		}
		e.prompt = clipString(e.prompt, 2000)
	}
	if t := m.Tokens; t != nil {
		// input counts the cached tokens: take them out; thoughts are output.
		e.tokens = model.Tokens{Input: t.Input.Int() + t.Tool.Int() - t.Cached.Int(), CacheRead: t.Cached.Int(), Output: t.Output.Int() + t.Thoughts.Int()}
		e.hasTokens = true
	}
	for _, tc := range m.GeminiToolCalls {
		e.calls = append(e.calls, geminiCall{name: tc.Name.V, status: tc.Status.V})
	}
	c.geminiLog().add(c, e)
}

func joinGemini(frags []*Fragment, owner map[*Fragment]*model.Run, w Warner, emit func(*model.Run)) {
	for fs, entries := range loaded(frags, func(f *Fragment) *geminiLog { return f.gemini }) {
		id := fs[0].key
		r := &model.Run{ID: id, Format: "gemini", Agent: "gemini-cli", Status: model.StatusUnknown, Source: fs[0].Source}
		var first, last time.Time
		perModel := map[string]int64{}
		for _, es := range entries {
			for _, e := range es {
				for _, t := range []time.Time{e.start, e.at, e.lastUpdated} {
					widen(&first, &last, t)
				}
				if r.Request == "" && e.prompt != "" {
					r.Request = e.prompt
				}
				if e.hasTokens {
					r.Tokens.Add(e.tokens)
					perModel[e.model] += e.tokens.Total()
				}
				for _, call := range e.calls {
					tc := model.ToolCall{Name: call.name, Agent: r.Agent, Span: model.Span{Started: e.at}}
					switch strings.ToLower(call.status) {
					case "success":
						tc.Outcome = model.OutcomeOK
					case "error":
						tc.Outcome, tc.Error = model.OutcomeError, "error"
					case "cancelled", "canceled":
						tc.Outcome, tc.Error = model.OutcomeError, "cancelled"
					}
					r.ToolCalls = append(r.ToolCalls, tc)
				}
			}
		}
		for _, f := range fs {
			owner[f] = r
		}
		r.Model = topModel(perModel)
		r.Span = spanOf(first, last, w)
		r.Title = cmpOr(clipString(strings.TrimSpace(r.Request), 120), id)
		emit(r)
	}
}

// Package codex reads OpenAI Codex CLI rollouts, rollout-*.jsonl. The
// envelope form writes {timestamp, type, payload} per line; older CLIs wrote
// the items themselves, after a first line with id, timestamp and
// instructions. A session's entries are joined across files by its join.
package codex

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/join"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/agentstat/agentstat/model"
)

// Format is codex's entry in the registry.
var Format = reader.Format[Doc]{
	Name:      "codex",
	Title:     "Codex CLI rollout (JSONL; envelope {timestamp, type, payload} or the older pre-envelope items)",
	Signature: "a line with timestamp, type and a payload object; or a pre-envelope item (type function_call, message … with call_id or role), or its first line with id and instructions",
	Match: func(d Doc) bool {
		if d.Payload != nil && d.Type.Set {
			return true
		}
		if d.Instructions.Set && d.ID.Set {
			return true // an empty id names no session, but the line is still Codex's
		}
		switch d.Type.V {
		case "function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output", "local_shell_call", "message", "reasoning":
			return d.CallID.Set || d.Role.Set
		}
		return false
	},
	Read: read,
}

// Doc is what codex reads of a document; its payload is a member of the
// union, since Gemini CLI's signature tests its presence.
type Doc struct {
	*reader.Shared
	*Fields
	Payload *Item
}

// Fields are the members only a Codex rollout line has.
type Fields struct {
	Instructions jsonscan.Str `json:"instructions"`
	Name         jsonscan.Str `json:"name"`
	CallID       jsonscan.Str `json:"call_id"`
	Role         jsonscan.Str `json:"role"`
	Output       toolOutput   `json:"output"`
}

// Item is a response item or event: a payload, or a pre-envelope line.
type Item struct {
	Type      jsonscan.Str  `json:"type"`
	ID        jsonscan.Str  `json:"id"`
	Timestamp jsonscan.Time `json:"timestamp"`
	Model     jsonscan.Str  `json:"model"`
	Name      jsonscan.Str  `json:"name"`
	CallID    jsonscan.Str  `json:"call_id"`
	Role      jsonscan.Str  `json:"role"`
	Output    toolOutput    `json:"output"`
	Status    jsonscan.Str  `json:"status"`
	ExitCode  jsonscan.Num  `json:"exit_code"`
	Message   jsonscan.Str  `json:"message"`
	Info      *usageInfo    `json:"info"`
	Cwd       jsonscan.Str  `json:"cwd"`
	Git       *gitInfo      `json:"git"`
	Arguments argsText      `json:"arguments"` // a function call's arguments, JSON in a string
	Input     argsText      `json:"input"`     // a custom tool call's
}

// argsText is a call's arguments as the log writes them, a JSON document in
// a string, kept to argsClip bytes; any other value is passed over.
type argsText struct{ V string }

const argsClip = 4096

func (a *argsText) DecodeFlex(dec *jsontext.Decoder, w jsonscan.Warner, _ json.Options) error {
	if dec.PeekKind() != '"' {
		return dec.SkipValue()
	}
	s, err := jsonscan.ReadStringPrefix(dec, argsClip)
	a.V = s
	return err
}

// gitInfo is session_meta's git: the branch the session worked on.
type gitInfo struct {
	Branch jsonscan.Str `json:"branch"`
}

type usageInfo struct {
	Total *usage `json:"total_token_usage"`
}

type usage struct {
	Input     jsonscan.Num `json:"input_tokens"`
	Cached    jsonscan.Num `json:"cached_input_tokens"`
	Output    jsonscan.Num `json:"output_tokens"`
	Reasoning jsonscan.Num `json:"reasoning_output_tokens"`
}

// toolOutput is a tool output: text (older CLIs put a JSON document with
// metadata.exit_code in it), or structured content. Only the exit code matters.
type toolOutput struct {
	ExitCode jsonscan.Num
}

func (o *toolOutput) DecodeFlex(dec *jsontext.Decoder, w jsonscan.Warner, opts json.Options) error {
	if dec.PeekKind() != '"' {
		return dec.SkipValue()
	}
	raw, err := dec.ReadValue()
	if err != nil {
		return err
	}
	return outputDocument(raw, func(text []byte) {
		if code, warns, ok := rawExitCode(text); ok {
			for _, kind := range warns {
				w.Warn(kind)
			}
			o.ExitCode = code
			return
		}
		var inner outputDoc
		if json.Unmarshal(text, &inner, opts) == nil {
			o.ExitCode = inner.Metadata.ExitCode
		}
	})
}

// outputDocument calls use with the text of a tool output (raw is its
// string token) when that text may be a JSON document with an exit code.
func outputDocument(raw []byte, use func(text []byte)) error {
	// A tool's whole output (most of a rollout's bytes) is only unquoted
	// when it may name an exit code. Escapes other than \u make no letters,
	// so without one the text holds "exit_code" only if the raw bytes do.
	if !bytes.Contains(raw, []byte("exit_code")) && !bytes.Contains(raw, []byte(`\u`)) {
		return nil
	}
	return jsonscan.WithUnquoted(raw, func(text []byte) {
		if bytes.HasPrefix(bytes.TrimSpace(text), []byte("{")) && bytes.Contains(text, []byte("exit_code")) {
			use(text)
		}
	})
}

// ScanFlex reads a call's arguments as DecodeFlex does.
func (a *argsText) ScanFlex(s *jsonscan.Scanner, _ *jsonscan.WarnList) bool {
	if s.Peek() != '"' {
		return s.Skip()
	}
	text, ok := s.Prefix(argsClip)
	a.V = text
	return ok
}

// ScanFlex reads a tool output as DecodeFlex does; an output document only
// the general decoder can read gives up.
func (o *toolOutput) ScanFlex(s *jsonscan.Scanner, w *jsonscan.WarnList) bool {
	if s.Peek() != '"' {
		return s.Skip()
	}
	quoted, ok := s.Quoted()
	if !ok {
		return false
	}
	read := true
	err := outputDocument(quoted, func(text []byte) {
		code, warns, ok := rawExitCode(text)
		if read = ok; ok {
			for _, kind := range warns {
				w.Warn(kind)
			}
			o.ExitCode = code
		}
	})
	return read && err == nil
}

// outputDoc is the JSON document older CLIs wrote as a tool's output.
type outputDoc struct {
	Metadata struct {
		ExitCode jsonscan.Num `json:"exit_code"`
	} `json:"metadata"`
}

// rawExitCode reads a tool output document's metadata.exit_code straight
// from its bytes, as the general decoder reads outputDoc: the output
// text around it (kilobytes) is only validated. Anything else than objects
// down to a number or null gives up (ok false), with no warning given.
func rawExitCode(text []byte) (code jsonscan.Num, warns []string, ok bool) {
	s := jsonscan.Scanner{B: text}
	var w jsonscan.WarnList
	var doc outputDoc
	ok = s.Whole(outputDocPlan, unsafe.Pointer(&doc), &w)
	return doc.Metadata.ExitCode, w.Kinds, ok
}

// outputDocPlan reads an output document, whose output text may repeat a name.
var outputDocPlan = jsonscan.DupOK(jsonscan.PlanOf(reflect.TypeFor[outputDoc]()))

// fileSessions carries what one rollout's earlier lines said to its later ones.
type fileSessions struct {
	session, model string
	logs           map[string]*entryLog // this file's entries, by session
}

// entryLog is one file's entries of one session, in file order: one
// fragment per file and session, not per line (a fragment costs more than
// the entry it would carry).
type entryLog = join.EntryLog[Entry]

type entryKind uint8

const (
	metaEntry entryKind = iota
	callEntry
	outputEntry
	exitEntry
	tokensEntry
	promptEntry
	compactedEntry // the history was summarised to free the context window
)

type Entry struct {
	at           time.Time
	kind         entryKind
	model        string
	name, callID string
	exitCode     jsonscan.Num
	tokens       model.Tokens // running total, for kind tokens
	prompt       string
	cwd, branch  string // session_meta's
	input        string // a call's key argument
}

// add files e under session, emitting the file's fragment for that session
// the first time it appears.
func (st *fileSessions) add(c *reader.Ctx, session string, e Entry) {
	reader.LogFor(c, &st.logs, session, codec, func(l *entryLog) *join.Fragment {
		return &join.Fragment{Kind: join.FragmentCodex, Key: session, Records: l}
	}).Push(c.Spill, e)
}

func read(d Doc, c *reader.Ctx) {
	st := reader.FileState(c, func() *fileSessions { return &fileSessions{session: c.FallbackID()} })
	at := d.Timestamp.In(c.Loc)
	item := d.Payload
	if item == nil { // a pre-envelope line is the item itself
		item = &Item{Type: d.Type, ID: d.ID, Name: d.Name, CallID: d.CallID, Role: d.Role, Output: d.Output}
	}
	switch {
	case d.Type.V == "session_meta" && d.Payload != nil && d.Payload.ID.V != "":
		st.session = d.Payload.ID.V
		start := d.Payload.Timestamp.In(c.Loc) // the session starts here, before its first item
		if start.IsZero() {
			start = at
		}
		meta := Entry{at: start, kind: metaEntry, cwd: d.Payload.Cwd.V}
		if g := d.Payload.Git; g != nil {
			meta.branch = g.Branch.V
		}
		st.add(c, st.session, meta)
		return
	case d.Instructions.Set && d.ID.V != "": // the pre-envelope first line
		st.session = d.ID.V
		return
	case d.Type.V == "compacted":
		st.add(c, st.session, Entry{at: at, kind: compactedEntry})
		return
	case d.Type.V == "turn_context" && d.Payload != nil:
		if m := d.Payload.Model.V; m != "" {
			st.model = m
		}
		return
	}
	e := Entry{model: st.model, at: at}
	switch item.Type.V {
	case "function_call", "custom_tool_call", "local_shell_call":
		e.kind, e.name, e.callID = callEntry, item.Name.V, cmp.Or(item.CallID.V, item.ID.V)
		e.input = reader.ArgsInput(cmp.Or(item.Arguments.V, item.Input.V))
		if e.name == "" {
			e.name = item.Type.V
		}
	case "function_call_output", "custom_tool_call_output":
		e.kind, e.callID, e.exitCode = outputEntry, item.CallID.V, item.Output.ExitCode
	case "exec_command_end":
		e.kind, e.callID, e.exitCode = exitEntry, item.CallID.V, item.ExitCode
	case "token_count":
		if item.Info == nil || item.Info.Total == nil {
			return
		}
		u := item.Info.Total
		e.kind = tokensEntry
		// Cached input is inside input_tokens here: subtract it so kinds never overlap.
		e.tokens = model.Tokens{Input: u.Input.Int() - u.Cached.Int(), CacheRead: u.Cached.Int(), Output: u.Output.Int()}
	case "user_message":
		e.kind, e.prompt = promptEntry, reader.ClipString(item.Message.V, 2000)
	default:
		return
	}
	st.add(c, st.session, e)
}

// joinSessions builds one run per Codex session. Token counts are the deltas of
// the running total, so an event written twice adds nothing.
func joinSessions(frags []*join.Fragment, w jsonscan.Warner, emit func(*model.Run, []*join.Fragment)) {
	for fs, entries := range join.Loaded[Entry](frags) {
		id := fs[0].Key
		r := &model.Run{ID: id, Format: "codex", Agent: "codex", Status: model.StatusUnknown, Source: fs[0].Source}
		var first, last time.Time
		var prev model.Tokens
		perModel := map[string]int64{}
		exits := map[string]jsonscan.Num{}
		outputs := map[string]time.Time{}
		for _, es := range entries {
			for i := range es {
				e := &es[i]
				reader.Widen(&first, &last, e.at)
				switch e.kind {
				case tokensEntry:
					cur := e.tokens
					delta := model.Tokens{Input: cur.Input - prev.Input, Output: cur.Output - prev.Output, CacheRead: cur.CacheRead - prev.CacheRead}
					if delta.Input < 0 || delta.Output < 0 || delta.CacheRead < 0 {
						delta = cur // the running total restarted
					}
					prev = cur
					if delta.Total() > 0 {
						r.AddRequest(model.Request{Model: e.model, At: e.at, Tokens: delta})
					}
					perModel[e.model] += delta.Total()
				case compactedEntry:
					r.Context.Compactions++
				case metaEntry:
					r.Project, r.Branch = cmp.Or(r.Project, e.cwd), cmp.Or(r.Branch, e.branch)
				case promptEntry:
					if r.Request == "" {
						r.Request = e.prompt
					}
				case outputEntry:
					if _, ok := outputs[e.callID]; !ok {
						outputs[e.callID] = e.at
					}
					if e.exitCode.Set {
						exits[e.callID] = e.exitCode
					}
				case exitEntry:
					if e.exitCode.Set {
						exits[e.callID] = e.exitCode
					}
				}
			}
		}
		for _, es := range entries {
			for i := range es {
				e := &es[i]
				if e.kind != callEntry {
					continue
				}
				call := model.ToolCall{Name: e.name, Input: e.input, Agent: r.Agent, Span: model.Span{Started: e.at}}
				if end, ok := outputs[e.callID]; ok {
					call.Span = reader.SpanOf(e.at, end, w)
					call.Outcome = model.OutcomeOK
				}
				if code, ok := exits[e.callID]; ok {
					if code.V != 0 {
						call.Outcome, call.Error = model.OutcomeError, "exit code "+trimFloat(code.V)
					} else {
						call.Outcome = model.OutcomeOK
					}
				}
				r.ToolCalls = append(r.ToolCalls, call)
			}
		}
		r.Model = reader.TopModel(perModel)
		r.Span = reader.SpanOf(first, last, w)
		r.Title = reader.ClipString(strings.TrimSpace(r.Request), 120)
		if r.Title == "" {
			r.Title = id
		}
		emit(r, fs)
	}
}

func trimFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func init() { join.RegisterEntries(join.FragmentCodex, codec, joinSessions) }

var codec = &join.EntryCodec[Entry]{
	Encode: func(b []byte, e *Entry, loc *time.Location) []byte {
		b = recordspill.AppendTime(b, e.at, loc)
		b = append(b, byte(e.kind))
		b = recordspill.AppendText(b, e.model)
		b = recordspill.AppendText(b, e.name)
		b = recordspill.AppendText(b, e.callID)
		b = recordspill.AppendBool(b, e.exitCode.Set)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(e.exitCode.V))
		b = recordspill.AppendTokens(b, &e.tokens)
		b = recordspill.AppendText(b, e.cwd)
		b = recordspill.AppendText(b, e.branch)
		b = recordspill.AppendText(b, e.input)
		return recordspill.AppendText(b, e.prompt)
	},
	Decode: func(r *recordspill.Reader, loc *time.Location) (e Entry) {
		e.at = r.Time(loc)
		e.kind = entryKind(r.Take(1)[0])
		e.model, e.name, e.callID = r.Text(), r.Text(), r.Text()
		e.exitCode.Set = r.Bool()
		e.exitCode.V = math.Float64frombits(r.U64())
		e.tokens = r.Tokens()
		e.cwd, e.branch, e.input = r.Text(), r.Text(), r.Text()
		e.prompt = r.Text()
		return e
	},
	Withhold: func(e *Entry) { join.WithholdText(&e.prompt, &e.input) },
}

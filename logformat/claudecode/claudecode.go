// Package claudecode reads Claude Code transcripts, ~/.claude/projects/<project>/<session>.jsonl
// and <session>/subagents/agent-*.jsonl. Every line is an entry; entries are
// joined across the whole tree by sessionId into one run per session.
package claudecode

import (
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/join"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/agentstat/agentstat/model"
)

// Format is claudecode's entry in the registry.
var Format = reader.Format[Doc]{
	Name:      "claudecode",
	Title:     "Claude Code transcript (JSONL, one entry per line; one run per session id, subagents included)",
	Signature: "a line with type and sessionId (user, assistant, system, progress … entries), or a summary / file-history-snapshot line",
	Match: func(d Doc) bool {
		return d.Type.Set && (d.SessionIDCamel.Set || d.LeafUUID.Set || d.Type.V == "file-history-snapshot")
	},
	Read: read,
}

// Doc is what claudecode reads of a document; its message is a member of
// the union, since Gemini CLI's entries have one too.
type Doc struct {
	*reader.Shared
	*Fields
	Message *reader.Message
}

// Fields are the members only a Claude Code transcript entry has.
type Fields struct {
	UUID          jsonscan.Str       `json:"uuid"`
	LeafUUID      jsonscan.Str       `json:"leafUuid"`
	RequestID     jsonscan.Str       `json:"requestId"`
	ToolUseResult toolUseResultField `json:"toolUseResult"`
	IsSidechain   *bool              `json:"isSidechain"`
	IsAPIError    *bool              `json:"isApiErrorMessage"`
	IsMeta        bool               `json:"isMeta"`
	AgentID       jsonscan.Str       `json:"agentId"`
	Subtype       jsonscan.Str       `json:"subtype"` // system entries: compact_boundary
	Cwd           jsonscan.Str       `json:"cwd"`
	GitBranch     jsonscan.Str       `json:"gitBranch"`
	Data          progressData       `json:"data"` // progress entries: a subagent's message (agent_progress)
}

// agentProgress is a progress entry's data: with type agent_progress, one
// message of a subagent as its own transcript has it.
type agentProgress struct {
	Type    jsonscan.Str   `json:"type"`
	AgentID jsonscan.Str   `json:"agentId"`
	Message *nestedMessage `json:"message"`
}

// progressData is a top-level "data": Claude Code's progress data when it
// is an object, passed over silently otherwise (other formats use the name).
type progressData struct{ P *agentProgress }

func (p *progressData) DecodeFlex(dec *jsontext.Decoder, _ jsonscan.Warner, opts json.Options) error {
	if dec.PeekKind() != '{' {
		return dec.SkipValue()
	}
	p.P = new(agentProgress)
	return json.UnmarshalDecode(dec, p.P, opts)
}

type nestedMessage struct {
	Type      jsonscan.Str    `json:"type"`
	UUID      jsonscan.Str    `json:"uuid"`
	Timestamp jsonscan.Time   `json:"timestamp"`
	RequestID jsonscan.Str    `json:"requestId"`
	Message   *reader.Message `json:"message"`
}

// toolUseResultField is an entry's toolUseResult: an object, or a string
// (an error text, or "User rejected tool use").
type toolUseResultField struct {
	Text        string
	DurationMS  jsonscan.Num
	Interrupted bool
	AgentID     string // the subagent a Task call started
	Set         bool
}

// toolResultObject is what a toolUseResult object tells; the rest of it
// is the tool's output.
type toolResultObject struct {
	DurationMS  jsonscan.Num `json:"durationMs"`
	Interrupted *bool        `json:"interrupted"`
	AgentID     jsonscan.Str `json:"agentId"`
}

func (t *toolUseResultField) set(o *toolResultObject) {
	t.DurationMS, t.Interrupted, t.AgentID, t.Set = o.DurationMS, o.Interrupted != nil && *o.Interrupted, o.AgentID.V, true
}

func (t *toolUseResultField) DecodeFlex(dec *jsontext.Decoder, w jsonscan.Warner, opts json.Options) error {
	switch dec.PeekKind() {
	case '"':
		text, err := jsonscan.ReadStringPrefix(dec, reader.ErrorClip+1)
		if err != nil {
			return err
		}
		t.Text, t.Set = reader.ClipString(text, reader.ErrorClip), true
		return nil
	case '{':
		var o toolResultObject
		if err := json.UnmarshalDecode(dec, &o, opts); err != nil {
			return err
		}
		t.set(&o)
		return nil
	}
	return dec.SkipValue()
}

// fileSession is what one file says about one session. A transcript can run
// to hundreds of MB, so each line is kept as a small fixed-size value
// (lineRecord) with what only some lines have (usage, tool uses and results,
// prompts) in tables beside it; a line that adds nothing but its time
// (progress, system and text-only lines) only widens the file's span.
type fileSession struct {
	lines       []lineRecord
	uuids       []reader.Digest // of each line, zero for none: only the join's dedupe reads them
	usages      []msgUsage
	uses        []toolUse
	results     []toolResult
	prompts     []string
	words       []string  // agent ids, tool names, models, error texts: each once; 0 is ""
	quiet       bool      // some main-chain line was folded into first/last
	first, last time.Time // earliest (a missing time counts as earliest) and latest of those lines
	cwd, branch string    // of its first line that names them: the session's project
	wordIdx     map[string]int32
	loc         *time.Location // the zone of its lines' times

	// With a spill, a long file's records go to disk in segments as they
	// come; indexes into the tables count what is there too (base).
	spill    *recordspill.File
	segments []recordspill.Ref
	base     tableBase
	noFlush  bool // a segment failed to write: the rest stays in memory
}

// tableBase is how many entries of each table earlier segments hold.
type tableBase struct{ usages, uses, results, prompts int32 }

// word is the index of s in the file's string table, adding it once: a
// string in a record is an index, as names repeat on every line and a
// long session's records are the peak of memory at its join.
func (f *fileSession) word(s string) int32 {
	if s == "" {
		return 0
	}
	if i, ok := f.wordIdx[s]; ok {
		return i
	}
	if f.wordIdx == nil {
		f.wordIdx, f.words = map[string]int32{}, []string{""}
	}
	f.words = append(f.words, s)
	f.wordIdx[s] = int32(len(f.words) - 1)
	return int32(len(f.words) - 1)
}

// wordAt is the string at index i of the table.
func (f *fileSession) wordAt(i int32) string {
	if i == 0 {
		return ""
	}
	return f.words[i]
}

// lineRecord is what one transcript line contributes.
type lineRecord struct {
	// The line's time, in its file's zone (loc), as Unix seconds and
	// nanoseconds: a time.Time holds a pointer, and a long session's
	// lines are the bulk of the heap the collector scans at its join.
	sec               int64
	nsec              int32 // the nanoseconds, and sidechainBit: 40 bytes a line rather than 48 with a bool
	agent             int32 // index in words
	usage, prompt     int32 // index+1 in usages, prompts; 0 for none
	usesLo, resultsLo int32 // first index in uses, results
	nUses, nResults   int32
}

// sidechainBit marks a sidechain's line in lineRecord.nsec, above any
// nanosecond count; compactBit (the sign bit) a compaction's.
const (
	sidechainBit int32 = 1 << 30
	compactBit   int32 = -1 << 31
)

func (l *lineRecord) nanos() int32     { return l.nsec &^ (sidechainBit | compactBit) }
func (l *lineRecord) sidechain() bool  { return l.nsec&sidechainBit != 0 }
func (l *lineRecord) setSidechain()    { l.nsec |= sidechainBit }
func (l *lineRecord) compaction() bool { return l.nsec&compactBit != 0 }
func (l *lineRecord) setCompaction()   { l.nsec |= compactBit }

// msgUsage is a message's token use; it counts once per key (message id
// and request id), the largest copy winning.
type msgUsage struct {
	key    reader.Digest
	tokens model.Tokens
	model  int32 // index in words
}

// entry is one line of one file, as the join sees it.
type entry struct {
	f *fileSession
	*lineRecord
}

func (e entry) agentID() string { return e.f.wordAt(e.agent) }
func (e entry) at() time.Time   { return time.Unix(e.sec, int64(e.nanos())).In(e.f.loc) }
func (e entry) uses() []toolUse { return e.f.uses[e.usesLo : e.usesLo+e.nUses] }
func (e entry) results() []toolResult {
	return e.f.results[e.resultsLo : e.resultsLo+e.nResults]
}
func (e entry) use(k int32) *toolUse       { return &e.f.uses[e.usesLo+k] }
func (e entry) result(k int32) *toolResult { return &e.f.results[e.resultsLo+k] }

func (e entry) usageOf() *msgUsage {
	if e.usage == 0 {
		return nil
	}
	return &e.f.usages[e.usage-1]
}

func (e entry) promptOf() string {
	if e.prompt == 0 {
		return ""
	}
	return e.f.prompts[e.prompt-1]
}

// Tool-use ids only pair calls with results: they are kept as digests (zero
// for none), which a 150,000-call session holds far more cheaply than strings.
type toolUse struct {
	id                    reader.Digest
	name, subagent, input int32 // indexes in words
}

type toolResult struct {
	useID                             reader.Digest
	durationMS                        float64
	text, agentID                     int32 // indexes in words
	hasDuration, isError, interrupted bool
}

func read(d Doc, c *reader.Ctx) {
	if !d.SessionIDCamel.Set || d.SessionIDCamel.V == "" {
		return // a summary or snapshot line: nothing to count
	}
	f := fileSessionOf(c, d.SessionIDCamel.V)
	if f.cwd == "" {
		f.cwd = d.Cwd.V
	}
	if f.branch == "" {
		f.branch = d.GitBranch.V
	}
	at := d.Timestamp.In(c.Loc)
	l := lineRecord{sec: at.Unix(), nsec: int32(at.Nanosecond()), agent: f.word(d.AgentID.V), usesLo: f.base.uses + int32(len(f.uses)), resultsLo: f.base.results + int32(len(f.results))}
	if d.IsSidechain != nil && *d.IsSidechain {
		l.setSidechain()
	}
	if d.Type.V == "system" && d.Subtype.V == "compact_boundary" {
		l.setCompaction()
	}
	apiError := d.IsAPIError != nil && *d.IsAPIError
	prompt := ""
	if m := d.Message; m != nil {
		if m.Usage != nil && m.Model.V != "<synthetic>" && !apiError {
			u := msgUsage{model: f.word(m.Model.V), key: reader.DigestOf("msg", m.ID.V, d.RequestID.V),
				tokens: model.Tokens{Input: m.Usage.Input.Int(), Output: m.Usage.Output.Int(), CacheRead: m.Usage.CacheRead.Int(), CacheCreation: m.Usage.CacheCreation.Int()}}
			if ttl := m.Usage.CacheTTL; ttl != nil {
				u.tokens.CacheCreation1h = min(ttl.OneHour.Int(), u.tokens.CacheCreation)
			}
			if m.ID.V == "" {
				u.key = reader.DigestOf("uuid", d.UUID.V)
			}
			f.usages = append(f.usages, u)
			l.usage = f.base.usages + int32(len(f.usages))
		}
		if d.Type.V == "user" && !d.IsMeta {
			prompt = m.Content.Text
		}
		for _, b := range m.Content.Blocks {
			switch b.Type.V {
			case "tool_use":
				u := toolUse{id: reader.IDDigest(b.ID.V), name: f.word(b.Name.V)}
				if b.Input != nil {
					u.subagent, u.input = f.word(b.Input.SubagentType.V), f.word(b.Input.Key())
				}
				f.uses = append(f.uses, u)
				l.nUses++
			case "tool_result":
				r := toolResult{useID: reader.IDDigest(b.ToolUseID.V), isError: b.IsError != nil && *b.IsError}
				if tur := d.ToolUseResult; tur.Set {
					r.durationMS, r.hasDuration = tur.DurationMS.V, tur.DurationMS.Set
					r.interrupted, r.agentID = tur.Interrupted, f.word(tur.AgentID)
					if r.isError || isErrorText(tur.Text) {
						r.text = f.word(tur.Text) // only an error's text is ever shown
					}
				}
				f.results = append(f.results, r)
				l.nResults++
			case "text":
				if d.Type.V == "user" && prompt == "" && !d.IsMeta {
					prompt = reader.ClipString(b.Text.V, reader.PromptClip)
				}
			}
		}
	}
	if prompt != "" {
		prompt = commandPrompt(prompt)
	}
	if prompt != "" {
		f.prompts = append(f.prompts, prompt)
		l.prompt = f.base.prompts + int32(len(f.prompts))
	}
	if p := d.Data.P; p != nil && p.Type.V == "agent_progress" && p.Message != nil && p.Message.Message != nil {
		defer readSubagentProgress(d, c)
	}
	if l.usage == 0 && l.prompt == 0 && l.nUses == 0 && l.nResults == 0 && !l.sidechain() && l.agent == 0 && !l.compaction() {
		// Only its time counts, and counting a time twice changes nothing.
		if !f.quiet || at.Before(f.first) {
			f.first = at
		}
		if !f.quiet || at.After(f.last) {
			f.last = at
		}
		f.quiet = true
		return
	}
	f.lines, f.uuids = append(f.lines, l), append(f.uuids, reader.IDDigest(d.UUID.V))
	if f.spill != nil && !f.noFlush && len(f.lines) >= join.SegmentLines {
		flushTables(f.spill, f)
	}
}

// readSubagentProgress reads the subagent message a progress entry carries
// as the line of the subagent's transcript it copies: its uuid and usage key
// make it count once with that line when the subagent's file is there too.
func readSubagentProgress(d Doc, c *reader.Ctx) {
	n := d.Data.P.Message
	side := true
	sub := Doc{Shared: &reader.Shared{Type: n.Type, SessionIDCamel: d.SessionIDCamel, Timestamp: n.Timestamp}, Message: n.Message,
		Fields: &Fields{UUID: n.UUID, RequestID: n.RequestID, IsSidechain: &side, AgentID: d.Data.P.AgentID}}
	if !sub.Timestamp.Set {
		sub.Timestamp = d.Timestamp
	}
	read(sub, c)
}

// commandPrompt is a prompt as its user typed it: a slash command's markup
// (<command-name>/init</command-name><command-args>…) reads as "/init …",
// and a local command's output or caveat is no prompt at all ("").
func commandPrompt(text string) string {
	trimmed := strings.TrimSpace(text)
	if strings.HasPrefix(trimmed, "<local-command-") || strings.HasPrefix(trimmed, "<bash-") {
		return ""
	}
	name, ok := between(text, "<command-name>", "</command-name>")
	if !ok {
		return text
	}
	name = "/" + strings.TrimPrefix(strings.TrimSpace(name), "/")
	args, _ := between(text, "<command-args>", "</command-args>")
	return strings.TrimSpace(name + " " + strings.TrimSpace(args))
}

// between is the text between the first open and the close after it.
func between(s, open, close string) (string, bool) {
	_, rest, ok := strings.Cut(s, open)
	if !ok {
		return "", false
	}
	in, _, ok := strings.Cut(rest, close)
	return in, ok
}

func isErrorText(s string) bool {
	return strings.HasPrefix(s, "User rejected") || strings.HasPrefix(s, "Error")
}

// fileSessionOf returns the current file's record of a session, emitting it
// as a fragment the first time the session appears in the file.
func fileSessionOf(c *reader.Ctx, session string) *fileSession {
	sessions := *reader.FileState(c, func() *fileSessions { return &fileSessions{} })
	if f := sessions[session]; f != nil {
		return f
	}
	f := &fileSession{spill: c.Spill, loc: c.Loc}
	sessions[session] = f
	log := &sessionLog{claude: f}
	c.AtEnd(log)
	c.Fragment(&join.Fragment{Kind: join.FragmentClaude, Key: session, Records: log})
	return f
}

// fileSessions are the Claude Code sessions of the file being read.
type fileSessions map[string]*fileSession

// sessionLog is a Claude Code fragment's records: the file's record of its
// session in memory, or, once the file's end was put on the spill, its
// segments there.
type sessionLog struct {
	claude *fileSession      // nil while its records are all on the spill
	spill  *recordspill.File // where they are while nobody needs them (nil: in memory)
	refs   []recordspill.Ref // its segments on the spill, the last with the file's header
}

func logOf(f *join.Fragment) *sessionLog { return f.Records.(*sessionLog) }

// FlushTo puts the records the file still holds of the session on the spill,
// at the file's end.
func (l *sessionLog) FlushTo(s *recordspill.File, _ bool) { putRecords(s, l) }

// WireSegments are the records of a transcript file, the last with its
// header, whether its end reached the spill or stayed in memory; with
// noText, all of them (their texts withheld) as one.
func (l *sessionLog) WireSegments(loc *time.Location, noText bool) ([]join.Segment, int) {
	if noText {
		cf := l.wholeClaude()
		withhold(cf)
		return []join.Segment{segmentOf(cf, loc)}, 0
	}
	var segs []join.Segment
	if l.spill != nil {
		for _, ref := range l.refs {
			segs = append(segs, join.Segment{Ref: ref, From: l.spill})
		}
		return segs, 0
	}
	cf := l.claude
	for _, ref := range cf.segments {
		segs = append(segs, join.Segment{Ref: ref, From: cf.spill})
	}
	return append(segs, segmentOf(cf, loc)), 0
}

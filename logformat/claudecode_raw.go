package logformat

// Half a transcript's bytes are payload text the metrics never read, and
// jsontext skips it at 400-500 MB/s, decoding each character of Chinese
// text through utf8.DecodeRune. decodeLineRaw reads a plain Claude Code
// or Codex line straight from its bytes: the same fields as the general
// decoder, into the same document,
// with the same warnings, skipping payload values with a validator that
// tests eight bytes at a time. It accepts only what it is sure of: any
// doubt (a value of an unexpected kind, a surrogate escape, deep nesting, a
// byte JSON forbids) and it gives up, and the line takes the reflective
// path. What it accepts, jsontext would accept too: a differential test and
// a fuzz target hold the paths equal. It exists because it reads the full
// set 1.7 times as fast; it can go when a general JSON decoder skips
// unread values at its speed.

// rawScan reads one line.
type rawScan struct {
	b     []byte
	i     int
	more  bool       // b is a window on a stream that goes on past its end
	asIs  bool       // b is not clamped: a string or number the clamp would change gives up
	arena *lineArena // where messages and blocks go; nil: the heap

	// A message's texts are read only for a user's line (a prompt): once
	// a line's type says it is another's, they are skipped (a second type
	// gives up, as any repeated member of a line does).
	noTexts bool
}

// lineArena holds the messages and content blocks the raw path decodes
// for a chunk's lines, in slabs reused chunk after chunk: a new message
// and a block slice grown from nothing, for each of a transcript's lines,
// were half the bytes the raw path allocated. The documents that point
// into it must be done with before reset (see lineChunk.reset).
type lineArena struct {
	msgs   []claudeMessage
	blocks []claudeBlock
}

func (a *lineArena) reset() {
	clear(a.msgs)
	clear(a.blocks)
	a.msgs, a.blocks = a.msgs[:0], a.blocks[:0]
}

// message is a zero message of the arena.
func (a *lineArena) message() *claudeMessage {
	if len(a.msgs) == cap(a.msgs) {
		// A new slab, not a copy: earlier lines point into the last one.
		a.msgs = make([]claudeMessage, 0, max(256, 2*cap(a.msgs)))
	}
	a.msgs = a.msgs[:len(a.msgs)+1]
	return &a.msgs[len(a.msgs)-1]
}

// maxRawDepth bounds the skipper's nesting (jsontext allows 10,000): deeper
// lines take the reflective path.
const maxRawDepth = 64

// decodeLineRaw decodes line into d, reporting false when it gives up
// (d and w are then dirty).
func decodeLineRaw(line []byte, d *document, w *warnList, a *lineArena) bool {
	return decodeRaw(rawScan{b: line, arena: a}, d, w)
}

// decodeRaw is decodeLineRaw with s set up by the caller.
func decodeRaw(s rawScan, d *document, w *warnList) bool {
	w.kinds = w.kinds[:0]
	if s.ws(); !s.object(false, func(key string) bool { return s.topField(key, d, w) }) {
		return false
	}
	s.ws()
	return s.i == len(s.b)
}

func (s *rawScan) topField(key string, d *document, w *warnList) bool {
	switch key {
	case "type":
		return s.str(&d.Type)
	case "sessionId":
		return s.str(&d.SessionIDCamel)
	case "uuid":
		return s.str(&d.UUID)
	case "leafUuid":
		return s.str(&d.LeafUUID)
	case "requestId":
		return s.str(&d.RequestID)
	case "agentId":
		return s.str(&d.AgentID)
	case "subtype":
		return s.str(&d.Subtype)
	case "cwd":
		return s.str(&d.Cwd)
	case "gitBranch":
		return s.str(&d.GitBranch)
	case "data":
		if s.peek() != '{' {
			return s.skip()
		}
		return rawPtr(s, &d.Data.P, func(p *claudeProgress) bool { return s.progress(p, w) })
	case "timestamp":
		return s.time(&d.Timestamp, w)
	case "isSidechain":
		return s.boolPtr(&d.IsSidechain)
	case "isApiErrorMessage":
		return s.boolPtr(&d.IsAPIError)
	case "isMeta":
		return s.bool(&d.IsMeta)
	case "toolUseResult":
		return s.toolUseResult(&d.ToolUseResult, w)
	case "message":
		if s.arena != nil && d.Message == nil && s.peek() == '{' {
			d.Message = s.arena.message()
		}
		s.noTexts = d.Type.Set && d.Type.V != "user"
		ok := rawPtr(s, &d.Message, func(m *claudeMessage) bool { return s.message(m, w) })
		s.noTexts = false
		return ok
	case "payload": // Codex: an envelope line
		return rawPtr(s, &d.Payload, func(it *codexItem) bool { return s.codexItem(it, w) })
	case "id": // and a pre-envelope line's, a document's (a number in planexec's)
		return s.strFlex(&d.ID)
	case "instructions":
		return s.str(&d.Instructions)
	case "name":
		return s.str(&d.Name)
	case "call_id":
		return s.str(&d.CallID)
	case "role":
		return s.str(&d.Role)
	case "output":
		return s.codexOutput(&d.Output, w)
	case "resourceSpans": // OTel: an OTLP/JSON trace export
		return s.resourceSpans(&d.ResourceSpans, w)
	}
	if documentKeys[key] {
		if ok, read := s.sessionField(key, d, w); read { // a session document (STD-001)
			return ok
		}
		if ok, read := s.planexecField(key, d, w); read { // a PlanExecutionRecord
			return ok
		}
		if ok, read := s.geminiField(key, d, w); read { // a Gemini CLI session, or one of its lines
			return ok
		}
		return false // a field of another format
	}
	return s.skip()
}

// progress reads a progress entry's data: a subagent's message, nested.
func (s *rawScan) progress(p *claudeProgress, w *warnList) bool {
	return s.object(false, func(key string) bool {
		switch key {
		case "type":
			return s.str(&p.Type)
		case "agentId":
			return s.str(&p.AgentID)
		case "message":
			return rawPtr(s, &p.Message, func(n *claudeNested) bool {
				return s.object(false, func(key string) bool {
					switch key {
					case "type":
						return s.str(&n.Type)
					case "uuid":
						return s.str(&n.UUID)
					case "timestamp":
						return s.time(&n.Timestamp, w)
					case "requestId":
						return s.str(&n.RequestID)
					case "message":
						noTexts := s.noTexts
						s.noTexts = n.Type.Set && n.Type.V != "user"
						ok := rawPtr(s, &n.Message, func(m *claudeMessage) bool { return s.message(m, w) })
						s.noTexts = noTexts
						return ok
					}
					return s.skip()
				})
			})
		}
		return s.skip()
	})
}

// content reads a message's content as claudeContent.decodeFlex does: text
// (clipped), blocks or null; any other kind gives up.
func (s *rawScan) content(c *claudeContent, w *warnList) bool {
	switch s.peek() {
	case '[':
		return s.blocks(&c.Blocks, w)
	case '"':
		if s.noTexts {
			return s.skipString()
		}
		text, ok := s.prefix(promptClip + 1)
		c.Text = clipString(text, promptClip)
		return ok
	}
	return s.null()
}

func (s *rawScan) message(m *claudeMessage, w *warnList) bool {
	return s.object(false, func(key string) bool {
		switch key {
		case "id":
			return s.str(&m.ID)
		case "model":
			return s.str(&m.Model)
		case "role":
			return s.str(&m.Role)
		case "content":
			return s.content(&m.Content, w)
		case "usage":
			return rawPtr(s, &m.Usage, func(u *claudeUsageField) bool {
				return s.object(false, func(key string) bool {
					switch key {
					case "input_tokens":
						return s.num(&u.Input, w)
					case "output_tokens":
						return s.num(&u.Output, w)
					case "cache_creation_input_tokens":
						return s.num(&u.CacheCreation, w)
					case "cache_read_input_tokens":
						return s.num(&u.CacheRead, w)
					case "cache_creation":
						return rawPtr(s, &u.CacheTTL, func(c *claudeCacheCreation) bool {
							return s.object(false, func(key string) bool {
								if key == "ephemeral_1h_input_tokens" {
									return s.num(&c.OneHour, w)
								}
								return s.skip()
							})
						})
					}
					return s.skip()
				})
			})
		}
		return s.skip()
	})
}

func (s *rawScan) blocks(blocks *[]claudeBlock, w *warnList) bool {
	s.i++ // '['
	if *blocks == nil {
		*blocks = []claudeBlock{}
	}
	*blocks = (*blocks)[:0]
	start := 0 // where this line's blocks begin in the arena
	if s.arena != nil {
		if s.arena.blocks == nil {
			s.arena.blocks = make([]claudeBlock, 0, 1024)
		}
		start, *blocks = len(s.arena.blocks), s.arena.blocks
	}
	for first := true; ; first = false {
		if s.ws(); s.peek() == ']' {
			s.i++
			if s.arena != nil {
				s.arena.blocks = *blocks
				*blocks = (*blocks)[start:len(*blocks):len(*blocks)] // an append would not reach the next line's
			}
			return true
		}
		if !first && !s.comma() {
			return false
		}
		var b claudeBlock
		switch s.peek() {
		case '{':
			ok := s.object(false, func(key string) bool {
				switch key {
				case "type":
					return s.str(&b.Type)
				case "id":
					return s.str(&b.ID)
				case "name":
					return s.str(&b.Name)
				case "tool_use_id":
					return s.str(&b.ToolUseID)
				case "text":
					if s.peek() != '"' {
						return s.str(&b.Text.Str)
					}
					if s.noTexts {
						return s.skipString()
					}
					text, ok := s.prefix(promptClip + 1)
					b.Text.Str = Str{V: text, Set: true}
					return ok
				case "is_error":
					return s.boolPtr(&b.IsError)
				case "input":
					return s.toolInput(&b.Input)
				}
				return s.skip()
			})
			if !ok {
				return false
			}
		case 'n':
			if !s.null() {
				return false
			}
		default:
			return false
		}
		*blocks = append(*blocks, b)
	}
}

func (s *rawScan) toolUseResult(t *toolUseResultField, w *warnList) bool {
	switch s.peek() {
	case '"':
		text, ok := s.prefix(errorClip + 1)
		t.Text, t.Set = clipString(text, errorClip), true
		return ok
	case '{':
		var duration Num
		var interrupted *bool
		var agentID Str
		ok := s.object(true, func(key string) bool {
			switch key {
			case "durationMs":
				return s.num(&duration, w)
			case "interrupted":
				return s.boolPtr(&interrupted)
			case "agentId":
				return s.str(&agentID)
			}
			return s.skip()
		})
		t.DurationMS, t.Interrupted, t.AgentID, t.Set = duration, interrupted != nil && *interrupted, agentID.V, true
		return ok
	}
	return s.skip()
}

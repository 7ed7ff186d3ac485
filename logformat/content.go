package logformat

import (
	"reflect"
	"unsafe"

	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Messages and their content as Anthropic's API writes them (a content is
// a text, or a list of blocks), which Claude Code transcripts and Gemini
// CLI sessions share, the input of a tool call, how much of each text a
// reader keeps, and the arena the raw scanner takes messages and blocks
// from.

// apiMessage is a message as Anthropic's Messages API writes it, in a
// Claude Code transcript line (and, by its presence, what tells such a
// line from a Gemini CLI message).
type apiMessage struct {
	ID      jsonscan.Str   `json:"id"`
	Model   jsonscan.Str   `json:"model"`
	Role    jsonscan.Str   `json:"role"`
	Content messageContent `json:"content"`
	Usage   *apiUsage      `json:"usage"`
}

// apiUsage is a message's token usage.
type apiUsage struct {
	Input         jsonscan.Num      `json:"input_tokens"`
	Output        jsonscan.Num      `json:"output_tokens"`
	CacheCreation jsonscan.Num      `json:"cache_creation_input_tokens"`
	CacheRead     jsonscan.Num      `json:"cache_read_input_tokens"`
	CacheTTL      *apiCacheCreation `json:"cache_creation"`
}

// apiCacheCreation splits cache writes by TTL; the rest of
// cache_creation_input_tokens is 5-minute writes.
type apiCacheCreation struct {
	OneHour jsonscan.Num `json:"ephemeral_1h_input_tokens"`
}

// messageContent is a message's content: plain text, or a list of blocks.
type messageContent struct {
	Text   string
	Blocks []contentBlock
}

func (c *messageContent) DecodeFlex(dec *jsontext.Decoder, w Warner, opts json.Options) error {
	switch dec.PeekKind() {
	case '"':
		text, err := jsonscan.ReadStringPrefix(dec, promptClip+1)
		if err != nil {
			return err
		}
		c.Text = reader.ClipString(text, promptClip)
		return nil
	case '[':
		return json.UnmarshalDecode(dec, &c.Blocks, opts)
	case 'n':
		return dec.SkipValue()
	}
	w.Warn(reader.WarnTypeMismatch)
	return dec.SkipValue()
}

// ScanFlex reads a message's content as DecodeFlex does: text (clipped),
// blocks or null; any other kind gives up.
func (c *messageContent) ScanFlex(s *jsonscan.Scanner, w *jsonscan.WarnList) bool {
	switch s.Peek() {
	case '[':
		return scanBlocks(s, &c.Blocks, w)
	case '"':
		text, ok := s.Prefix(promptClip + 1)
		c.Text = reader.ClipString(text, promptClip)
		return ok
	}
	return s.Null()
}

// contentBlock is one block of a message's content: a text, a tool's use
// or a tool's result.
type contentBlock struct {
	Type      jsonscan.Str `json:"type"`
	ID        jsonscan.Str `json:"id"`
	Name      jsonscan.Str `json:"name"`
	ToolUseID jsonscan.Str `json:"tool_use_id"`
	IsError   *bool        `json:"is_error"`
	Text      promptText   `json:"text"`
	Input     *toolInput   `json:"input"`
}

var blockPlan = jsonscan.PlanOf(reflect.TypeFor[contentBlock]())

// scanBlocks reads a content's blocks (the scanner at its '['), into the
// line arena when there is one.
func scanBlocks(s *jsonscan.Scanner, blocks *[]contentBlock, w *jsonscan.WarnList) bool {
	if *blocks == nil {
		*blocks = []contentBlock{}
	}
	*blocks = (*blocks)[:0]
	a, _ := s.Arena.(*lineArena)
	start := 0 // where this line's blocks begin in the arena
	if a != nil {
		if a.blocks == nil {
			a.blocks = make([]contentBlock, 0, 1024)
		}
		start, *blocks = len(a.blocks), a.blocks
	}
	ok := s.Elements(func() bool {
		switch *blocks = append(*blocks, contentBlock{}); s.Peek() { // read in place: a block on the stack would escape
		case '{':
			return blockPlan.Read(s, unsafe.Pointer(&(*blocks)[len(*blocks)-1]), w)
		case 'n':
			return s.Null()
		}
		return false
	})
	if ok && a != nil {
		a.blocks = *blocks
		*blocks = (*blocks)[start:len(*blocks):len(*blocks)] // an append would not reach the next line's
	}
	return ok
}

// promptText is a content block's text, which is only ever shown as a
// prompt clipped to promptClip bytes: only what that needs is kept.
type promptText struct{ jsonscan.Str }

func (t *promptText) DecodeFlex(dec *jsontext.Decoder, w Warner, _ json.Options) error {
	return jsonscan.DecodeStrPrefix(dec, &t.Str, w, promptClip+1)
}

// ScanFlex reads a block's text as DecodeFlex does.
func (t *promptText) ScanFlex(s *jsonscan.Scanner, _ *jsonscan.WarnList) bool {
	return scanClipped(s, &t.Str, promptClip+1)
}

// promptClip is how much of a prompt is kept; a tool's error text is kept
// to errorClip.
const (
	promptClip = 2000
	errorClip  = 500
)

// toolInput is what a tool call's input says of it: a Task's
// subagent type, and the argument a reader looks for first (inputText).
type toolInput struct {
	SubagentType jsonscan.Str `json:"subagent_type"`
	Command      inputText    `json:"command"`
	FilePath     inputText    `json:"file_path"`
	AbsolutePath inputText    `json:"absolute_path"` // Gemini CLI's read_file
	NotebookPath inputText    `json:"notebook_path"`
	Path         inputText    `json:"path"`
	Pattern      inputText    `json:"pattern"`
	URL          inputText    `json:"url"`
	Query        inputText    `json:"query"`
	Description  inputText    `json:"description"`
}

// key is the argument that tells the call apart: the command, the file, the
// pattern, the URL or the query, else what the call was asked to do.
func (in *toolInput) key() string {
	for _, v := range [...]jsonscan.Str{in.Command.Str, in.FilePath.Str, in.AbsolutePath.Str, in.NotebookPath.Str, in.Pattern.Str, in.URL.Str, in.Query.Str, in.Path.Str, in.Description.Str} {
		if v.V != "" {
			return reader.ClipString(v.V, reader.InputClip)
		}
	}
	return ""
}

// inputText is a tool input's argument, kept to InputClip bytes.
type inputText struct{ jsonscan.Str }

func (t *inputText) DecodeFlex(dec *jsontext.Decoder, w Warner, _ json.Options) error {
	return jsonscan.DecodeStrPrefix(dec, &t.Str, w, reader.InputClip+1)
}

// ScanFlex reads a tool input's argument as DecodeFlex does.
func (t *inputText) ScanFlex(s *jsonscan.Scanner, _ *jsonscan.WarnList) bool {
	return scanClipped(s, &t.Str, reader.InputClip+1)
}

// scanClipped reads a string's first n bytes as jsonscan.DecodeStrPrefix does; a
// value of another kind as str does.
func scanClipped(s *jsonscan.Scanner, p *jsonscan.Str, n int) bool {
	if s.Peek() != '"' {
		return s.Str(p)
	}
	text, ok := s.Prefix(n)
	*p = jsonscan.Str{V: text, Set: true}
	return ok
}

// lineArena holds the messages and content blocks the raw path decodes
// for a chunk's lines, in slabs reused chunk after chunk: a new message
// and a block slice grown from nothing, for each of a transcript's lines,
// were half the bytes the raw path allocated. The documents that point
// into it must be done with before reset (see lineChunk.reset).
type lineArena struct {
	msgs   []apiMessage
	blocks []contentBlock
}

// Alloc is a zero message of the arena for a message, nil for another type.
func (a *lineArena) Alloc(t reflect.Type) unsafe.Pointer {
	if t == messageType {
		return unsafe.Pointer(a.message())
	}
	return nil
}

var messageType = reflect.TypeFor[apiMessage]()

func (a *lineArena) reset() {
	clear(a.msgs)
	clear(a.blocks)
	a.msgs, a.blocks = a.msgs[:0], a.blocks[:0]
}

// message is a zero message of the arena.
func (a *lineArena) message() *apiMessage {
	if len(a.msgs) == cap(a.msgs) {
		// A new slab, not a copy: earlier lines point into the last one.
		a.msgs = make([]apiMessage, 0, max(256, 2*cap(a.msgs)))
	}
	a.msgs = a.msgs[:len(a.msgs)+1]
	return &a.msgs[len(a.msgs)-1]
}

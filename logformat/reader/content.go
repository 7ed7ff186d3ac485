package reader

import (
	"reflect"
	"unsafe"

	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Messages and their content as Anthropic's API writes them (a content is
// a text, or a list of blocks), which Claude Code transcripts and Gemini
// CLI sessions share, the input of a tool call, how much of each text a
// reader keeps, and the arena the raw scanner takes messages and blocks
// from.

// Message is a message as Anthropic's Messages API writes it, in a
// Claude Code transcript line (and, by its presence, what tells such a
// line from a Gemini CLI message).
type Message struct {
	ID      jsonscan.Str `json:"id"`
	Model   jsonscan.Str `json:"model"`
	Role    jsonscan.Str `json:"role"`
	Content Content      `json:"content"`
	Usage   *Usage       `json:"usage"`
}

// Usage is a message's token usage.
type Usage struct {
	Input         jsonscan.Num   `json:"input_tokens"`
	Output        jsonscan.Num   `json:"output_tokens"`
	CacheCreation jsonscan.Num   `json:"cache_creation_input_tokens"`
	CacheRead     jsonscan.Num   `json:"cache_read_input_tokens"`
	CacheTTL      *CacheCreation `json:"cache_creation"`
}

// CacheCreation splits cache writes by TTL; the rest of
// cache_creation_input_tokens is 5-minute writes.
type CacheCreation struct {
	OneHour jsonscan.Num `json:"ephemeral_1h_input_tokens"`
}

// Content is a message's content: plain text, or a list of blocks.
type Content struct {
	Text   string
	Blocks []Block
}

func (c *Content) DecodeFlex(dec *jsontext.Decoder, w jsonscan.Warner, opts json.Options) error {
	switch dec.PeekKind() {
	case '"':
		text, err := jsonscan.ReadStringPrefix(dec, PromptClip+1)
		if err != nil {
			return err
		}
		c.Text = ClipString(text, PromptClip)
		return nil
	case '[':
		return json.UnmarshalDecode(dec, &c.Blocks, opts)
	case 'n':
		return dec.SkipValue()
	}
	w.Warn(WarnTypeMismatch)
	return dec.SkipValue()
}

// ScanFlex reads a message's content as DecodeFlex does: text (clipped),
// blocks or null; any other kind gives up.
func (c *Content) ScanFlex(s *jsonscan.Scanner, w *jsonscan.WarnList) bool {
	switch s.Peek() {
	case '[':
		return scanBlocks(s, &c.Blocks, w)
	case '"':
		text, ok := s.Prefix(PromptClip + 1)
		c.Text = ClipString(text, PromptClip)
		return ok
	}
	return s.Null()
}

// Block is one block of a message's content: a text, a tool's use
// or a tool's result.
type Block struct {
	Type      jsonscan.Str `json:"type"`
	ID        jsonscan.Str `json:"id"`
	Name      jsonscan.Str `json:"name"`
	ToolUseID jsonscan.Str `json:"tool_use_id"`
	IsError   *bool        `json:"is_error"`
	Text      PromptText   `json:"text"`
	Input     *ToolInput   `json:"input"`
}

var blockPlan = jsonscan.PlanOf(reflect.TypeFor[Block]())

// scanBlocks reads a content's blocks (the scanner at its '['), into the
// line arena when there is one.
func scanBlocks(s *jsonscan.Scanner, blocks *[]Block, w *jsonscan.WarnList) bool {
	if *blocks == nil {
		*blocks = []Block{}
	}
	*blocks = (*blocks)[:0]
	a, _ := s.Arena.(*LineArena)
	start := 0 // where this line's blocks begin in the arena
	if a != nil {
		if a.blocks == nil {
			a.blocks = make([]Block, 0, 1024)
		}
		start, *blocks = len(a.blocks), a.blocks
	}
	ok := s.Elements(func() bool {
		switch *blocks = append(*blocks, Block{}); s.Peek() { // read in place: a block on the stack would escape
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

// PromptText is a content block's text, which is only ever shown as a
// prompt clipped to promptClip bytes: only what that needs is kept.
type PromptText struct{ jsonscan.Str }

func (t *PromptText) DecodeFlex(dec *jsontext.Decoder, w jsonscan.Warner, _ json.Options) error {
	return jsonscan.DecodeStrPrefix(dec, &t.Str, w, PromptClip+1)
}

// ScanFlex reads a block's text as DecodeFlex does.
func (t *PromptText) ScanFlex(s *jsonscan.Scanner, _ *jsonscan.WarnList) bool {
	return scanClipped(s, &t.Str, PromptClip+1)
}

// PromptClip is how much of a prompt is kept; a tool's error text is kept
// to ErrorClip.
const (
	PromptClip = 2000
	ErrorClip  = 500
)

// ToolInput is what a tool call's input says of it: a Task's
// subagent type, and the argument a reader looks for first (inputText).
type ToolInput struct {
	SubagentType jsonscan.Str `json:"subagent_type"`
	Command      InputText    `json:"command"`
	FilePath     InputText    `json:"file_path"`
	AbsolutePath InputText    `json:"absolute_path"` // Gemini CLI's read_file
	NotebookPath InputText    `json:"notebook_path"`
	Path         InputText    `json:"path"`
	Pattern      InputText    `json:"pattern"`
	URL          InputText    `json:"url"`
	Query        InputText    `json:"query"`
	Description  InputText    `json:"description"`
}

// Key is the argument that tells the call apart: the command, the file, the
// pattern, the URL or the query, else what the call was asked to do.
func (in *ToolInput) Key() string {
	for _, v := range [...]jsonscan.Str{in.Command.Str, in.FilePath.Str, in.AbsolutePath.Str, in.NotebookPath.Str, in.Pattern.Str, in.URL.Str, in.Query.Str, in.Path.Str, in.Description.Str} {
		if v.V != "" {
			return ClipString(v.V, InputClip)
		}
	}
	return ""
}

// InputText is a tool input's argument, kept to InputClip bytes.
type InputText struct{ jsonscan.Str }

func (t *InputText) DecodeFlex(dec *jsontext.Decoder, w jsonscan.Warner, _ json.Options) error {
	return jsonscan.DecodeStrPrefix(dec, &t.Str, w, InputClip+1)
}

// ScanFlex reads a tool input's argument as DecodeFlex does.
func (t *InputText) ScanFlex(s *jsonscan.Scanner, _ *jsonscan.WarnList) bool {
	return scanClipped(s, &t.Str, InputClip+1)
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

// LineArena holds the messages and content blocks the raw path decodes
// for a chunk's lines, in slabs reused chunk after chunk: a new message
// and a block slice grown from nothing, for each of a transcript's lines,
// were half the bytes the raw path allocated. The documents that point
// into it must be done with before reset (see lineChunk.reset).
type LineArena struct {
	msgs   []Message
	blocks []Block
}

// NewLineArena is an arena whose first slab of blocks holds n; the zero
// LineArena starts at 1024 (a test starts small, to see slabs grow).
func NewLineArena(n int) *LineArena { return &LineArena{blocks: make([]Block, 0, n)} }

// Alloc is a zero message of the arena for a message, nil for another type.
func (a *LineArena) Alloc(t reflect.Type) unsafe.Pointer {
	if t == messageType {
		return unsafe.Pointer(a.message())
	}
	return nil
}

var messageType = reflect.TypeFor[Message]()

func (a *LineArena) Reset() {
	clear(a.msgs)
	clear(a.blocks)
	a.msgs, a.blocks = a.msgs[:0], a.blocks[:0]
}

// message is a zero message of the arena.
func (a *LineArena) message() *Message {
	if len(a.msgs) == cap(a.msgs) {
		// A new slab, not a copy: earlier lines point into the last one.
		a.msgs = make([]Message, 0, max(256, 2*cap(a.msgs)))
	}
	a.msgs = a.msgs[:len(a.msgs)+1]
	return &a.msgs[len(a.msgs)-1]
}

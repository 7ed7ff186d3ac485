// Package reader is what every format's reader works with: the read
// context of one file (Ctx), where its runs and fragments go (Emitter), the
// warning kinds, the document members several formats read (Shared), the
// message content Claude Code and Gemini CLI share (Message), and the rules
// formats share for spans, status words, clipped texts and id digests. A
// format package imports it; logformat, above the formats, makes each
// file's Ctx.
package reader

import (
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/join"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/model"
)

// Format describes one input format: D is what its reader is given of a
// document, the members formats share and its own.
type Format[D any] struct {
	Name      string // the key used in reports (docs/metrics.md)
	Title     string // what one file holds
	Signature string // how a document is recognised, for `agentstat formats`
	Match     func(D) bool
	Read      func(D, *Ctx)
}

// Emitter receives what a reader finds in one file.
type Emitter interface {
	jsonscan.Warner
	Run(*model.Run)
	// Fragment receives a piece of a run spread over several files, joined
	// across the scanned tree by join.JoinEach.
	Fragment(*join.Fragment)
}

// PartsEmitter is an Emitter that also takes runs whose calls are made as
// they are taken (a debug bundle's: tens of thousands), so that they need
// never be held together. It may take them any time after the reader
// returns, and should drain the parts of a run it drops: making the calls
// counts their warnings.
type PartsEmitter interface {
	Emitter
	RunParts(*model.Run, *model.CallParts)
}

// CallPart is how many calls a part of a run's model.CallParts holds (a
// variable for tests).
var CallPart = 4096

// Ctx is what a format's reader has while it turns one file's documents into runs.
type Ctx struct {
	Source string            // path relative to the scanned root, '/'-separated
	Loc    *time.Location    // zone of timestamps written without one
	Spill  *recordspill.File // where records wait for the join (nil: in memory)
	Ord    int               // index of the document within the file, for generated ids
	em     Emitter
	emits  int
	atEnd  []join.Flusher // what goes to the spill at the file's end, in order
	states map[any]any    // each format's state of this file, by its type (FileState)
}

// NewCtx is the read context of the file at source, whose findings go to em.
func NewCtx(source string, loc *time.Location, spill *recordspill.File, em Emitter) *Ctx {
	return &Ctx{Source: source, Loc: loc, Spill: spill, em: em}
}

// Emits counts the runs and fragments emitted so far (a log taken again by
// LogFor counts as a fragment).
func (c *Ctx) Emits() int { return c.emits }

// AtEnd has f flushed to the spill when the file has been read.
func (c *Ctx) AtEnd(f join.Flusher) { c.atEnd = append(c.atEnd, f) }

// End flushes to the spill, in order, what AtEnd was given; the reader calls
// it once the file was read without error.
func (c *Ctx) End() {
	if c.Spill == nil {
		return
	}
	for _, f := range c.atEnd {
		f.FlushTo(c.Spill, true)
	}
}

// FileState is the state of type T a format keeps while it reads one file
// (the session a header named, the file's logs by session), made by start
// when the format first asks.
func FileState[T any](c *Ctx, start func() *T) *T {
	key := any((*T)(nil))
	if s, ok := c.states[key]; ok {
		return s.(*T)
	}
	if c.states == nil {
		c.states = map[any]any{}
	}
	s := start()
	c.states[key] = s
	return s
}

// Warn counts a warning of kind.
func (c *Ctx) Warn(kind string) { c.em.Warn(kind) }

// SpillOf is the file's record spill when ctx is the file's read context
// (the warner the token path hands a DecodeFlex, the raw document path's
// stream env); nil otherwise, which keeps what is decoded in memory.
func SpillOf(ctx any) *recordspill.File {
	if c, ok := ctx.(*Ctx); ok {
		return c.Spill
	}
	return nil
}

// Run emits a run read from the file.
func (c *Ctx) Run(r *model.Run) {
	r.Source = c.Source
	c.emits++
	c.em.Run(r)
}

// RunParts emits a run whose calls parts makes; whole, to an emitter that
// takes no parts.
func (c *Ctx) RunParts(r *model.Run, parts *model.CallParts) {
	pe, ok := c.em.(PartsEmitter)
	if !ok {
		r.ToolCalls = parts.All()
		c.Run(r)
		return
	}
	r.Source = c.Source
	c.emits++
	pe.RunParts(r, parts)
}

// Fragment emits a piece of a run spread over several files.
func (c *Ctx) Fragment(f *join.Fragment) {
	f.Source = c.Source
	c.emits++
	c.em.Fragment(f)
}

// FallbackID names a run whose log gives it no id: the file's stem, plus the
// document's position when a file holds several.
func (c *Ctx) FallbackID() string {
	base := path.Base(c.Source)
	for _, ext := range []string{".gz", ".jsonl", ".json"} {
		base = strings.TrimSuffix(base, ext)
	}
	if c.Ord > 0 {
		return fmt.Sprintf("%s#%d", base, c.Ord+1)
	}
	return base
}

// Span builds a span from two optional timestamps; a negative span is dropped
// with a warning, never turned into zero.
func (c *Ctx) Span(start, end jsonscan.Time) model.Span {
	return SpanOf(start.In(c.Loc), end.In(c.Loc), c)
}

// LogFor is the file's log of key in logs, made on first use together with
// its fragment (frag), which the reader emits then.
func LogFor[T any](c *Ctx, logs *map[string]*join.EntryLog[T], key string, codec *join.EntryCodec[T], frag func(*join.EntryLog[T]) *join.Fragment) *join.EntryLog[T] {
	if l := (*logs)[key]; l != nil {
		c.emits++ // as a fragment would
		return l
	}
	if *logs == nil {
		*logs = map[string]*join.EntryLog[T]{}
	}
	l := &join.EntryLog[T]{Codec: codec}
	(*logs)[key] = l
	c.AtEnd(l)
	c.Fragment(frag(l))
	return l
}

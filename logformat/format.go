// Package logformat holds one reader per input log format. Read decodes
// each line or document of a file and hands it to the first format that
// recognises it by content (never by path), whose reader maps it onto the
// normalized model; a format whose runs span files emits fragments and
// registers its join with package join. All format knowledge lives here.
package logformat

import (
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/join"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/model"
)

// Format describes one input format.
type Format struct {
	Name      string // the key used in reports (docs/metrics.md)
	Title     string // what one file holds
	Signature string // how a document is recognised, for `agentstat formats`
	match     func(d *document) bool
	read      func(d *document, c *readCtx)
}

// registry is in detection precedence: the first format whose signature
// matches a document reads it.
var registry = []*Format{bundleFormat, otelFormat, claudeFormat, codexFormat, geminiFormat, structmsgFormat, planagentFormat, planexecFormat, sessionFormat}

// All lists the supported formats in detection precedence.
func All() []Format {
	out := make([]Format, len(registry))
	for i, f := range registry {
		out[i] = *f
	}
	return out
}

// Skip reasons: every seen file that feeds no run is skipped with exactly one.
const (
	ReasonEmpty       = "empty"
	ReasonInvalidJSON = "invalid JSON"
	ReasonTruncated   = "truncated JSON"
	ReasonNotUTF8     = "not UTF-8"
	ReasonUnknown     = "unknown format"
	ReasonNoRuns      = "no runs"
	ReasonOrphan      = "orphan"
	ReasonTooLarge    = "too large"
	ReasonUnreadable  = "unreadable"
	ReasonDuplicate   = "duplicate" // the same file as one read already: a hard link, or roots that overlap
)

// Reasons lists every skip reason in the order docs/metrics.md documents them
// (a test holds the two, and the constants above, equal).
var Reasons = []string{ReasonEmpty, ReasonInvalidJSON, ReasonTruncated, ReasonNotUTF8, ReasonUnknown, ReasonNoRuns, ReasonOrphan, ReasonTooLarge, ReasonUnreadable, ReasonDuplicate}

// Warning kinds, counted in inputs.warnings.
const (
	WarnTypeMismatch       = jsonscan.WarnTypeMismatch // a field held a JSON type the reader cannot use; it was ignored
	WarnBadNumber          = jsonscan.WarnBadNumber    // a number out of float64 range or a non-numeric string
	WarnBadTimestamp       = jsonscan.WarnBadTimestamp // a timestamp in no known spelling
	WarnNegativeDuration   = "negative_duration"       // an end before its start, or a negative duration; dropped
	WarnImpossibleDuration = "impossible_duration"     // a duration over ten years; dropped
	WarnUnknownStatus      = "unknown_status"          // a run or tool status word outside the known list
	WarnOtherStepStatus    = "other_step_status"       // a step status word outside the list: counted as other
	WarnMissingStatus      = "missing_step_status"
	WarnCountMismatch      = "count_mismatch"   // a summary counter disagrees with the entries
	WarnInvalidLine        = "invalid_line"     // a JSONL line (or trailing value) that is not valid JSON
	WarnUnknownLine        = "unknown_line"     // a JSONL line that matches no format
	WarnDuplicateEvent     = "duplicate_event"  // an exact repeat of an earlier event, dropped
	WarnDuplicateRunID     = "duplicate_run_id" // two runs of one format share an id
	WarnQualityMismatch    = "quality_mismatch" // a producer's quality_average disagrees with its scores
	WarnTruncatedStream    = "truncated_stream" // a compressed JSONL file ends mid-stream; the lines before the cut were read
	WarnPriceFallback      = "price_fallback"   // tokens of a kind their model has no price for, priced at a kin's (counted as runs are priced)
	WarnRunsLost           = "runs_lost"        // a file's runs held on a scratch file until its end could not all be read back
)

// Warner counts warnings by kind.
type Warner = jsonscan.Warner

// Emitter receives what a reader finds in one file.
type Emitter interface {
	Warner
	Run(*model.Run)
	// Fragment receives a piece of a run spread over several files (planagent),
	// joined across the scanned tree by Join.
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

// callPart is how many calls a part of a run's model.CallParts holds (a
// variable for tests).
var callPart = 4096

// Options tune how files are read.
type Options struct {
	Location    *time.Location    // zone of timestamps written without one
	LineWorkers int               // decode a JSONL file's lines on this many goroutines (worth it for long files)
	Spill       *recordspill.File // where Claude Code records wait for their join (nil: in memory)
	// Reread gives the file again from its start. With it, a document is
	// first read by a faster path that can give up (readRawDocument).
	Reread func() (io.Reader, error)

	streamClamp bool // clamp JSON Lines as one stream, not line by line (tests compare the two)
}

// SkipError says why a file yields nothing.
type SkipError struct {
	Reason string
	Detail string
}

func (e *SkipError) Error() string {
	if e.Detail == "" {
		return e.Reason
	}
	return e.Reason + ": " + e.Detail
}

func skip(reason, detail string) error { return &SkipError{Reason: reason, Detail: detail} }

// readCtx carries what a reader needs while turning one document into runs.
type readCtx struct {
	source string // path relative to the scanned root, '/'-separated
	loc    *time.Location
	em     Emitter
	ord    int // index of the document within the file, for generated ids
	emits  int
	spill  *recordspill.File // where records wait for the join (nil: in memory)
	atEnd  []join.Flusher    // what goes to the spill at the file's end, in order
	states map[any]any       // each format's state of this file, by its type (fileState)
}

// fileState is the state of type T a format keeps while it reads one file
// (the session a header named, the file's logs by session), made by start
// when the format first asks.
func fileState[T any](c *readCtx, start func() *T) *T {
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

func (c *readCtx) Warn(kind string) { c.em.Warn(kind) }

// spillOf is the file's record spill when ctx is the file's read context
// (the warner the token path hands a DecodeFlex, the raw document path's
// stream env); nil otherwise, which keeps what is decoded in memory.
func spillOf(ctx any) *recordspill.File {
	if c, ok := ctx.(*readCtx); ok {
		return c.spill
	}
	return nil
}

func (c *readCtx) run(r *model.Run) {
	r.Source = c.source
	c.emits++
	c.em.Run(r)
}

// runParts emits a run whose calls parts makes; whole, to an emitter that
// takes no parts.
func (c *readCtx) runParts(r *model.Run, parts *model.CallParts) {
	pe, ok := c.em.(PartsEmitter)
	if !ok {
		r.ToolCalls = parts.All()
		c.run(r)
		return
	}
	r.Source = c.source
	c.emits++
	pe.RunParts(r, parts)
}

func (c *readCtx) fragment(f *join.Fragment) {
	f.Source = c.source
	c.emits++
	c.em.Fragment(f)
}

// fallbackID names a run whose log gives it no id: the file's stem, plus the
// document's position when a file holds several.
func (c *readCtx) fallbackID() string {
	base := path.Base(c.source)
	for _, ext := range []string{".gz", ".jsonl", ".json"} {
		base = strings.TrimSuffix(base, ext)
	}
	if c.ord > 0 {
		return fmt.Sprintf("%s#%d", base, c.ord+1)
	}
	return base
}

// span builds a span from two optional timestamps; a negative span is dropped
// with a warning, never turned into zero.
func (c *readCtx) span(start, end jsonscan.Time) model.Span {
	return spanOf(start.In(c.loc), end.In(c.loc), c)
}

// spanOf builds a span from two resolved timestamps (zero when unknown).
func spanOf(start, end time.Time, w Warner) model.Span {
	s := model.Span{Started: start, Ended: end}
	if !start.IsZero() && !end.IsZero() {
		switch d := float64(end.Sub(start).Nanoseconds()) / 1e6; {
		case d < 0:
			w.Warn(WarnNegativeDuration)
			s.Ended = time.Time{}
		case d > maxDurationMS:
			w.Warn(WarnImpossibleDuration)
		default:
			s.DurationMS, s.HasDuration = d, true
		}
	}
	return s
}

// widen stretches [first, last] to cover t; a zero t changes nothing.
func widen(first, last *time.Time, t time.Time) {
	if t.IsZero() {
		return
	}
	if first.IsZero() || t.Before(*first) {
		*first = t
	}
	if t.After(*last) {
		*last = t
	}
}

// setDuration records a duration given in milliseconds, dropping a negative one.
func setDuration(s *model.Span, ms jsonscan.Num, w Warner) {
	if !ms.Set {
		return
	}
	if ms.V < 0 {
		w.Warn(WarnNegativeDuration)
		return
	}
	if ms.V > maxDurationMS {
		w.Warn(WarnImpossibleDuration)
		return
	}
	s.DurationMS, s.HasDuration = ms.V, true
}

// topModel is the named model with the most tokens, the smallest name on a tie.
func topModel(tokens map[string]int64) string {
	top, best := "", int64(-1)
	for m, n := range tokens {
		if m != "" && (n > best || (n == best && m < top)) {
			top, best = m, n
		}
	}
	return top
}

// logFor is the file's log of key in logs, made on first use together with
// its fragment (frag), which the reader emits then.
func logFor[T any](c *readCtx, logs *map[string]*join.EntryLog[T], key string, codec *join.EntryCodec[T], frag func(*join.EntryLog[T]) *join.Fragment) *join.EntryLog[T] {
	if l := (*logs)[key]; l != nil {
		c.emits++ // as a fragment would
		return l
	}
	if *logs == nil {
		*logs = map[string]*join.EntryLog[T]{}
	}
	l := &join.EntryLog[T]{Codec: codec}
	(*logs)[key] = l
	c.atEnd = append(c.atEnd, l)
	c.fragment(frag(l))
	return l
}

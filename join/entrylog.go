package join

import (
	"bufio"
	"encoding/binary"
	"iter"
	"time"

	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/model"
)

// Codex entries, OpenTelemetry spans, Gemini CLI messages and PlanAgent
// batches and tasks wait for their join on the record spill, as Claude
// Code records do: a session, a trace or a plan can span files, so every
// entry of every file waits until the end of reading, and in memory they
// would grow with the bytes read (352 MB of rollouts would take 230 MB).
// A file keeps one EntryLog per session, trace or record; a log
// writes its entries out in segments of SegmentLines while the file is
// read and the rest when it is done, and the join reads them back one
// session, trace or plan at a time.

// EntryLog is one fragment's entries: those on the spill, then those in memory.
type EntryLog[T any] struct {
	Entries  []T // after the segments on the spill
	spill    *recordspill.File
	segments []recordspill.Ref // earlier entries, on the spill
	spilled  int               // how many entries the segments hold
	noFlush  bool              // a write to the spill failed: the rest stays in memory
	Codec    *EntryCodec[T]
}

// EntryCodec writes and reads one kind of entry; Withhold, when set,
// replaces the log's texts in an entry (WithholdText) for a partial made
// with --no-text.
type EntryCodec[T any] struct {
	Encode   func(b []byte, e *T, loc *time.Location) []byte
	Decode   func(r *recordspill.Reader, loc *time.Location) T
	Withhold func(e *T)
}

// RegisterEntries registers a format whose fragments of kind carry an
// EntryLog of entries that codec writes, and join joins.
func RegisterEntries[T any](kind FragmentKind, codec *EntryCodec[T], join func([]*Fragment, jsonscan.Warner, func(*model.Run, []*Fragment))) {
	Register(&JoinedFormat{
		ReadHead: func(FragmentKind, *recordspill.Reader, *time.Location) (FromPartial, bool) {
			return func(spill *recordspill.File, segs []recordspill.Ref, entries int) (Records, bool) {
				return SpilledLog(spill, segs, entries, codec), true
			}, true
		},
		Join: func(frags []*Fragment, w jsonscan.Warner, emit func(*model.Run, []*Fragment), _ func(*model.Run, *model.CallParts, []*Fragment)) {
			join(frags, w, emit)
		},
	}, kind)
}

// EntryLogOf is the entries f carries, of a format registered with RegisterEntries.
func EntryLogOf[T any](f *Fragment) *EntryLog[T] { return f.Records.(*EntryLog[T]) }

// Flusher is what a file's reader holds for the spill until the file's
// end: an EntryLog of any kind, or a Claude Code session's records.
type Flusher interface {
	FlushTo(s *recordspill.File, last bool)
}

// Push appends e, and writes a segment out to spill (if any) when the log
// holds enough.
func (l *EntryLog[T]) Push(spill *recordspill.File, e T) {
	l.Entries = append(l.Entries, e)
	if spill != nil && !l.noFlush && len(l.Entries) >= SegmentLines {
		l.FlushTo(spill, false)
	}
}

// Len is how many entries the log has, on the spill and in memory.
func (l *EntryLog[T]) Len() int { return l.spilled + len(l.Entries) }

// Cursor reads a log's entries back in order, one at a time, a segment in
// memory at a time.
type Cursor[T any] struct {
	l         *EntryLog[T]
	seg, left int
	r         *recordspill.Reader
	mem       int
}

// Segments are where the log's entries on the spill are.
func (l *EntryLog[T]) Segments() []recordspill.Ref { return l.segments }

// WriteFailed reports whether a write of the log's entries to the spill
// failed: its later entries stay in memory.
func (l *EntryLog[T]) WriteFailed() bool { return l.noFlush }

// Cursor reads l's entries from its first.
func (l *EntryLog[T]) Cursor() Cursor[T] { return Cursor[T]{l: l} }

// Next is the next entry, false after the last (or at a damaged segment,
// which fails the spill and ends the entries).
func (c *Cursor[T]) Next() (e T, ok bool) {
	l := c.l
	for c.left == 0 && c.seg < len(l.segments) {
		c.r = l.spill.Record(l.segments[c.seg])
		c.seg++
		if c.left = c.r.Uvarint(); c.left == 0 {
			l.spill.Done(c.r)
		}
	}
	if c.left > 0 {
		e = l.Codec.Decode(c.r, l.spill.Loc())
		if c.left--; c.r.Err() != nil {
			c.left, c.seg, c.mem = 0, len(l.segments), len(l.Entries)
			l.spill.Done(c.r)
			return e, false
		}
		if c.left == 0 {
			l.spill.Done(c.r)
		}
		return e, true
	}
	if c.mem < len(l.Entries) {
		c.mem++
		return l.Entries[c.mem-1], true
	}
	return e, false
}

// FlushTo writes the entries l holds as a segment and empties them; on
// failure they stay in memory, and so do the log's later entries. The
// array is kept for the next segment of a file still being read (last
// false), and let go with the file's last.
func (l *EntryLog[T]) FlushTo(s *recordspill.File, last bool) {
	if l.noFlush {
		return
	}
	if len(l.Entries) > 0 {
		ref, ok := s.Write(func(w *bufio.Writer) {
			b := binary.AppendUvarint(nil, uint64(len(l.Entries)))
			for i := range l.Entries {
				b = l.Codec.Encode(b, &l.Entries[i], s.Loc())
				w.Write(b)
				b = b[:0]
			}
		})
		if !ok {
			l.noFlush = true
			return
		}
		l.spill, l.segments, l.spilled = s, append(l.segments, ref), l.spilled+len(l.Entries)
	}
	if last {
		l.Entries = nil
		return
	}
	clear(l.Entries) // their strings can go
	l.Entries = l.Entries[:0]
}

// All is the log's entries in order, read back from the spill as needed.
func (l *EntryLog[T]) All() []T {
	if len(l.segments) == 0 {
		return l.Entries
	}
	out := make([]T, 0, l.spilled+len(l.Entries))
	for _, ref := range l.segments {
		r := l.spill.Record(ref)
		for range r.Uvarint() {
			e := l.Codec.Decode(r, l.spill.Loc())
			if r.Err() != nil {
				break
			}
			out = append(out, e)
		}
		l.spill.Done(r)
	}
	return append(out, l.Entries...)
}

// Loaded yields each group of frags (in Group's order) with its
// fragments' entries read back, the next groups read on another goroutine
// while the caller joins one: the join is serial, and reading back is
// about half of its time.
func Loaded[T any](frags []*Fragment) iter.Seq2[[]*Fragment, [][]T] {
	return func(yield func([]*Fragment, [][]T) bool) {
		order, groups := Group(frags)
		type group struct {
			fs      []*Fragment
			entries [][]T
		}
		next, done := make(chan group, 4), make(chan struct{})
		defer close(done)
		go func() {
			defer close(next)
			for _, key := range order {
				g := group{fs: groups[key], entries: make([][]T, len(groups[key]))}
				for i, f := range g.fs {
					g.entries[i] = EntryLogOf[T](f).All()
				}
				select {
				case next <- g:
				case <-done:
					return
				}
			}
		}()
		for g := range next {
			if !yield(g.fs, g.entries) {
				return
			}
		}
	}
}

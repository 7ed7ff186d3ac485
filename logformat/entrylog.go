package logformat

import (
	"bufio"
	"encoding/binary"
	"iter"
	"time"

	"github.com/agentstat/agentstat/logformat/recordspill"
	"github.com/agentstat/agentstat/model"
)

// Codex entries, OpenTelemetry spans, Gemini CLI messages and PlanAgent
// batches and tasks wait for their join on the record spill, as Claude
// Code records do: a session, a trace or a plan can span files, so every
// entry of every file waits until the end of reading, and in memory they
// would grow with the bytes read (352 MB of rollouts would take 230 MB).
// A file keeps one entryLog per session, trace or record; a log
// writes its entries out in segments of segmentLines while the file is
// read and the rest when it is done, and the join reads them back one
// session, trace or plan at a time.

// entryLog is one fragment's entries: those on the spill, then those in memory.
type entryLog[T any] struct {
	entries  []T // after the segments on the spill
	spill    *recordspill.File
	segments []recordspill.Ref // earlier entries, on the spill
	spilled  int               // how many entries the segments hold
	noFlush  bool              // a write to the spill failed: the rest stays in memory
	codec    *entryCodec[T]
}

// entryCodec writes and reads one kind of entry; withhold, when set,
// replaces the log's texts in an entry (withholdText) for a partial made
// with --no-text.
type entryCodec[T any] struct {
	encode   func(b []byte, e *T, loc *time.Location) []byte
	decode   func(r *recordspill.Reader, loc *time.Location) T
	withhold func(e *T)
}

// joinedEntries registers a format whose fragments of kind carry an
// entryLog of entries that codec writes, and join joins.
func joinedEntries[T any](kind FragmentKind, codec *entryCodec[T], join func([]*Fragment, Warner, func(*model.Run, []*Fragment))) {
	joinedBy(&joinedFormat{
		readHead: func(FragmentKind, *recordspill.Reader, *time.Location) (recordsFromPartial, bool) {
			return func(spill *recordspill.File, segs []recordspill.Ref, entries int) (fragmentLog, bool) {
				return spilledLog(spill, segs, entries, codec), true
			}, true
		},
		join: func(frags []*Fragment, w Warner, emit func(*model.Run, []*Fragment), _ func(*model.Run, *model.CallParts, []*Fragment)) {
			join(frags, w, emit)
		},
	}, kind)
}

// logOf is the entries f carries, of a format registered with joinedEntries.
func logOf[T any](f *Fragment) *entryLog[T] { return f.log.(*entryLog[T]) }

// logFlusher is what a file's reader holds for the spill until the file's
// end: an entryLog of any kind, or a Claude Code session's records.
type logFlusher interface {
	flushTo(s *recordspill.File, last bool)
}

// logFor is the file's log of key in logs, made on first use together with
// its fragment (frag), which the reader emits then.
func logFor[T any](c *readCtx, logs *map[string]*entryLog[T], key string, codec *entryCodec[T], frag func(*entryLog[T]) *Fragment) *entryLog[T] {
	if l := (*logs)[key]; l != nil {
		c.emits++ // as a fragment would
		return l
	}
	if *logs == nil {
		*logs = map[string]*entryLog[T]{}
	}
	l := &entryLog[T]{codec: codec}
	(*logs)[key] = l
	c.atEnd = append(c.atEnd, l)
	c.fragment(frag(l))
	return l
}

// add appends e, and writes a segment out when the log holds enough.
func (l *entryLog[T]) add(c *readCtx, e T) { l.push(c.spill, e) }

// push appends e, and writes a segment out to spill (if any) when the log
// holds enough.
func (l *entryLog[T]) push(spill *recordspill.File, e T) {
	l.entries = append(l.entries, e)
	if spill != nil && !l.noFlush && len(l.entries) >= segmentLines {
		l.flushTo(spill, false)
	}
}

// len is how many entries the log has, on the spill and in memory.
func (l *entryLog[T]) len() int { return l.spilled + len(l.entries) }

// cursor reads a log's entries back in order, one at a time, a segment in
// memory at a time.
type entryCursor[T any] struct {
	l         *entryLog[T]
	seg, left int
	r         *recordspill.Reader
	mem       int
}

// next is the next entry, false after the last (or at a damaged segment,
// which fails the spill and ends the entries).
func (c *entryCursor[T]) next() (e T, ok bool) {
	l := c.l
	for c.left == 0 && c.seg < len(l.segments) {
		c.r = l.spill.Record(l.segments[c.seg])
		c.seg++
		if c.left = c.r.Uvarint(); c.left == 0 {
			l.spill.Done(c.r)
		}
	}
	if c.left > 0 {
		e = l.codec.decode(c.r, l.spill.Loc())
		if c.left--; c.r.Err() != nil {
			c.left, c.seg, c.mem = 0, len(l.segments), len(l.entries)
			l.spill.Done(c.r)
			return e, false
		}
		if c.left == 0 {
			l.spill.Done(c.r)
		}
		return e, true
	}
	if c.mem < len(l.entries) {
		c.mem++
		return l.entries[c.mem-1], true
	}
	return e, false
}

// flushTo writes the entries l holds as a segment and empties them; on
// failure they stay in memory, and so do the log's later entries. The
// array is kept for the next segment of a file still being read (last
// false), and let go with the file's last.
func (l *entryLog[T]) flushTo(s *recordspill.File, last bool) {
	if l.noFlush {
		return
	}
	if len(l.entries) > 0 {
		ref, ok := s.Write(func(w *bufio.Writer) {
			b := binary.AppendUvarint(nil, uint64(len(l.entries)))
			for i := range l.entries {
				b = l.codec.encode(b, &l.entries[i], s.Loc())
				w.Write(b)
				b = b[:0]
			}
		})
		if !ok {
			l.noFlush = true
			return
		}
		l.spill, l.segments, l.spilled = s, append(l.segments, ref), l.spilled+len(l.entries)
	}
	if last {
		l.entries = nil
		return
	}
	clear(l.entries) // their strings can go
	l.entries = l.entries[:0]
}

// all is the log's entries in order, read back from the spill as needed.
func (l *entryLog[T]) all() []T {
	if len(l.segments) == 0 {
		return l.entries
	}
	out := make([]T, 0, l.spilled+len(l.entries))
	for _, ref := range l.segments {
		r := l.spill.Record(ref)
		for range r.Uvarint() {
			e := l.codec.decode(r, l.spill.Loc())
			if r.Err() != nil {
				break
			}
			out = append(out, e)
		}
		l.spill.Done(r)
	}
	return append(out, l.entries...)
}

// loaded yields each group of frags (groupFragments' order) with its
// fragments' entries read back, the next groups read on another goroutine
// while the caller joins one: the join is serial, and reading back is
// about half of its time.
func loaded[T any](frags []*Fragment) iter.Seq2[[]*Fragment, [][]T] {
	return func(yield func([]*Fragment, [][]T) bool) {
		order, groups := groupFragments(frags)
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
					g.entries[i] = logOf[T](f).all()
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

package logformat

import (
	"bufio"
	"encoding/binary"
	"iter"
	"math"
	"slices"
	"time"

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
	spill    *RecordSpill
	segments []spillRef // earlier entries, on the spill
	spilled  int        // how many entries the segments hold
	noFlush  bool       // a write to the spill failed: the rest stays in memory
	codec    *entryCodec[T]
}

// entryCodec writes and reads one kind of entry; withhold, when set,
// replaces the log's texts in an entry (withholdText) for a partial made
// with --no-text.
type entryCodec[T any] struct {
	encode   func(b []byte, e *T, loc *time.Location) []byte
	decode   func(r *spillReader, loc *time.Location) T
	withhold func(e *T)
}

// logFlusher is an entryLog of any kind, for the end of its file.
type logFlusher interface {
	flushTo(s *RecordSpill, last bool)
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
	c.logs = append(c.logs, l)
	c.fragment(frag(l))
	return l
}

// add appends e, and writes a segment out when the log holds enough.
func (l *entryLog[T]) add(c *readCtx, e T) { l.push(c.spill, e) }

// push appends e, and writes a segment out to spill (if any) when the log
// holds enough.
func (l *entryLog[T]) push(spill *RecordSpill, e T) {
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
	r         *spillReader
	mem       int
}

// next is the next entry, false after the last (or at a damaged segment,
// which fails the spill and ends the entries).
func (c *entryCursor[T]) next() (e T, ok bool) {
	l := c.l
	for c.left == 0 && c.seg < len(l.segments) {
		c.r = l.spill.reader(l.segments[c.seg])
		c.seg++
		if c.left = c.r.uvarint(); c.left == 0 {
			l.spill.done(c.r)
		}
	}
	if c.left > 0 {
		e = l.codec.decode(c.r, l.spill.loc)
		if c.left--; c.r.err != nil {
			c.left, c.seg, c.mem = 0, len(l.segments), len(l.entries)
			l.spill.done(c.r)
			return e, false
		}
		if c.left == 0 {
			l.spill.done(c.r)
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
func (l *entryLog[T]) flushTo(s *RecordSpill, last bool) {
	if l.noFlush {
		return
	}
	if len(l.entries) > 0 {
		ref, ok := s.write(func(w *bufio.Writer) {
			b := binary.AppendUvarint(nil, uint64(len(l.entries)))
			for i := range l.entries {
				b = l.codec.encode(b, &l.entries[i], s.loc)
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
		r := l.spill.reader(ref)
		for range r.uvarint() {
			e := l.codec.decode(r, l.spill.loc)
			if r.err != nil {
				break
			}
			out = append(out, e)
		}
		l.spill.done(r)
	}
	return append(out, l.entries...)
}

// loaded yields each group of frags (groupFragments' order) with its
// fragments' entries read back, the next groups read on another goroutine
// while the caller joins one: the join is serial, and reading back is
// about half of its time.
func loaded[T any](frags []*Fragment, logOf func(*Fragment) *entryLog[T]) iter.Seq2[[]*Fragment, [][]T] {
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
					g.entries[i] = logOf(f).all()
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

func appendTokens(b []byte, t *model.Tokens) []byte {
	for _, v := range []int64{t.Input, t.Output, t.CacheRead, t.CacheCreation, t.Unspecified, t.CacheCreation1h} {
		b = binary.AppendVarint(b, v)
	}
	return b
}

func (r *spillReader) tokens() (t model.Tokens) {
	for _, p := range []*int64{&t.Input, &t.Output, &t.CacheRead, &t.CacheCreation, &t.Unspecified, &t.CacheCreation1h} {
		*p = r.varint()
	}
	return t
}

var codexCodec = &entryCodec[codexEntry]{
	encode: func(b []byte, e *codexEntry, loc *time.Location) []byte {
		b = appendTime(b, e.at, loc)
		b = append(b, byte(e.kind))
		b = appendString(b, e.model)
		b = appendString(b, e.name)
		b = appendString(b, e.callID)
		b = appendBool(b, e.exitCode.Set)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(e.exitCode.V))
		b = appendTokens(b, &e.tokens)
		b = appendString(b, e.cwd)
		b = appendString(b, e.branch)
		b = appendString(b, e.input)
		return appendString(b, e.prompt)
	},
	decode: func(r *spillReader, loc *time.Location) (e codexEntry) {
		e.at = r.time(loc)
		e.kind = codexKind(r.take(1)[0])
		e.model, e.name, e.callID = r.string(), r.string(), r.string()
		e.exitCode.Set = r.bool()
		e.exitCode.V = math.Float64frombits(r.u64())
		e.tokens = r.tokens()
		e.cwd, e.branch, e.input = r.string(), r.string(), r.string()
		e.prompt = r.string()
		return e
	},
	withhold: func(e *codexEntry) { withholdText(&e.prompt, &e.input) },
}

var otelCodec = &entryCodec[otelSpan]{
	encode: func(b []byte, s *otelSpan, loc *time.Location) []byte {
		for _, v := range []string{s.trace, s.id, s.parent, s.name, s.op, s.agent, s.toolName, s.model, s.errText, s.service, s.project, s.input} {
			b = appendString(b, v)
		}
		b = appendTime(b, s.start, loc)
		b = appendTime(b, s.end, loc)
		b = appendBool(b, s.failed)
		b = appendBool(b, s.ok)
		return appendTokens(b, &s.tokens)
	},
	decode: func(r *spillReader, loc *time.Location) (s otelSpan) {
		for _, p := range []*string{&s.trace, &s.id, &s.parent, &s.name, &s.op, &s.agent, &s.toolName, &s.model, &s.errText, &s.service, &s.project, &s.input} {
			*p = r.string()
		}
		s.start, s.end = r.time(loc), r.time(loc)
		s.failed, s.ok = r.bool(), r.bool()
		s.tokens = r.tokens()
		return s
	},
	withhold: func(s *otelSpan) { withholdText(&s.errText, &s.input) },
}

var geminiCodec = &entryCodec[geminiEntry]{
	encode: func(b []byte, e *geminiEntry, loc *time.Location) []byte {
		b = appendTime(b, e.start, loc)
		b = appendTime(b, e.at, loc)
		b = appendTime(b, e.lastUpdated, loc)
		b = appendString(b, e.kind)
		b = appendString(b, e.model)
		b = appendTokens(b, &e.tokens)
		b = appendBool(b, e.hasTokens)
		b = appendString(b, e.prompt)
		b = appendString(b, e.project)
		b = binary.AppendUvarint(b, uint64(len(e.calls)))
		for _, c := range e.calls {
			b = appendString(b, c.name)
			b = appendString(b, c.status)
			b = appendString(b, c.input)
		}
		return b
	},
	decode: func(r *spillReader, loc *time.Location) (e geminiEntry) {
		e.start, e.at, e.lastUpdated = r.time(loc), r.time(loc), r.time(loc)
		e.kind, e.model = r.string(), r.string()
		e.tokens = r.tokens()
		e.hasTokens = r.bool()
		e.prompt = r.string()
		e.project = r.string()
		if n := r.uvarint(); n > 0 {
			e.calls = make([]geminiCall, n)
			for i := range e.calls {
				e.calls[i] = geminiCall{name: r.string(), status: r.string(), input: r.string()}
			}
		}
		return e
	},
	withhold: func(e *geminiEntry) {
		withholdText(&e.prompt)
		e.calls = slices.Clone(e.calls)
		for i := range e.calls {
			withholdText(&e.calls[i].input)
		}
	},
}

func appendStr(b []byte, s Str) []byte { return appendBool(appendString(b, s.V), s.Set) }
func (r *spillReader) str() Str        { return Str{V: r.string(), Set: r.bool()} }

func appendNum(b []byte, n Num) []byte {
	return binary.LittleEndian.AppendUint64(appendBool(b, n.Set), math.Float64bits(n.V))
}
func (r *spillReader) num() Num { return Num{Set: r.bool(), V: math.Float64frombits(r.u64())} }

var taskRecordCodec = &entryCodec[taskRecord]{
	encode: func(b []byte, t *taskRecord, _ *time.Location) []byte {
		for _, s := range []Str{t.TaskID, t.ID, t.ToolName, t.Tool, t.Name, t.Status, t.Error} {
			b = appendStr(b, s)
		}
		return appendNum(b, t.ExecutionTime)
	},
	decode: func(r *spillReader, _ *time.Location) (t taskRecord) {
		for _, p := range []*Str{&t.TaskID, &t.ID, &t.ToolName, &t.Tool, &t.Name, &t.Status, &t.Error} {
			*p = r.str()
		}
		t.ExecutionTime = r.num()
		return t
	},
	withhold: func(t *taskRecord) { withholdText(&t.Error.V) },
}

// A batch's tasks are written as a count plus one (0: no tasks array at all).
var taskBatchCodec = &entryCodec[taskBatch]{
	encode: func(b []byte, t *taskBatch, loc *time.Location) []byte {
		b = appendStr(appendStr(b, t.BatchID), t.Status)
		if t.Tasks == nil {
			return append(b, 0)
		}
		b = binary.AppendUvarint(b, uint64(len(t.Tasks))+1)
		for i := range t.Tasks {
			b = taskRecordCodec.encode(b, &t.Tasks[i], loc)
		}
		return b
	},
	decode: func(r *spillReader, loc *time.Location) (t taskBatch) {
		t.BatchID, t.Status = r.str(), r.str()
		if n := r.uvarint(); n > 0 {
			t.Tasks = make([]taskRecord, n-1)
			for i := range t.Tasks {
				t.Tasks[i] = taskRecordCodec.decode(r, loc)
			}
		}
		return t
	},
	withhold: func(t *taskBatch) {
		t.Tasks = slices.Clone(t.Tasks)
		for i := range t.Tasks {
			taskRecordCodec.withhold(&t.Tasks[i])
		}
	},
}

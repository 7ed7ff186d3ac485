package formats

import (
	"bufio"
	"encoding/binary"
	"math"
	"time"
)

// Codex entries wait for their session's join on the record spill too: a
// session can span rollout files, so every entry of every rollout read was
// held until the end, and memory grew with the Codex bytes read (352 MB of
// rollouts took 230 MB). A log writes its entries out in segments of
// segmentLines while its file is read and the rest when the file is done,
// and its session's join reads them back and lets them go.

// flushCodex writes the entries l holds as a segment and empties them; on
// failure they stay in memory, and so do the log's later entries. The
// array is kept for the next segment of a file still being read (last
// false), and let go with the file's last.
func (s *RecordSpill) flushCodex(l *codexLog, last bool) {
	if len(l.entries) > 0 {
		ref, ok := s.write(func(w *bufio.Writer) { encodeCodex(w, l.entries, s.loc) })
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
func (l *codexLog) all() []codexEntry {
	if len(l.segments) == 0 {
		return l.entries
	}
	out := make([]codexEntry, 0, l.spilled+len(l.entries))
	for _, ref := range l.segments {
		out = l.spill.readCodex(ref, out)
	}
	return append(out, l.entries...)
}

func encodeCodex(w *bufio.Writer, entries []codexEntry, loc *time.Location) {
	b := binary.AppendUvarint(nil, uint64(len(entries)))
	for i := range entries {
		e := &entries[i]
		b = appendTime(b, e.at, loc)
		b = append(b, byte(e.kind))
		b = appendString(b, e.model)
		b = appendString(b, e.name)
		b = appendString(b, e.callID)
		b = appendBool(b, e.exitCode.Set)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(e.exitCode.V))
		for _, v := range []int64{e.tokens.Input, e.tokens.Output, e.tokens.CacheRead, e.tokens.CacheCreation, e.tokens.Unspecified} {
			b = binary.AppendVarint(b, v)
		}
		b = appendString(b, e.prompt)
		w.Write(b)
		b = b[:0]
	}
}

// readCodex appends one segment's entries to out.
func (s *RecordSpill) readCodex(ref spillRef, out []codexEntry) []codexEntry {
	r := s.reader(ref)
	n := r.uvarint()
	for range n {
		var e codexEntry
		e.at = r.time(s.loc)
		e.kind = codexKind(r.take(1)[0])
		e.model, e.name, e.callID = r.string(), r.string(), r.string()
		e.exitCode.Set = r.bool()
		e.exitCode.V = math.Float64frombits(r.u64())
		for _, p := range []*int64{&e.tokens.Input, &e.tokens.Output, &e.tokens.CacheRead, &e.tokens.CacheCreation, &e.tokens.Unspecified} {
			*p = r.varint()
		}
		e.prompt = r.string()
		if r.err != nil {
			break
		}
		out = append(out, e)
	}
	s.done(r)
	return out
}

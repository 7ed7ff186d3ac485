package claudecode

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"time"

	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/join"
	"github.com/agentstat/agentstat/logformat/reader"
)

// The byte layout of a Claude Code file's records on the spill: its header
// and its tables, written and read back.

func encodeHeader(w *bufio.Writer, f *fileSession, loc *time.Location) {
	var b []byte
	b = recordspill.AppendBool(b, f.quiet)
	b = recordspill.AppendTime(b, f.first, loc)
	b = recordspill.AppendTime(b, f.last, loc)
	b = recordspill.AppendText(b, f.cwd)
	b = recordspill.AppendText(b, f.branch)
	b = binary.AppendUvarint(b, uint64(len(f.words)))
	for _, a := range f.words {
		b = recordspill.AppendText(b, a)
	}
	w.Write(b)
}

func encodeTables(w *bufio.Writer, f *fileSession, loc *time.Location) {
	var b []byte // one record at a time
	put := func() {
		w.Write(b)
		b = b[:0]
	}
	for _, n := range f.tableSizes() {
		b = binary.AppendUvarint(b, uint64(n))
	}
	put()
	for i := range f.lines {
		l := &f.lines[i]
		b = append(b, f.uuids[i][:]...)
		b = binary.LittleEndian.AppendUint64(b, uint64(l.sec)) // in the spill's zone, loc
		for _, v := range []int32{l.nanos(), l.agent, l.usage, l.prompt, l.usesLo, l.resultsLo, l.nUses, l.nResults} {
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		}
		var flags byte // sidechain, compaction
		if l.sidechain() {
			flags |= 1
		}
		if l.compaction() {
			flags |= 2
		}
		b = append(b, flags)
		put()
	}
	for i := range f.usages {
		u := &f.usages[i]
		b = append(b, u.key[:]...)
		for _, v := range []int64{u.tokens.Input, u.tokens.Output, u.tokens.CacheRead, u.tokens.CacheCreation, u.tokens.Unspecified, u.tokens.CacheCreation1h} {
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(u.model))
		put()
	}
	for i := range f.uses {
		u := &f.uses[i]
		b = append(b, u.id[:]...)
		b = binary.LittleEndian.AppendUint32(b, uint32(u.name))
		b = binary.LittleEndian.AppendUint32(b, uint32(u.subagent))
		b = binary.LittleEndian.AppendUint32(b, uint32(u.input))
		put()
	}
	for i := range f.results {
		r := &f.results[i]
		b = append(b, r.useID[:]...)
		b = binary.LittleEndian.AppendUint32(b, uint32(r.text))
		b = binary.LittleEndian.AppendUint32(b, uint32(r.agentID))
		b = recordspill.AppendBool(b, r.isError)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(r.durationMS))
		b = recordspill.AppendBool(b, r.hasDuration)
		b = recordspill.AppendBool(b, r.interrupted)
		put()
	}
	for _, p := range f.prompts {
		b = recordspill.AppendText(b, p)
		put()
	}
}

func decodeHeader(r *recordspill.Reader, f *fileSession, loc *time.Location) {
	f.loc = loc // the zone its lines' times were read in
	f.quiet = r.Bool()
	f.first, f.last = r.Time(loc), r.Time(loc)
	f.cwd, f.branch = r.Text(), r.Text()
	if n := r.Uvarint(); n > 0 {
		f.words = make([]string, n)
		for i := range f.words {
			f.words[i] = r.Text()
		}
	}
}

// decodeTables appends one record's tables of keep to f's, and reads past
// the others.
func decodeTables(r *recordspill.Reader, f *fileSession, loc *time.Location, keep tableSet) {
	var n [5]int
	for i := range n {
		n[i] = r.Uvarint()
	}
	// A record's fixed-size fields are taken at once: a take each cost more
	// than the decoding (a long session has a million records).
	le := binary.LittleEndian
	for range n[0] {
		var l lineRecord
		var uuid reader.Digest
		b := r.Take(lineBytes)
		copy(uuid[:], b)
		b = b[len(uuid):]
		l.sec, l.nsec = int64(le.Uint64(b)), int32(le.Uint32(b[8:]))
		b = b[12:]
		l.agent, l.usage, l.prompt = int32(le.Uint32(b)), int32(le.Uint32(b[4:])), int32(le.Uint32(b[8:]))
		l.usesLo, l.resultsLo = int32(le.Uint32(b[12:])), int32(le.Uint32(b[16:]))
		l.nUses, l.nResults = int32(le.Uint32(b[20:])), int32(le.Uint32(b[24:]))
		if b[28]&1 != 0 {
			l.setSidechain()
		}
		if b[28]&2 != 0 {
			l.setCompaction()
		}
		if keep&linesAndUsages != 0 {
			f.lines = append(f.lines, l)
		}
		if keep&uuidTable != 0 {
			f.uuids = append(f.uuids, uuid)
		}
	}
	if keep&linesAndUsages == 0 {
		r.Skip(n[1] * usageBytes)
		n[1] = 0
	}
	for range n[1] {
		b := r.Take(usageBytes)
		var u msgUsage
		copy(u.key[:], b)
		b = b[len(u.key):]
		t := &u.tokens
		t.Input, t.Output, t.CacheRead = int64(le.Uint64(b)), int64(le.Uint64(b[8:])), int64(le.Uint64(b[16:]))
		t.CacheCreation, t.Unspecified, t.CacheCreation1h = int64(le.Uint64(b[24:])), int64(le.Uint64(b[32:])), int64(le.Uint64(b[40:]))
		u.model = int32(le.Uint32(b[48:]))
		f.usages = append(f.usages, u)
	}
	if keep&usesAndResults == 0 {
		r.Skip(int(r.Left())) // the uses, results and prompts
		return
	}
	for range n[2] {
		b := r.Take(len(reader.Digest{}) + 3*4)
		var u toolUse
		copy(u.id[:], b)
		b = b[len(u.id):]
		u.name, u.subagent, u.input = int32(le.Uint32(b)), int32(le.Uint32(b[4:])), int32(le.Uint32(b[8:]))
		f.uses = append(f.uses, u)
	}
	for range n[3] {
		b := r.Take(len(reader.Digest{}) + 2*4 + 1 + 8 + 1 + 1)
		var res toolResult
		copy(res.useID[:], b)
		b = b[len(res.useID):]
		res.text, res.agentID = int32(le.Uint32(b)), int32(le.Uint32(b[4:]))
		res.isError = b[8] == 1
		res.durationMS, res.hasDuration = math.Float64frombits(le.Uint64(b[9:])), b[17] == 1
		res.interrupted = b[18] == 1
		f.results = append(f.results, res)
	}
	for range n[4] {
		f.prompts = append(f.prompts, r.Text())
	}
}

// lineBytes is how many bytes encodeTables writes for a line (its uuid first).
const lineBytes = len(reader.Digest{}) + 8 + 8*4 + 1

// usageBytes is how many bytes encodeTables writes for a usage.
const usageBytes = len(reader.Digest{}) + 6*8 + 4

// checkTables holds the indexes of cf's tables of keep (read back from a
// spill) to those tables: one outside is dropped (a line keeps only its
// time), and false says the spill is damaged. Nothing else bounds them, and
// the join must not crash on a disk's fault.
func checkTables(cf *fileSession, keep tableSet) bool {
	ok := true
	words := int32(len(cf.words))
	word := func(i *int32) bool {
		if *i != 0 && (*i < 0 || *i >= words) {
			*i = 0
			return false
		}
		return true
	}
	for i := range cf.lines {
		l := &cf.lines[i]
		good := word(&l.agent)
		if keep&linesAndUsages != 0 && l.usage != 0 {
			good = good && within(l.usage-1, 1, len(cf.usages))
		}
		if keep&usesAndResults != 0 {
			good = good && (l.prompt == 0 || within(l.prompt-1, 1, len(cf.prompts))) &&
				within(l.usesLo, l.nUses, len(cf.uses)) && within(l.resultsLo, l.nResults, len(cf.results))
		}
		if !good {
			*l = lineRecord{sec: l.sec, nsec: l.nsec}
			ok = false
		}
	}
	// Every index is held, not only up to the first bad one.
	for i := range cf.usages {
		ok = word(&cf.usages[i].model) && ok
	}
	for i := range cf.uses {
		u := &cf.uses[i]
		for _, p := range []*int32{&u.name, &u.subagent, &u.input} {
			ok = word(p) && ok
		}
	}
	for i := range cf.results {
		r := &cf.results[i]
		for _, p := range []*int32{&r.text, &r.agentID} {
			ok = word(p) && ok
		}
	}
	return ok
}

// within reports whether [lo, lo+n) lies in a table of size entries.
func within(lo, n int32, size int) bool { return lo >= 0 && n >= 0 && int(lo)+int(n) <= size }

// withhold replaces the texts of cf's records (WithholdText): its
// prompts, and the words its tool inputs and result texts point to.
func withhold(cf *fileSession) {
	for i := range cf.prompts {
		join.WithholdText(&cf.prompts[i])
	}
	// Inputs and result texts point to a withheld copy of their word: a
	// word may also be a tool's or an agent's name.
	cf.words = slices.Clone(cf.words)
	texts := map[int32]int32{}
	text := func(i *int32) {
		if *i <= 0 || int(*i) >= len(cf.words) {
			return
		}
		if _, ok := texts[*i]; !ok {
			w := cf.words[*i]
			join.WithholdText(&w)
			texts[*i] = int32(len(cf.words))
			cf.words = append(cf.words, w)
		}
		*i = texts[*i]
	}
	for i := range cf.uses {
		text(&cf.uses[i].input)
	}
	for i := range cf.results {
		text(&cf.results[i].text)
	}
	named := map[int32]bool{} // the words names still point to
	for _, l := range cf.lines {
		named[l.agent] = true
	}
	for _, u := range cf.usages {
		named[u.model] = true
	}
	for _, u := range cf.uses {
		named[u.name], named[u.subagent] = true, true
	}
	for _, r := range cf.results {
		named[r.agentID] = true
	}
	for i := range texts {
		if !named[i] {
			cf.words[i] = ""
		}
	}
}

// segmentOf is cf's header and tables as one record.
func segmentOf(cf *fileSession, loc *time.Location) join.Segment {
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	encodeHeader(bw, cf, loc)
	encodeTables(bw, cf, loc)
	bw.Flush()
	return join.Segment{Ref: recordspill.Ref{Tables: cf.tableSizes()}, Bytes: buf.Bytes()}
}

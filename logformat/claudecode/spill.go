package claudecode

import (
	"bufio"

	"github.com/agentstat/agentstat/internal/recordspill"
)

// A Claude Code file's records on the record spill: written a segment at a
// time while the file is read, and read back, in whole or only the tables
// a step of the join needs, when its session is joined.

// tableSizes is how many lines, usages, uses, results and prompts f holds.
func (f *fileSession) tableSizes() [5]int32 {
	return [5]int32{int32(len(f.lines)), int32(len(f.usages)), int32(len(f.uses)), int32(len(f.results)), int32(len(f.prompts))}
}

// flushTables writes the tables f holds as a segment and empties them, while its
// file is still being read; on failure the rest stays in memory.
func flushTables(s *recordspill.File, f *fileSession) {
	ref, ok := s.Write(func(w *bufio.Writer) { encodeTables(w, f, s.Loc()) })
	if !ok {
		f.noFlush = true
		return
	}
	ref.Tables = f.tableSizes()
	f.segments = append(f.segments, ref)
	f.base.usages += int32(len(f.usages))
	f.base.uses += int32(len(f.uses))
	f.base.results += int32(len(f.results))
	f.base.prompts += int32(len(f.prompts))
	// The next segment fills the same arrays: regrowing them from nothing
	// allocated twice the records of every long session.
	clear(f.prompts)
	f.lines, f.uuids, f.usages, f.uses, f.results, f.prompts = f.lines[:0], f.uuids[:0], f.usages[:0], f.uses[:0], f.results[:0], f.prompts[:0]
}

// putRecords writes the rest of a file's records, with the file's header, once
// the file is read; on failure they stay in memory.
func putRecords(s *recordspill.File, frag *sessionLog) {
	f := frag.claude
	ref, ok := s.Write(func(w *bufio.Writer) {
		encodeHeader(w, f, s.Loc())
		encodeTables(w, f, s.Loc())
	})
	if !ok {
		return
	}
	ref.Tables = f.tableSizes()
	frag.refs, frag.spill, frag.claude = append(f.segments, ref), s, nil
}

// A tableSet names tables of a fragment's records.
type tableSet uint8

const (
	linesAndUsages tableSet = 1 << iota // and the file's header: what a join needs once its uuids are counted (uuidKeys)
	usesAndResults                      // and the prompts: what it needs once the usages are counted
	uuidTable                           // the lines' uuids, read back with the rest only into memory
	allTables      = linesAndUsages | usesAndResults
)

// loadRecords brings a fragment's records back into memory: the tables of
// keep for one read back from the spill, every table otherwise (the
// second half then adds nothing). A long session is joined in three
// steps, so that its uuids (uuidKeys) are gone before its lines and
// usages come, and its usages before its uses and results.
func (frag *sessionLog) loadRecords(keep tableSet) {
	switch {
	case frag.spill != nil:
		cf := frag.claude
		if keep&linesAndUsages != 0 || cf == nil {
			cf = &fileSession{}
		}
		readAll(frag.spill, frag.refs, cf, keep)
		frag.claude = cf
	case frag.claude != nil && len(frag.claude.segments) > 0 && keep&linesAndUsages != 0: // the end did not reach the disk
		frag.claude = frag.wholeClaude()
	}
}

// wholeClaude is every record of a Claude Code fragment, its lines' uuids
// included, in one file in memory, wherever they are.
func (frag *sessionLog) wholeClaude() *fileSession {
	cf := &fileSession{}
	if frag.spill != nil {
		for i, ref := range frag.refs {
			readRecord(frag.spill, ref, cf, i == len(frag.refs)-1, allTables|uuidTable)
		}
		return cf
	}
	rest := frag.claude
	for _, ref := range rest.segments {
		readRecord(rest.spill, ref, cf, false, allTables|uuidTable)
	}
	cf.lines = append(cf.lines, rest.lines...)
	cf.uuids = append(cf.uuids, rest.uuids...)
	cf.usages = append(cf.usages, rest.usages...)
	cf.uses = append(cf.uses, rest.uses...)
	cf.results = append(cf.results, rest.results...)
	cf.prompts = append(cf.prompts, rest.prompts...)
	cf.words, cf.quiet, cf.first, cf.last, cf.loc = rest.words, rest.quiet, rest.first, rest.last, rest.loc
	cf.cwd, cf.branch = rest.cwd, rest.branch
	return cf
}

// makeRoom gives cf's tables of keep room for every entry of refs'
// records: a long session's tables are allocated once, never regrown.
func makeRoom(refs []recordspill.Ref, cf *fileSession, keep tableSet) {
	var total [5]int
	for _, ref := range refs {
		for k, n := range ref.Tables {
			total[k] += int(n)
		}
	}
	if keep&linesAndUsages != 0 {
		cf.lines, cf.usages = withRoom[lineRecord](total[0]), withRoom[msgUsage](total[1])
	}
	if keep&usesAndResults != 0 {
		cf.uses, cf.results, cf.prompts = withRoom[toolUse](total[2]), withRoom[toolResult](total[3]), withRoom[string](total[4])
	}
}

// withRoom is an empty slice with room for n, nil for none (as a table never appended to).
func withRoom[T any](n int) []T {
	if n == 0 {
		return nil
	}
	return make([]T, 0, n)
}

// readRecord appends one record's tables of keep to cf, and its header (a file's
// last record holds one) with the lines.
func readRecord(s *recordspill.File, ref recordspill.Ref, cf *fileSession, header bool, keep tableSet) {
	var into *fileSession
	if header {
		into = cf
	}
	readRecordInto(s, ref, into, cf, keep)
}

// readRecordInto reads one record: its header into header (nil for none), its
// tables of keep appended to tables.
func readRecordInto(s *recordspill.File, ref recordspill.Ref, header, tables *fileSession, keep tableSet) {
	r := s.Record(ref)
	if header != nil {
		if keep&linesAndUsages == 0 {
			header = &fileSession{} // read past
		}
		decodeHeader(r, header, s.Loc())
	}
	decodeTables(r, tables, s.Loc(), keep)
	s.Done(r)
}

// readAll reads a file's records (refs, the header in the last) into cf,
// its tables of keep each allocated once. A long session's records are
// decoded on both cores, each record into its own stretch of the tables
// (the join waits on them, one core's work otherwise).
func readAll(s *recordspill.File, refs []recordspill.Ref, cf *fileSession, keep tableSet) {
	makeRoom(refs, cf, keep)
	lines := 0
	for _, ref := range refs {
		lines += int(ref.Tables[0])
	}
	if len(refs) < 2 || lines < bothMin {
		for i, ref := range refs {
			readRecord(s, ref, cf, i == len(refs)-1, keep)
		}
		return
	}
	// Each record appends into a slice of the tables' room that starts
	// where the records before it end and holds just its own.
	stretches := make([]fileSession, len(refs))
	var at [5]int
	for i, ref := range refs {
		st, n := &stretches[i], ref.Tables
		if keep&linesAndUsages != 0 {
			st.lines, st.usages = stretch(cf.lines, at[0], n[0]), stretch(cf.usages, at[1], n[1])
		}
		if keep&usesAndResults != 0 {
			st.uses, st.results, st.prompts = stretch(cf.uses, at[2], n[2]), stretch(cf.results, at[3], n[3]), stretch(cf.prompts, at[4], n[4])
		}
		for k := range at {
			at[k] += int(n[k])
		}
	}
	bothHalves(lines, len(refs), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			var header *fileSession
			if i == len(refs)-1 {
				header = cf
			}
			readRecordInto(s, refs[i], header, &stretches[i], keep)
		}
	})
	for i, ref := range refs {
		// A record holding other counts than its reference would have
		// appended past its stretch, where nothing reads it.
		if got := stretches[i].tableSizes(); keep&linesAndUsages != 0 && (got[0] != ref.Tables[0] || got[1] != ref.Tables[1]) ||
			keep&usesAndResults != 0 && [3]int32(got[2:]) != [3]int32(ref.Tables[2:]) {
			s.Fail(recordspill.ErrCorrupt)
		}
	}
	if keep&linesAndUsages != 0 {
		cf.lines, cf.usages = cf.lines[:at[0]], cf.usages[:at[1]]
	}
	if keep&usesAndResults != 0 {
		cf.uses, cf.results, cf.prompts = cf.uses[:at[2]], cf.results[:at[3]], cf.prompts[:at[4]]
	}
}

// stretch is the empty slice of room's capacity from at that holds n, nil
// for a table given no room.
func stretch[T any](room []T, at int, n int32) []T {
	if room == nil {
		return nil
	}
	return room[at : at : at+int(n)]
}

// recordSpill is where the fragment's records are, nil for none.
func (frag *sessionLog) recordSpill() *recordspill.File {
	if frag.spill == nil && frag.claude != nil {
		return frag.claude.spill // nil unless a segment went there
	}
	return frag.spill
}

// lineCount is how many lines the fragment's records hold, in memory or not.
func (frag *sessionLog) lineCount() int32 {
	var n int32
	for _, ref := range frag.refs {
		n += ref.Tables[0]
	}
	if f := frag.claude; f != nil {
		for _, ref := range f.segments {
			n += ref.Tables[0]
		}
		n += int32(len(f.lines))
	}
	return n
}

// uuidKeys fills keys, one for each of the fragment's lines, with the
// line's uuid (zero for none) and number (the first line's is start). A
// record on the spill is read for its uuids alone: a long session's dedupe
// comes before its other tables are read back, so that they are not live
// together. A long fragment's records are read on both cores.
func (frag *sessionLog) uuidKeys(start int32, keys []idKey) {
	switch f := frag.claude; {
	case frag.spill != nil: // what is in memory (loadRecords) holds no uuids
		refs, at := frag.refs, make([]int, len(frag.refs)+1) // at[i]: keys of the records before refs[i]
		for i, ref := range refs {
			at[i+1] = at[i] + int(ref.Tables[0])
		}
		bothHalves(at[len(refs)], len(refs), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				readUUIDs(frag.spill, refs[i], i == len(refs)-1, keys[at[i]:at[i+1]], start+int32(at[i]))
			}
		})
	case f != nil:
		k := 0
		for _, ref := range f.segments { // the end did not reach the disk
			n := int(ref.Tables[0])
			readUUIDs(f.spill, ref, false, keys[k:k+n], start+int32(k))
			k += n
		}
		for _, uuid := range f.uuids {
			keys[k] = idKey{keyOf(uuid), start + int32(k)}
			k++
		}
	}
}

// readUUIDs reads the uuids of one record's lines into keys, numbered from
// g, and fails the spill unless there are as many; the record holds a
// file's header first if header is set.
func readUUIDs(s *recordspill.File, ref recordspill.Ref, header bool, keys []idKey, g int32) {
	r := s.Record(ref)
	if header {
		decodeHeader(r, &fileSession{}, s.Loc())
	}
	var n [5]int
	for i := range n {
		n[i] = r.Uvarint()
	}
	if n[0] != len(keys) {
		r.Corrupt()
	}
	for k := range min(n[0], len(keys)) {
		keys[k] = idKey{keyID(r.Take(lineBytes)[:len(keyID{})]), g + int32(k)}
	}
	r.Skip(int(r.Left())) // the usages, uses, results and prompts
	s.Done(r)
}

// recordSize is about how many bytes a fragment's records take on the spill.
func (frag *sessionLog) recordSize() int64 {
	var n int64
	for _, ref := range frag.refs {
		n += ref.N
	}
	if f := frag.claude; f != nil {
		for _, ref := range f.segments {
			n += ref.N
		}
		n += int64(len(f.lines)) * 120 // a line with its usage, uses and results takes ~117 bytes there
	}
	return n
}

// release drops records loaded from the spill once their session is joined.
func (frag *sessionLog) release() {
	if frag.spill != nil {
		frag.claude = nil
	}
}

// The encoding: little-endian fixed-size fields, uvarint-prefixed strings,
// times with their zone, Unix seconds and nanoseconds (a line's without:
// it is the spill's). A file's header (span of its quiet lines, agent
// table) comes with its last record.

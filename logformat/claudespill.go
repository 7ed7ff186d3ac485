package logformat

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentstat/agentstat/internal/tempfile"
)

// RecordSpill keeps Claude Code line records (and the entries of the other
// formats joined across files, see entryLog) on disk from when they are
// read (in segments of segmentLines, and the rest at the end of their file)
// to their session's join, so that memory follows the largest session
// rather than every line of every transcript read (a heavy user's projects
// hold gigabytes of them). Records come back exactly as they went, so the
// join gives the same runs. The spill takes about a tenth of the
// transcripts' size in the temporary directory.
type RecordSpill struct {
	mu     sync.Mutex
	f      *tempfile.File
	off    int64
	loc    *time.Location
	w      *bufio.Writer // the writer's buffer, reused
	win    []byte        // what the spill read ahead, from winOff
	winOff int64
	err    error // the first failure to read back; the run cannot be trusted after it
}

// NewRecordSpill makes an empty spill in the temporary directory; loc is the
// zone the records' times were read in (Options.Location).
func NewRecordSpill(loc *time.Location) (*RecordSpill, error) {
	f, err := tempfile.New("agentstat-records-")
	if err != nil {
		return nil, err
	}
	if loc == nil {
		loc = time.UTC
	}
	return &RecordSpill{f: f, loc: loc}, nil
}

// Err reports a record that could not be read back.
func (s *RecordSpill) Err() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close removes the spill.
func (s *RecordSpill) Close() error {
	if s == nil {
		return nil
	}
	return s.f.Close()
}

type spillRef struct {
	off, n int64
	tables [5]int32 // entries of each table a Claude Code record holds (tableSizes)
}

// tableSizes is how many lines, usages, uses, results and prompts f holds.
func (f *claudeFile) tableSizes() [5]int32 {
	return [5]int32{int32(len(f.lines)), int32(len(f.usages)), int32(len(f.uses)), int32(len(f.results)), int32(len(f.prompts))}
}

// segmentLines is how many line records a file keeps in memory before it
// writes them out as a segment (a variable for tests): with their usages,
// uses and results, about 0.75 MB for a long transcript while it is read.
var segmentLines = 1 << 12

// write appends one record to the spill through a small buffer: a long
// session's records are tens of MB.
// A write error sticks in the buffer and comes out of its Flush.
func (s *RecordSpill) write(encode func(*bufio.Writer)) (spillRef, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ow := io.NewOffsetWriter(s.f, s.off)
	if s.w == nil {
		s.w = bufio.NewWriterSize(ow, 64<<10)
	}
	bw := s.w // one buffer for every record: writes hold the lock
	bw.Reset(ow)
	encode(bw)
	if err := bw.Flush(); err != nil {
		return spillRef{}, false
	}
	n, _ := ow.Seek(0, io.SeekCurrent) // bytes written
	ref := spillRef{off: s.off, n: n}
	s.off += n
	return ref, true
}

// flush writes the tables f holds as a segment and empties them, while its
// file is still being read; on failure the rest stays in memory.
func (s *RecordSpill) flush(f *claudeFile) {
	ref, ok := s.write(func(w *bufio.Writer) { encodeTables(w, f, s.loc) })
	if !ok {
		f.noFlush = true
		return
	}
	ref.tables = f.tableSizes()
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

// put writes the rest of a file's records, with the file's header, once
// the file is read; on failure they stay in memory.
func (s *RecordSpill) put(frag *Fragment) {
	f := frag.claude
	ref, ok := s.write(func(w *bufio.Writer) {
		encodeHeader(w, f, s.loc)
		encodeTables(w, f, s.loc)
	})
	if !ok {
		return
	}
	ref.tables = f.tableSizes()
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
func (frag *Fragment) loadRecords(keep tableSet) {
	switch {
	case frag.spill != nil:
		cf := frag.claude
		if keep&linesAndUsages != 0 || cf == nil {
			cf = &claudeFile{}
		}
		frag.spill.readAll(frag.refs, cf, keep)
		frag.claude = cf
	case frag.claude != nil && len(frag.claude.segments) > 0 && keep&linesAndUsages != 0: // the end did not reach the disk
		rest, cf := frag.claude, &claudeFile{}
		for _, ref := range rest.segments {
			rest.spill.read(ref, cf, false, allTables|uuidTable)
		}
		cf.lines = append(cf.lines, rest.lines...)
		cf.uuids = append(cf.uuids, rest.uuids...)
		cf.usages = append(cf.usages, rest.usages...)
		cf.uses = append(cf.uses, rest.uses...)
		cf.results = append(cf.results, rest.results...)
		cf.prompts = append(cf.prompts, rest.prompts...)
		cf.words, cf.quiet, cf.first, cf.last, cf.loc = rest.words, rest.quiet, rest.first, rest.last, rest.loc
		cf.cwd, cf.branch = rest.cwd, rest.branch
		frag.claude = cf
	}
}

// makeRoom gives cf's tables of keep room for every entry of refs'
// records: a long session's tables are allocated once, never regrown.
func makeRoom(refs []spillRef, cf *claudeFile, keep tableSet) {
	var total [5]int
	for _, ref := range refs {
		for k, n := range ref.tables {
			total[k] += int(n)
		}
	}
	if keep&linesAndUsages != 0 {
		cf.lines, cf.usages = withRoom[claudeLine](total[0]), withRoom[claudeUsage](total[1])
	}
	if keep&usesAndResults != 0 {
		cf.uses, cf.results, cf.prompts = withRoom[claudeUse](total[2]), withRoom[claudeResult](total[3]), withRoom[string](total[4])
	}
}

// withRoom is an empty slice with room for n, nil for none (as a table never appended to).
func withRoom[T any](n int) []T {
	if n == 0 {
		return nil
	}
	return make([]T, 0, n)
}

// reader reads one record; its buffer is no larger than the record, since
// most sessions are a few KB and the join reads every record twice. A
// small record comes from a window of the file read ahead: the join reads
// records in about the order they were written, and a tree of small files
// (a PlanAgent store) has tens of thousands of them, a read each.
// Readers are reused (spillReaders): done, or release, hands one back.
func (s *RecordSpill) reader(ref spillRef) *spillReader {
	r := spillReaders.Get().(*spillReader)
	if ref.n <= spillWindow/4 && s.fromWindow(ref, r) {
		return r // in memory already
	}
	r.src, r.rest = io.NewSectionReader(s.f, ref.off, ref.n), ref.n
	r.buf = slices.Grow(r.buf[:0], int(min(ref.n, 64<<10)))
	return r
}

// spillReaders are the readers of records, with their buffers, reused from
// record to record: a join reads tens of thousands back, and a reader and
// buffer made for each (or a copy of the window's bytes) were 56 MB of
// allocation at 1 GB of logs. Nothing read keeps a reader's bytes: what
// it decodes is copied out.
var spillReaders = sync.Pool{New: func() any { return new(spillReader) }}

// release hands r back for the next record.
func (r *spillReader) release() {
	clear(r.strs)
	clear(r.zones)
	*r = spillReader{buf: r.buf[:0], strs: r.strs, zones: r.zones}
	spillReaders.Put(r)
}

// spillWindow is how much the spill reads ahead for small records.
const spillWindow = 256 << 10

// fromWindow copies the record at ref into r's buffer, read through the
// window (the window is reused by the next read, whichever goroutine makes
// it); false when it cannot be read (the caller's reader then reports it).
func (s *RecordSpill) fromWindow(ref spillRef, r *spillReader) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if end := s.winOff + int64(len(s.win)); ref.off < s.winOff || ref.off+ref.n > end {
		if s.win == nil {
			s.win = make([]byte, spillWindow)
		}
		// Read ahead only when reading on from the window's end: a join
		// that jumps about (plans naming batches anywhere) would read a
		// whole window for every small record.
		size := int64(cap(s.win))
		if ref.off < end || ref.off > end+size {
			size = max(ref.n, 4<<10)
		}
		n, err := s.f.ReadAt(s.win[:size], ref.off)
		if int64(n) < ref.n {
			s.win, s.winOff = s.win[:0], 0
			return false
		}
		_ = err // io.EOF at the spill's end, with the record read
		s.win, s.winOff = s.win[:n], ref.off
	}
	at := ref.off - s.winOff
	r.buf = append(r.buf[:0], s.win[at:at+ref.n]...)
	r.b = r.buf
	return true
}

// read appends one record's tables of keep to cf, and its header (a file's
// last record holds one) with the lines.
func (s *RecordSpill) read(ref spillRef, cf *claudeFile, header bool, keep tableSet) {
	var into *claudeFile
	if header {
		into = cf
	}
	s.readInto(ref, into, cf, keep)
}

// readInto reads one record: its header into header (nil for none), its
// tables of keep appended to tables.
func (s *RecordSpill) readInto(ref spillRef, header, tables *claudeFile, keep tableSet) {
	r := s.reader(ref)
	if header != nil {
		if keep&linesAndUsages == 0 {
			header = &claudeFile{} // read past
		}
		decodeHeader(r, header, s.loc)
	}
	decodeTables(r, tables, s.loc, keep)
	s.done(r)
}

// readAll reads a file's records (refs, the header in the last) into cf,
// its tables of keep each allocated once. A long session's records are
// decoded on both cores, each record into its own stretch of the tables
// (the join waits on them, one core's work otherwise).
func (s *RecordSpill) readAll(refs []spillRef, cf *claudeFile, keep tableSet) {
	makeRoom(refs, cf, keep)
	lines := 0
	for _, ref := range refs {
		lines += int(ref.tables[0])
	}
	if len(refs) < 2 || lines < bothMin {
		for i, ref := range refs {
			s.read(ref, cf, i == len(refs)-1, keep)
		}
		return
	}
	// Each record appends into a slice of the tables' room that starts
	// where the records before it end and holds just its own.
	stretches := make([]claudeFile, len(refs))
	var at [5]int
	for i, ref := range refs {
		st, n := &stretches[i], ref.tables
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
			var header *claudeFile
			if i == len(refs)-1 {
				header = cf
			}
			s.readInto(refs[i], header, &stretches[i], keep)
		}
	})
	for i, ref := range refs {
		// A record holding other counts than its reference would have
		// appended past its stretch, where nothing reads it.
		if got := stretches[i].tableSizes(); keep&linesAndUsages != 0 && (got[0] != ref.tables[0] || got[1] != ref.tables[1]) ||
			keep&usesAndResults != 0 && [3]int32(got[2:]) != [3]int32(ref.tables[2:]) {
			s.fail(errSpillCorrupt)
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

// done checks that a record was read to its end, and keeps the first failure.
func (s *RecordSpill) done(r *spillReader) {
	if r.err == nil && r.left() != 0 {
		r.err = errSpillCorrupt
	}
	if r.err != nil {
		s.fail(r.err)
	}
	r.release()
}

// fail keeps the first failure to read back.
func (s *RecordSpill) fail(err error) {
	s.mu.Lock()
	s.err = cmp.Or(s.err, err)
	s.mu.Unlock()
}

// recordSpill is where the fragment's records are, nil for none.
func (frag *Fragment) recordSpill() *RecordSpill {
	if frag.spill == nil && frag.claude != nil {
		return frag.claude.spill // nil unless a segment went there
	}
	return frag.spill
}

// lineCount is how many lines the fragment's records hold, in memory or not.
func (frag *Fragment) lineCount() int32 {
	var n int32
	for _, ref := range frag.refs {
		n += ref.tables[0]
	}
	if f := frag.claude; f != nil {
		for _, ref := range f.segments {
			n += ref.tables[0]
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
func (frag *Fragment) uuidKeys(start int32, keys []idKey) {
	switch f := frag.claude; {
	case frag.spill != nil: // what is in memory (loadRecords) holds no uuids
		refs, at := frag.refs, make([]int, len(frag.refs)+1) // at[i]: keys of the records before refs[i]
		for i, ref := range refs {
			at[i+1] = at[i] + int(ref.tables[0])
		}
		bothHalves(at[len(refs)], len(refs), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				frag.spill.readUUIDs(refs[i], i == len(refs)-1, keys[at[i]:at[i+1]], start+int32(at[i]))
			}
		})
	case f != nil:
		k := 0
		for _, ref := range f.segments { // the end did not reach the disk
			n := int(ref.tables[0])
			f.spill.readUUIDs(ref, false, keys[k:k+n], start+int32(k))
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
func (s *RecordSpill) readUUIDs(ref spillRef, header bool, keys []idKey, g int32) {
	r := s.reader(ref)
	if header {
		decodeHeader(r, &claudeFile{}, s.loc)
	}
	var n [5]int
	for i := range n {
		n[i] = r.uvarint()
	}
	if n[0] != len(keys) {
		r.err = cmp.Or(r.err, errSpillCorrupt)
	}
	for k := range min(n[0], len(keys)) {
		keys[k] = idKey{keyID(r.take(lineBytes)[:len(keyID{})]), g + int32(k)}
	}
	r.skip(int(r.left())) // the usages, uses, results and prompts
	s.done(r)
}

// recordSize is about how many bytes a fragment's records take on the spill.
func (frag *Fragment) recordSize() int64 {
	var n int64
	for _, ref := range frag.refs {
		n += ref.n
	}
	if f := frag.claude; f != nil {
		for _, ref := range f.segments {
			n += ref.n
		}
		n += int64(len(f.lines)) * 120 // a line with its usage, uses and results takes ~117 bytes there
	}
	return n
}

// release drops records loaded from the spill once their session is joined.
func (frag *Fragment) release() {
	if frag.spill != nil {
		frag.claude = nil
	}
}

// The encoding: little-endian fixed-size fields, uvarint-prefixed strings,
// times with their zone, Unix seconds and nanoseconds (a line's without:
// it is the spill's). A file's header (span of its quiet lines, agent
// table) comes with its last record.

func encodeHeader(w *bufio.Writer, f *claudeFile, loc *time.Location) {
	var b []byte
	b = appendBool(b, f.quiet)
	b = appendTime(b, f.first, loc)
	b = appendTime(b, f.last, loc)
	b = appendString(b, f.cwd)
	b = appendString(b, f.branch)
	b = binary.AppendUvarint(b, uint64(len(f.words)))
	for _, a := range f.words {
		b = appendString(b, a)
	}
	w.Write(b)
}

func encodeTables(w *bufio.Writer, f *claudeFile, loc *time.Location) {
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
		b = appendBool(b, r.isError)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(r.durationMS))
		b = appendBool(b, r.hasDuration)
		b = appendBool(b, r.interrupted)
		put()
	}
	for _, p := range f.prompts {
		b = appendString(b, p)
		put()
	}
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// Times keep their zone: a timestamp written with one keeps it (UTC, or
// its offset), one written without is in the --tz zone.
const (
	zoneNone  = iota // the zero time
	zoneUTC          // UTC
	zoneSpill        // the spill's zone (--tz)
	zoneLocal        // time.Local
	zoneFixed        // a name and an offset
)

func appendTime(b []byte, t time.Time, loc *time.Location) []byte {
	if t.IsZero() {
		return append(b, zoneNone)
	}
	switch l := t.Location(); {
	case l == time.UTC:
		b = append(b, zoneUTC)
	case l == loc:
		b = append(b, zoneSpill)
	case l == time.Local:
		b = append(b, zoneLocal)
	default:
		name, offset := t.Zone()
		b = append(b, zoneFixed)
		b = appendString(b, name)
		b = binary.LittleEndian.AppendUint32(b, uint32(int32(offset)))
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(t.Unix()))
	return binary.LittleEndian.AppendUint32(b, uint32(t.Nanosecond()))
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

var errSpillCorrupt = errors.New("corrupt data read back")

// spillReader reads what encodeHeader and encodeTables wrote; the first
// short read sticks, and repeated strings (models, tool names) and zones
// are shared again. It parses from a slice of what it buffered, so that a
// field costs a bounds check: the join reads a long session back in three steps.
type spillReader struct {
	src   io.ReadSeeker // the record's bytes not buffered yet (a section of the spill)
	rest  int64         // how many there are
	buf   []byte        // the buffer
	b     []byte        // what buf holds not read yet
	err   error
	zero  [16]byte // what a failed take returns
	strs  map[string]string
	zones map[fixedZone]*time.Location
}

type fixedZone struct {
	name   string
	offset int
}

// left is how many bytes of the record are not read yet.
func (r *spillReader) left() int64 { return int64(len(r.b)) + r.rest }

// fill buffers at least n bytes (no more than the buffer holds), false if
// the record ends first.
func (r *spillReader) fill(n int) bool {
	if n > cap(r.buf) || int64(n) > r.left() {
		return false
	}
	m := copy(r.buf[:cap(r.buf)], r.b)
	k, err := io.ReadFull(r.src, r.buf[m:m+int(min(int64(cap(r.buf)-m), r.rest))])
	r.rest -= int64(k)
	r.b = r.buf[:m+k]
	return err == nil && len(r.b) >= n
}

func (r *spillReader) take(n int) []byte {
	if r.err == nil && len(r.b) >= n {
		b := r.b[:n]
		r.b = r.b[n:]
		return b
	}
	return r.takeSlow(n)
}

func (r *spillReader) takeSlow(n int) []byte {
	if r.err == nil && r.fill(n) {
		return r.take(n)
	}
	r.err = errSpillCorrupt
	if n > len(r.zero) { // a string's bytes or a record's fixed part: the caller drops them
		return make([]byte, n)
	}
	b := r.zero[:n]
	clear(b)
	return b
}

// uvarint reads a length or a count: never more than the bytes left, as
// every string byte and every record takes at least one.
func (r *spillReader) uvarint() int {
	if r.err != nil {
		return 0
	}
	if len(r.b) < binary.MaxVarintLen64 {
		r.fill(int(min(binary.MaxVarintLen64, r.left())))
	}
	v, k := binary.Uvarint(r.b)
	if k <= 0 || v > uint64(r.left()-int64(k)) {
		r.err = errSpillCorrupt
		return 0
	}
	r.b = r.b[k:]
	return int(v)
}

// varint reads a signed number (a token count).
func (r *spillReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	if len(r.b) < binary.MaxVarintLen64 {
		r.fill(int(min(binary.MaxVarintLen64, r.left())))
	}
	v, k := binary.Varint(r.b)
	if k <= 0 {
		r.err = errSpillCorrupt
		return 0
	}
	r.b = r.b[k:]
	return v
}

// skip moves past n bytes.
func (r *spillReader) skip(n int) {
	if r.err != nil {
		return
	}
	if int64(n) > r.left() {
		r.err = errSpillCorrupt
		return
	}
	if n <= len(r.b) {
		r.b = r.b[n:]
		return
	}
	n -= len(r.b)
	r.b = r.b[:0]
	// Seeked past, not read: each step of a long session's join skips the
	// tables it leaves to another (the uuids' step all but the lines).
	if _, err := r.src.Seek(int64(n), io.SeekCurrent); err != nil {
		r.err = errSpillCorrupt
	}
	r.rest -= int64(n)
}

func (r *spillReader) bool() bool  { return r.take(1)[0] == 1 }
func (r *spillReader) u32() uint32 { return binary.LittleEndian.Uint32(r.take(4)) }
func (r *spillReader) u64() uint64 { return binary.LittleEndian.Uint64(r.take(8)) }

func (r *spillReader) time(loc *time.Location) time.Time {
	var zone *time.Location
	switch r.take(1)[0] {
	case zoneNone:
		return time.Time{}
	case zoneUTC:
		zone = time.UTC
	case zoneSpill:
		zone = loc
	case zoneLocal:
		zone = time.Local
	case zoneFixed:
		z := fixedZone{r.string(), int(int32(r.u32()))}
		if zone = r.zones[z]; zone == nil {
			zone = time.FixedZone(z.name, z.offset)
			if r.zones == nil {
				r.zones = map[fixedZone]*time.Location{}
			}
			r.zones[z] = zone
		}
	default:
		r.err = errSpillCorrupt
		return time.Time{}
	}
	sec := int64(r.u64())
	return time.Unix(sec, int64(r.u32())).In(zone)
}

func (r *spillReader) string() string {
	n := r.uvarint()
	if r.err != nil || n == 0 {
		return ""
	}
	if n > cap(r.buf) { // longer than the buffer: a prompt in a small record
		var sb strings.Builder
		sb.Grow(n)
		k := min(n, len(r.b))
		sb.Write(r.b[:k])
		r.b = r.b[k:]
		if _, err := io.CopyN(&sb, r.src, int64(n-k)); err != nil {
			r.err = errSpillCorrupt
			return ""
		}
		r.rest -= int64(n - k)
		return sb.String()
	}
	b := r.take(n)
	if r.err != nil {
		return ""
	}
	s, ok := "", false
	if n <= 64 {
		s, ok = r.strs[string(b)]
	}
	if !ok {
		s = string(b)
		if n <= 64 && len(r.strs) < 4096 {
			if r.strs == nil {
				r.strs = map[string]string{}
			}
			r.strs[s] = s
		}
	}
	return s
}

func decodeHeader(r *spillReader, f *claudeFile, loc *time.Location) {
	f.loc = loc // the zone its lines' times were read in
	f.quiet = r.bool()
	f.first, f.last = r.time(loc), r.time(loc)
	f.cwd, f.branch = r.string(), r.string()
	if n := r.uvarint(); n > 0 {
		f.words = make([]string, n)
		for i := range f.words {
			f.words[i] = r.string()
		}
	}
}

// decodeTables appends one record's tables of keep to f's, and reads past
// the others.
func decodeTables(r *spillReader, f *claudeFile, loc *time.Location, keep tableSet) {
	var n [5]int
	for i := range n {
		n[i] = r.uvarint()
	}
	// A record's fixed-size fields are taken at once: a take each cost more
	// than the decoding (a long session has a million records).
	le := binary.LittleEndian
	for range n[0] {
		var l claudeLine
		var uuid digest
		b := r.take(lineBytes)
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
		r.skip(n[1] * usageBytes)
		n[1] = 0
	}
	for range n[1] {
		b := r.take(usageBytes)
		var u claudeUsage
		copy(u.key[:], b)
		b = b[len(u.key):]
		t := &u.tokens
		t.Input, t.Output, t.CacheRead = int64(le.Uint64(b)), int64(le.Uint64(b[8:])), int64(le.Uint64(b[16:]))
		t.CacheCreation, t.Unspecified, t.CacheCreation1h = int64(le.Uint64(b[24:])), int64(le.Uint64(b[32:])), int64(le.Uint64(b[40:]))
		u.model = int32(le.Uint32(b[48:]))
		f.usages = append(f.usages, u)
	}
	if keep&usesAndResults == 0 {
		r.skip(int(r.left())) // the uses, results and prompts
		return
	}
	for range n[2] {
		b := r.take(len(digest{}) + 3*4)
		var u claudeUse
		copy(u.id[:], b)
		b = b[len(u.id):]
		u.name, u.subagent, u.input = int32(le.Uint32(b)), int32(le.Uint32(b[4:])), int32(le.Uint32(b[8:]))
		f.uses = append(f.uses, u)
	}
	for range n[3] {
		b := r.take(len(digest{}) + 2*4 + 1 + 8 + 1 + 1)
		var res claudeResult
		copy(res.useID[:], b)
		b = b[len(res.useID):]
		res.text, res.agentID = int32(le.Uint32(b)), int32(le.Uint32(b[4:]))
		res.isError = b[8] == 1
		res.durationMS, res.hasDuration = math.Float64frombits(le.Uint64(b[9:])), b[17] == 1
		res.interrupted = b[18] == 1
		f.results = append(f.results, res)
	}
	for range n[4] {
		f.prompts = append(f.prompts, r.string())
	}
}

// lineBytes is how many bytes encodeTables writes for a line (its uuid first).
const lineBytes = len(digest{}) + 8 + 8*4 + 1

// usageBytes is how many bytes encodeTables writes for a usage.
const usageBytes = len(digest{}) + 6*8 + 4

// checkTables holds the indexes of cf's tables of keep (read back from a
// spill) to those tables: one outside is dropped (a line keeps only its
// time), and false says the spill is damaged. Nothing else bounds them, and
// the join must not crash on a disk's fault.
func checkTables(cf *claudeFile, keep tableSet) bool {
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
			*l = claudeLine{sec: l.sec, nsec: l.nsec}
			ok = false
		}
	}
	for i := range cf.usages {
		ok = word(&cf.usages[i].model) && ok
	}
	for i := range cf.uses {
		ok = word(&cf.uses[i].name) && word(&cf.uses[i].subagent) && word(&cf.uses[i].input) && ok
	}
	for i := range cf.results {
		ok = word(&cf.results[i].text) && word(&cf.results[i].agentID) && ok
	}
	return ok
}

// within reports whether [lo, lo+n) lies in a table of size entries.
func within(lo, n int32, size int) bool { return lo >= 0 && n >= 0 && int(lo)+int(n) <= size }

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
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/model"
)

// The record spill: a scratch file that keeps the records of runs spread
// over files from when they are read to their join, and the byte
// primitives its records are written and read back with.

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
// buffer made for each (or a copy of the window's bytes) would be 56 MB of
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

// spillReader reads one record back (what a format's codec wrote: a Claude
// Code file's in claudecodec.go, the other formats' in entrylog.go); the first
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

func (r *spillReader) bool() bool { return r.take(1)[0] == 1 }

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

func appendStr(b []byte, s jsonscan.Str) []byte { return appendBool(appendString(b, s.V), s.Set) }

func (r *spillReader) str() jsonscan.Str { return jsonscan.Str{V: r.string(), Set: r.bool()} }

func appendNum(b []byte, n jsonscan.Num) []byte {
	return binary.LittleEndian.AppendUint64(appendBool(b, n.Set), math.Float64bits(n.V))
}

func (r *spillReader) num() jsonscan.Num {
	return jsonscan.Num{Set: r.bool(), V: math.Float64frombits(r.u64())}
}

// groupFragments groups fragments by key, keys in order of first appearance.
func groupFragments(frags []*Fragment) (order []string, groups map[string][]*Fragment) {
	groups = map[string][]*Fragment{}
	for _, f := range frags {
		if _, seen := groups[f.key]; !seen {
			order = append(order, f.key)
		}
		groups[f.key] = append(groups[f.key], f)
	}
	return order, groups
}

// segmentLines is how many line records a file keeps in memory before it
// writes them out as a segment (a variable for tests): with their usages,
// uses and results, about 0.75 MB for a long transcript while it is read.
var segmentLines = 1 << 12

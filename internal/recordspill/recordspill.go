// Package recordspill is a scratch file that keeps the records of runs
// spread over files from when they are read to their join, and the byte
// primitives its records are written and read back with.
//
// The format readers keep there Claude Code's line records and the
// entries of the other formats joined across files, in segments while a
// file is read and the rest at its end, so that memory follows the
// largest session rather than every line of every transcript read (a
// heavy user's projects hold gigabytes of them). Records come back exactly
// as they went, so a join gives the same runs. The spill takes about a
// tenth of the transcripts' size in the temporary directory.
package recordspill

import (
	"bufio"
	"bytes"
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

// File is a spill: records written whole, read back by their Ref.
type File struct {
	mu     sync.Mutex
	f      Storage
	off    int64
	loc    *time.Location
	w      *bufio.Writer // the writer's buffer, reused
	win    []byte        // what the spill read ahead, from winOff
	winOff int64
	err    error // the first failure to read back; the run cannot be trusted after it
}

// New makes an empty spill in the temporary directory; loc is the
// zone the records' times were read in (logformat.Options.Location).
func New(loc *time.Location) (*File, error) {
	f, err := tempfile.New("agentstat-records-")
	if err != nil {
		return nil, err
	}
	return NewOn(f, loc), nil
}

// Storage is what a spill is written to and read back from.
type Storage interface {
	io.ReaderAt
	io.WriterAt
	io.Closer
}

// NewOn makes an empty spill on st (New's is an unnamed scratch file).
func NewOn(st Storage, loc *time.Location) *File {
	if loc == nil {
		loc = time.UTC
	}
	return &File{f: st, loc: loc}
}

// Err reports a record that could not be read back.
func (s *File) Err() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Size is how many bytes were written to the spill.
func (s *File) Size() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.off
}

// Loc is the zone the records' times were read in.
func (s *File) Loc() *time.Location { return s.loc }

// Section is the bytes of the record at ref.
func (s *File) Section(ref Ref) *io.SectionReader { return io.NewSectionReader(s.f, ref.Off, ref.N) }

// Close removes the spill.
func (s *File) Close() error {
	if s == nil {
		return nil
	}
	return s.f.Close()
}

// Ref is where a record lies in the spill, and what its writer counted in
// it (Tables: a Claude Code record's table sizes), which a partial carries.
type Ref struct {
	Off, N int64
	Tables [5]int32
}

// Write appends one record to the spill through a small buffer: a long
// session's records are tens of MB.
// A write error sticks in the buffer and comes out of its Flush.
func (s *File) Write(encode func(*bufio.Writer)) (Ref, bool) {
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
		return Ref{}, false
	}
	n, _ := ow.Seek(0, io.SeekCurrent) // bytes written
	ref := Ref{Off: s.off, N: n}
	s.off += n
	return ref, true
}

// Record reads one record; its buffer is no larger than the record, since
// most sessions are a few KB and the join reads every record twice. A
// small record comes from a window of the file read ahead: the join reads
// records in about the order they were written, and a tree of small files
// (a PlanAgent store) has tens of thousands of them, a read each.
// Readers are reused (spillReaders): done, or release, hands one back.
func (s *File) Record(ref Ref) *Reader {
	r := spillReaders.Get().(*Reader)
	if ref.N <= Window/4 && s.fromWindow(ref, r) {
		return r // in memory already
	}
	r.src, r.rest = io.NewSectionReader(s.f, ref.Off, ref.N), ref.N
	r.buf = slices.Grow(r.buf[:0], int(min(ref.N, 64<<10)))
	return r
}

// spillReaders are the readers of records, with their buffers, reused from
// record to record: a join reads tens of thousands back, and a reader and
// buffer made for each (or a copy of the window's bytes) would be 56 MB of
// allocation at 1 GB of logs. Nothing read keeps a reader's bytes: what
// it decodes is copied out.
var spillReaders = sync.Pool{New: func() any { return new(Reader) }}

// release hands r back for the next record.
func (r *Reader) release() {
	clear(r.strs)
	clear(r.zones)
	*r = Reader{buf: r.buf[:0], strs: r.strs, zones: r.zones}
	spillReaders.Put(r)
}

// Window is how much the spill reads ahead for small records (of at most
// a quarter of it).
const Window = 256 << 10

// fromWindow copies the record at ref into r's buffer, read through the
// window (the window is reused by the next read, whichever goroutine makes
// it); false when it cannot be read (the caller's reader then reports it).
func (s *File) fromWindow(ref Ref, r *Reader) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if end := s.winOff + int64(len(s.win)); ref.Off < s.winOff || ref.Off+ref.N > end {
		if s.win == nil {
			s.win = make([]byte, Window)
		}
		// Read ahead only when reading on from the window's end: a join
		// that jumps about (plans naming batches anywhere) would read a
		// whole window for every small record.
		size := int64(cap(s.win))
		if ref.Off < end || ref.Off > end+size {
			size = max(ref.N, 4<<10)
		}
		n, err := s.f.ReadAt(s.win[:size], ref.Off)
		if int64(n) < ref.N {
			s.win, s.winOff = s.win[:0], 0
			return false
		}
		_ = err // io.EOF at the spill's end, with the record read
		s.win, s.winOff = s.win[:n], ref.Off
	}
	at := ref.Off - s.winOff
	r.buf = append(r.buf[:0], s.win[at:at+ref.N]...)
	r.b = r.buf
	return true
}

// Done checks that a record was read to its end, and keeps the first failure.
func (s *File) Done(r *Reader) {
	if r.err == nil && r.Left() != 0 {
		r.err = ErrCorrupt
	}
	if r.err != nil {
		s.Fail(r.err)
	}
	r.release()
}

// Fail keeps the first failure to read back.
func (s *File) Fail(err error) {
	s.mu.Lock()
	s.err = cmp.Or(s.err, err)
	s.mu.Unlock()
}

// AppendBool appends v as a byte; Reader.Bool reads it.
func AppendBool(b []byte, v bool) []byte {
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

// AppendTime appends t with its zone (loc: the spill's, written as a
// mark); Reader.Time reads it.
func AppendTime(b []byte, t time.Time, loc *time.Location) []byte {
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
		b = AppendText(b, name)
		b = binary.LittleEndian.AppendUint32(b, uint32(int32(offset)))
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(t.Unix()))
	return binary.LittleEndian.AppendUint32(b, uint32(t.Nanosecond()))
}

// AppendText appends s after its length; Reader.Text reads it.
func AppendText(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// ErrCorrupt is a record read back otherwise than it was written: the
// spill was damaged, and the run cannot be trusted.
var ErrCorrupt = errors.New("corrupt data read back")

// Reader reads one record back (what a format's codec wrote: a Claude Code
// file's tables, the other joined formats' entries); the first short read
// sticks, and repeated strings (models, tool names) and zones
// are shared again. It parses from a slice of what it buffered, so that a
// field costs a bounds check: the join reads a long session back in three steps.
type Reader struct {
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

// BytesReader reads a record held in b.
func BytesReader(b []byte) *Reader { return &Reader{buf: b, b: b, src: bytes.NewReader(nil)} }

// Err is the first failure to read.
func (r *Reader) Err() error { return r.err }

// Corrupt makes the record read as corrupt: a value read is out of its bounds.
func (r *Reader) Corrupt() { r.err = cmp.Or(r.err, ErrCorrupt) }

// Count reads a size or count of what follows the record (Uvarint bounds
// those by what is left of it), at most limit.
func (r *Reader) Count(limit uint64) uint64 {
	v, k := binary.Uvarint(r.b)
	if r.err != nil || k <= 0 || v > limit {
		r.Corrupt()
		return 0
	}
	r.b = r.b[k:]
	return v
}

// Left is how many bytes of the record are not read yet.
func (r *Reader) Left() int64 { return int64(len(r.b)) + r.rest }

// fill buffers at least n bytes (no more than the buffer holds), false if
// the record ends first.
func (r *Reader) fill(n int) bool {
	if n > cap(r.buf) || int64(n) > r.Left() {
		return false
	}
	m := copy(r.buf[:cap(r.buf)], r.b)
	k, err := io.ReadFull(r.src, r.buf[m:m+int(min(int64(cap(r.buf)-m), r.rest))])
	r.rest -= int64(k)
	r.b = r.buf[:m+k]
	return err == nil && len(r.b) >= n
}

// Take is the next n bytes (valid until the next read), zeros once a read
// failed.
func (r *Reader) Take(n int) []byte {
	if r.err == nil && len(r.b) >= n {
		b := r.b[:n]
		r.b = r.b[n:]
		return b
	}
	return r.takeSlow(n)
}

func (r *Reader) takeSlow(n int) []byte {
	if r.err == nil && r.fill(n) {
		return r.Take(n)
	}
	r.err = ErrCorrupt
	if n > len(r.zero) { // a string's bytes or a record's fixed part: the caller drops them
		return make([]byte, n)
	}
	b := r.zero[:n]
	clear(b)
	return b
}

// Uvarint reads a length or a count: never more than the bytes left, as
// every string byte and every record takes at least one.
func (r *Reader) Uvarint() int {
	if r.err != nil {
		return 0
	}
	if len(r.b) < binary.MaxVarintLen64 {
		r.fill(int(min(binary.MaxVarintLen64, r.Left())))
	}
	v, k := binary.Uvarint(r.b)
	if k <= 0 || v > uint64(r.Left()-int64(k)) {
		r.err = ErrCorrupt
		return 0
	}
	r.b = r.b[k:]
	return int(v)
}

// Varint reads a signed number (a token count).
func (r *Reader) Varint() int64 {
	if r.err != nil {
		return 0
	}
	if len(r.b) < binary.MaxVarintLen64 {
		r.fill(int(min(binary.MaxVarintLen64, r.Left())))
	}
	v, k := binary.Varint(r.b)
	if k <= 0 {
		r.err = ErrCorrupt
		return 0
	}
	r.b = r.b[k:]
	return v
}

// Skip moves past n bytes.
func (r *Reader) Skip(n int) {
	if r.err != nil {
		return
	}
	if int64(n) > r.Left() {
		r.err = ErrCorrupt
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
		r.err = ErrCorrupt
	}
	r.rest -= int64(n)
}

// Bool, U32 and U64 read what AppendBool and the little-endian appends wrote.
func (r *Reader) Bool() bool { return r.Take(1)[0] == 1 }

func (r *Reader) U32() uint32 { return binary.LittleEndian.Uint32(r.Take(4)) }

func (r *Reader) U64() uint64 { return binary.LittleEndian.Uint64(r.Take(8)) }

// Time reads what AppendTime wrote, loc the spill's zone.
func (r *Reader) Time(loc *time.Location) time.Time {
	var zone *time.Location
	switch r.Take(1)[0] {
	case zoneNone:
		return time.Time{}
	case zoneUTC:
		zone = time.UTC
	case zoneSpill:
		zone = loc
	case zoneLocal:
		zone = time.Local
	case zoneFixed:
		z := fixedZone{r.Text(), int(int32(r.U32()))}
		if zone = r.zones[z]; zone == nil {
			zone = time.FixedZone(z.name, z.offset)
			if r.zones == nil {
				r.zones = map[fixedZone]*time.Location{}
			}
			r.zones[z] = zone
		}
	default:
		r.err = ErrCorrupt
		return time.Time{}
	}
	sec := int64(r.U64())
	return time.Unix(sec, int64(r.U32())).In(zone)
}

// Text reads what AppendText wrote; short strings read before are shared.
func (r *Reader) Text() string {
	n := r.Uvarint()
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
			r.err = ErrCorrupt
			return ""
		}
		r.rest -= int64(n - k)
		return sb.String()
	}
	b := r.Take(n)
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

// AppendTokens appends a request's token counts; Reader.Tokens reads them.
func AppendTokens(b []byte, t *model.Tokens) []byte {
	for _, v := range []int64{t.Input, t.Output, t.CacheRead, t.CacheCreation, t.Unspecified, t.CacheCreation1h} {
		b = binary.AppendVarint(b, v)
	}
	return b
}

// Tokens reads what AppendTokens wrote.
func (r *Reader) Tokens() (t model.Tokens) {
	for _, p := range []*int64{&t.Input, &t.Output, &t.CacheRead, &t.CacheCreation, &t.Unspecified, &t.CacheCreation1h} {
		*p = r.Varint()
	}
	return t
}

// AppendStr and AppendNum append a decoded value with whether it was set;
// Reader.Str and Reader.Num read them.
func AppendStr(b []byte, s jsonscan.Str) []byte { return AppendBool(AppendText(b, s.V), s.Set) }

// Str reads what AppendStr wrote.
func (r *Reader) Str() jsonscan.Str { return jsonscan.Str{V: r.Text(), Set: r.Bool()} }

func AppendNum(b []byte, n jsonscan.Num) []byte {
	return binary.LittleEndian.AppendUint64(AppendBool(b, n.Set), math.Float64bits(n.V))
}

// Num reads what AppendNum wrote.
func (r *Reader) Num() jsonscan.Num {
	return jsonscan.Num{Set: r.Bool(), V: math.Float64frombits(r.U64())}
}

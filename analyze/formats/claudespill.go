package formats

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"sync"
	"time"
)

// RecordSpill keeps Claude Code line records on disk from the end of their
// file's read to their session's join, so that memory follows the largest
// session rather than every line of every transcript read (a heavy user's
// projects hold gigabytes of them). The records are the same bytes-for-
// bytes data, so the join gives the same runs.
type RecordSpill struct {
	mu       sync.Mutex
	f        *os.File
	unlinked bool // removed at once (Unix keeps it open): no leftover even if killed
	off      int64
	loc      *time.Location
	err      error // the first failure to read back; the run cannot be trusted after it
}

// NewRecordSpill makes an empty spill in the temporary directory; loc is the
// zone the records' times were read in (Options.Location).
func NewRecordSpill(loc *time.Location) (*RecordSpill, error) {
	f, err := os.CreateTemp("", "agentstat-records-")
	if err != nil {
		return nil, err
	}
	if loc == nil {
		loc = time.UTC
	}
	return &RecordSpill{f: f, loc: loc, unlinked: os.Remove(f.Name()) == nil}, nil
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
	err := s.f.Close()
	if !s.unlinked {
		err = os.Remove(s.f.Name())
	}
	return err
}

type spillRef struct{ off, n int64 }

// put writes f's records; on failure (a full disk) they stay in memory.
// Records stream through a small buffer: a long session's are tens of MB.
func (s *RecordSpill) put(frag *Fragment) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cw := &countingWriter{w: io.NewOffsetWriter(s.f, s.off)}
	bw := bufio.NewWriterSize(cw, 64<<10)
	if err := encodeClaudeFile(bw, frag.claude, s.loc); err != nil {
		return
	}
	if err := bw.Flush(); err != nil {
		return
	}
	frag.ref, frag.spill, frag.claude = spillRef{s.off, cw.n}, s, nil
	s.off += cw.n
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// load brings a spilled fragment's records back into memory.
func (s *RecordSpill) load(frag *Fragment) {
	br := bufio.NewReaderSize(io.NewSectionReader(s.f, frag.ref.off, frag.ref.n), 64<<10)
	cf, err := decodeClaudeFile(br, frag.ref.n, s.loc)
	if err != nil {
		s.mu.Lock()
		s.err = cmpErr(s.err, err)
		s.mu.Unlock()
		cf = &claudeFile{}
	}
	frag.claude = cf
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// release drops records loaded from the spill once their session is joined.
func (frag *Fragment) release() {
	if frag.spill != nil {
		frag.claude = nil
	}
}

// The encoding: little-endian fixed-size fields, uvarint-prefixed strings,
// times as a zero flag, Unix seconds and nanoseconds.

func encodeClaudeFile(w *bufio.Writer, f *claudeFile, loc *time.Location) error {
	var b []byte // one record at a time
	put := func() {
		w.Write(b)
		b = b[:0]
	}
	b = appendBool(b, f.quiet)
	b = appendTime(b, f.first, loc)
	b = appendTime(b, f.last, loc)
	for _, n := range []int{len(f.lines), len(f.usages), len(f.uses), len(f.results), len(f.prompts), len(f.agents)} {
		b = binary.AppendUvarint(b, uint64(n))
	}
	put()
	for i := range f.lines {
		l := &f.lines[i]
		b = append(b, l.uuid[:]...)
		b = appendTime(b, l.at, loc)
		for _, v := range []int32{l.agent, l.usage, l.prompt, l.usesLo, l.resultsLo, l.nUses, l.nResults} {
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		}
		b = appendBool(b, l.sidechain)
		put()
	}
	for i := range f.usages {
		u := &f.usages[i]
		b = append(b, u.key[:]...)
		for _, v := range []int64{u.tokens.Input, u.tokens.Output, u.tokens.CacheRead, u.tokens.CacheCreation, u.tokens.Unspecified} {
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
		b = appendString(b, u.model)
		put()
	}
	for i := range f.uses {
		u := &f.uses[i]
		b = append(b, u.id[:]...)
		b = appendString(b, u.name)
		b = appendString(b, u.subagent)
		put()
	}
	for i := range f.results {
		r := &f.results[i]
		b = append(b, r.useID[:]...)
		b = appendString(b, r.text)
		b = appendString(b, r.agentID)
		b = appendBool(b, r.isError)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(r.durationMS.V))
		b = appendBool(b, r.durationMS.Set)
		b = appendBool(b, r.interrupted)
		put()
	}
	for _, p := range f.prompts {
		b = appendString(b, p)
		put()
	}
	for _, a := range f.agents {
		b = appendString(b, a)
		put()
	}
	_, err := w.Write(nil) // the first write error, if any, sticks in w
	return err
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

var errSpillCorrupt = errors.New("Claude Code record spill: corrupt")

// spillReader reads what encodeClaudeFile wrote; the first short read
// sticks, and repeated strings (models, tool names) are shared again.
type spillReader struct {
	r    *bufio.Reader
	left int64 // bytes of the record not read yet
	err  error
	buf  [16]byte
	strs map[string]string
}

func (r *spillReader) take(n int) []byte {
	b := r.buf[:n]
	if r.err != nil {
		clear(b)
		return b
	}
	if _, err := io.ReadFull(r.r, b); err != nil {
		r.err = errSpillCorrupt
		clear(b)
	}
	r.left -= int64(n)
	return b
}

// uvarint reads a length or a count: never more than the bytes left, as
// every string byte and every record takes at least one.
func (r *spillReader) uvarint() int {
	if r.err != nil {
		return 0
	}
	v, err := binary.ReadUvarint(r.r)
	if err != nil || v > uint64(r.left) {
		r.err = errSpillCorrupt
		return 0
	}
	r.left -= int64(binary.PutUvarint(r.buf[:], v))
	return int(v)
}

func (r *spillReader) bool() bool         { return r.take(1)[0] == 1 }
func (r *spillReader) u32() uint32        { return binary.LittleEndian.Uint32(r.take(4)) }
func (r *spillReader) u64() uint64        { return binary.LittleEndian.Uint64(r.take(8)) }
func (r *spillReader) digest() (d digest) { copy(d[:], r.take(len(d))); return d }

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
		name := r.string()
		zone = time.FixedZone(name, int(int32(r.u32())))
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
	if n <= 64 {
		b, err := r.r.Peek(n)
		if err != nil {
			r.err = errSpillCorrupt
			return ""
		}
		if s, ok := r.strs[string(b)]; ok {
			r.r.Discard(n)
			r.left -= int64(n)
			return s
		}
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r.r, b); err != nil {
		r.err = errSpillCorrupt
		return ""
	}
	r.left -= int64(n)
	s := string(b)
	if n <= 64 && len(r.strs) < 4096 {
		r.strs[s] = s
	}
	return s
}

func decodeClaudeFile(br *bufio.Reader, size int64, loc *time.Location) (*claudeFile, error) {
	r := &spillReader{r: br, left: size, strs: map[string]string{}}
	f := &claudeFile{}
	f.quiet = r.bool()
	f.first, f.last = r.time(loc), r.time(loc)
	var n [6]int
	for i := range n {
		n[i] = r.uvarint()
	}
	if r.err != nil {
		return nil, r.err
	}
	if n[0] > 0 {
		f.lines = make([]claudeLine, n[0])
	}
	for i := range f.lines {
		l := &f.lines[i]
		l.uuid = r.digest()
		l.at = r.time(loc)
		for _, p := range []*int32{&l.agent, &l.usage, &l.prompt, &l.usesLo, &l.resultsLo, &l.nUses, &l.nResults} {
			*p = int32(r.u32())
		}
		l.sidechain = r.bool()
	}
	if n[1] > 0 {
		f.usages = make([]claudeUsage, n[1])
	}
	for i := range f.usages {
		u := &f.usages[i]
		u.key = r.digest()
		for _, p := range []*int64{&u.tokens.Input, &u.tokens.Output, &u.tokens.CacheRead, &u.tokens.CacheCreation, &u.tokens.Unspecified} {
			*p = int64(r.u64())
		}
		u.model = r.string()
	}
	if n[2] > 0 {
		f.uses = make([]claudeUse, n[2])
	}
	for i := range f.uses {
		u := &f.uses[i]
		u.id, u.name, u.subagent = r.digest(), r.string(), r.string()
	}
	if n[3] > 0 {
		f.results = make([]claudeResult, n[3])
	}
	for i := range f.results {
		res := &f.results[i]
		res.useID, res.text, res.agentID = r.digest(), r.string(), r.string()
		res.isError = r.bool()
		res.durationMS = Num{V: math.Float64frombits(r.u64()), Set: r.bool()}
		res.interrupted = r.bool()
	}
	if n[4] > 0 {
		f.prompts = make([]string, n[4])
	}
	for i := range f.prompts {
		f.prompts[i] = r.string()
	}
	if n[5] > 0 {
		f.agents = make([]string, n[5])
	}
	for i := range f.agents {
		f.agents[i] = r.string()
	}
	if r.err == nil && r.left != 0 {
		r.err = errSpillCorrupt
	}
	if r.err != nil {
		return nil, r.err
	}
	return f, nil
}

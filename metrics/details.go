package metrics

import (
	"bufio"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/agentstat/agentstat/internal/tempfile"
	"github.com/agentstat/agentstat/model"
)

// Details keeps every kept run's detail (its calls, steps, evaluations,
// context) in temporary files, one per worker, so that per-run pages can be
// rendered without holding all runs in memory.
type Details struct {
	files []*tempfile.File // one per writer, in the order they were made
}

// detailWriter appends runs to one spill file: for each, its key and its
// calls' chunks as frames of bytes (a length, then the bytes), the run
// between them as a gob value. Only the run goes through gob: its key and
// its calls are read back twice in a full report (the run pages, the
// workbook), and gob allocated a buffer for each message read and decoded
// a key's time by reflection (46 MB allocated at 1 GB of logs).
type detailWriter struct {
	buf   *bufio.Writer
	enc   *gob.Encoder
	calls []byte // a chunk of calls in appendCalls' layout
	key   []byte // a run's key in appendKey's layout
	err   error
}

// writer starts the next spill file.
func (d *Details) writer() (*detailWriter, error) {
	f, err := tempfile.New("agentstat-details-*.gob")
	if err != nil {
		return nil, fmt.Errorf("run details: %w", err)
	}
	d.files = append(d.files, f)
	buf := bufio.NewWriterSize(f, 256<<10)
	return &detailWriter{buf: buf, enc: gob.NewEncoder(buf)}, nil
}

// clipLimits keep free text in run pages bounded whatever a log holds.
const (
	clipError = 4 << 10
	clipText  = 64 << 10
)

// writeRun writes a run without its calls, which follow through
// writeCalls: n of them.
func (w *detailWriter) writeRun(r *model.Run, n int) {
	if w.err != nil {
		return
	}
	c := *r
	c.Title, c.Request, c.Summary = clip(c.Title, clipText), clip(c.Request, clipText), clip(c.Summary, clipText)
	c.ToolCalls = nil
	k := keyOf(r)
	k.Calls = n
	w.key = appendKey(w.key[:0], &k)
	if w.err = writeFrame(w.buf, w.key); w.err == nil {
		w.err = w.enc.Encode(&c)
	}
}

// writeFrame writes b as a frame: its length, then its bytes.
func writeFrame(w *bufio.Writer, b []byte) error {
	var n [binary.MaxVarintLen64]byte
	w.Write(n[:binary.PutUvarint(n[:], uint64(len(b)))])
	_, err := w.Write(b)
	return err
}

// maxFrame bounds a frame's length read back: a damaged spill never has a
// reader allocate more (a chunk of calls is a few MB at most: their error
// texts are clipped).
const maxFrame = 1 << 28

// readFrame reads a frame into buf's storage. At the end of the stream it
// returns io.EOF, and io.ErrUnexpectedEOF inside a frame.
func readFrame(r *bufio.Reader, buf []byte) ([]byte, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err
	}
	if n > maxFrame {
		return nil, errCorruptCalls
	}
	buf = slices.Grow(buf[:0], int(n))[:n]
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, noEOF(err)
	}
	return buf, nil
}

// writeCalls writes a part of the calls of the run written last, in
// chunks, a frame each: a long session's are tens of MB, which one frame
// would have its reader hold whole. A chunk is copied only when an error
// text in it needs clipping.
func (w *detailWriter) writeCalls(part []model.ToolCall) {
	var clipped []model.ToolCall
	for calls := range slices.Chunk(part, callChunk) {
		if w.err != nil {
			return
		}
		if slices.ContainsFunc(calls, func(tc model.ToolCall) bool { return len(tc.Error) > clipError }) {
			clipped = append(clipped[:0], calls...)
			for i := range clipped {
				clipped[i].Error = clip(clipped[i].Error, clipError)
			}
			calls = clipped
		}
		w.calls = appendCalls(w.calls[:0], calls)
		w.err = writeFrame(w.buf, w.calls)
	}
}

// callChunk is how many of a run's calls one frame of the spill holds
// (a variable for tests). Each merge of a full report holds a frame's
// calls decoded (~150 bytes each and their texts): 1,024 rather than 4,096
// keeps a MiB off the renderers' peak at 1 GB of logs at no measurable cost.
var callChunk = 1024

// detailKey is what orders a run among the spilled ones. It precedes each
// run in a spill file, so that the merge picks the next run without
// decoding any other: a long session's detail is tens of MB, and it would
// otherwise stay decoded as its stream's head through the whole merge.
type detailKey struct {
	FileOrd, Seq       int
	Source, Format, ID string
	Started            time.Time
	Calls              int // how many tool calls follow the run, in chunks
}

func keyOf(r *model.Run) detailKey {
	return detailKey{FileOrd: r.FileOrd, Seq: r.Seq, Source: r.Source, Format: r.Format, ID: r.ID, Started: r.Started, Calls: len(r.ToolCalls)}
}

// appendKey appends k: its numbers as varints, its strings as a length and
// their bytes, its start as Unix seconds and nanoseconds (it only orders).
func appendKey(dst []byte, k *detailKey) []byte {
	dst = binary.AppendVarint(dst, int64(k.FileOrd))
	dst = binary.AppendVarint(dst, int64(k.Seq))
	for _, s := range [...]string{k.Source, k.Format, k.ID} {
		dst = append(binary.AppendUvarint(dst, uint64(len(s))), s...)
	}
	dst = binary.AppendVarint(dst, k.Started.Unix())
	dst = binary.AppendUvarint(dst, uint64(k.Started.Nanosecond()))
	return binary.AppendVarint(dst, int64(k.Calls))
}

// decodeKey reads a key appendKey wrote.
func decodeKey(b []byte) (*detailKey, error) {
	k := new(detailKey)
	num := func() int64 {
		v, n := binary.Varint(b)
		if n <= 0 {
			b = nil
			return -1
		}
		b = b[n:]
		return v
	}
	str := func() string {
		v, n := binary.Uvarint(b)
		if n <= 0 || v > uint64(len(b)-n) {
			b = nil
			return ""
		}
		s := string(b[n : n+int(v)])
		b = b[n+int(v):]
		return s
	}
	k.FileOrd, k.Seq = int(num()), int(num())
	k.Source, k.Format, k.ID = str(), str(), str()
	sec := num()
	nsec, n := binary.Uvarint(b)
	if n <= 0 || nsec >= 1e9 {
		return nil, errCorruptCalls
	}
	b = b[n:]
	k.Started = time.Unix(sec, int64(nsec))
	if k.Calls = int(num()); b == nil || len(b) != 0 || k.Calls < 0 {
		return nil, errCorruptCalls
	}
	return k, nil
}

// close flushes what was written; the file stays open for the readers.
func (w *detailWriter) close() error {
	if w.err != nil {
		return w.err
	}
	return w.buf.Flush()
}

// All yields every kept run's detail in discovery order (by the file it came
// from, then its position in that file), whichever worker read it: each spill
// file is in that order already, so a k-way merge of their heads suffices.
func (d *Details) All() iter.Seq2[*model.Run, error] {
	return func(yield func(*model.Run, error) bool) {
		for pr, err := range d.Pages(math.MaxInt) {
			if !yield(pr.Run, err) {
				return
			}
		}
	}
}

// PageRun is a kept run's detail for its page. Read is nil when Run holds
// its calls; for a long run, Run comes without them and Read reads them a
// chunk at a time (each valid until the next), handing each to use until it
// says stop. Read must be called, if at all, before the next run is taken.
type PageRun struct {
	Run   *model.Run
	Calls int // how many calls the run has
	Read  func(use func(chunk []model.ToolCall) bool) error
}

// Pages yields every kept run's detail in the order of All: whole when it
// has up to whole calls, else as a PageRun to read: a long session's calls
// (150,000: 23 MB) are never held together.
func (d *Details) Pages(whole int) iter.Seq2[PageRun, error] {
	return func(yield func(PageRun, error) bool) {
		var sc callScratch
		d.merge(func(st *detailStream, k *detailKey) (bool, error) {
			if k.Calls <= whole {
				r, err := readRun(st, k.Calls, &sc)
				if err != nil {
					return false, err
				}
				return yield(PageRun{Run: r, Calls: k.Calls}, nil), nil
			}
			r := new(model.Run)
			if err := st.dec.Decode(r); err != nil {
				return false, err
			}
			read, done := false, false
			var readErr error
			more := yield(PageRun{Run: r, Calls: k.Calls, Read: func(use func([]model.ToolCall) bool) error {
				if read {
					return errors.New("run details: calls read twice")
				}
				read = true
				_, readErr = readCalls(st, k.Calls, &sc, func(_ int, chunk []model.ToolCall) bool {
					if !done {
						done = !use(chunk)
					}
					return true // the rest is read past: the next run follows it
				})
				return readErr
			}}, nil)
			switch {
			case read && readErr != nil: // the caller has it from Read
				return false, nil
			case read || !more:
				return more, nil
			}
			// Read past the calls the caller did not want: the next run follows them.
			_, err := readCalls(st, k.Calls, &sc, func(int, []model.ToolCall) bool { return true })
			return true, err
		}, func(err error) { yield(PageRun{}, err) })
	}
}

// CallChunk is a run's calls from First on, up to callChunk of them.
type CallChunk struct {
	// Run is what orders the run: its ID, Source, Format, FileOrd and Seq,
	// no other field (the same for every chunk of a run).
	Run   *model.Run
	First int // the index in the run of Calls[0]
	Calls []model.ToolCall
}

// Calls yields the kept runs' calls in chunks, in the order of All, runs
// without calls left out. A chunk's Calls are valid until the next: a reader
// that goes over calls once (the workbook) then holds a few thousand of
// them, never a long session's hundreds of thousands.
func (d *Details) Calls() iter.Seq2[CallChunk, error] {
	return func(yield func(CallChunk, error) bool) {
		var sc callScratch
		d.merge(func(st *detailStream, k *detailKey) (bool, error) {
			// The run is read past: gob skips the fields a value has no
			// room for without making them (a request of up to 64 KB, steps,
			// context), and the key has what a call's row shows of its run.
			var past struct{ Seq int }
			if err := st.dec.Decode(&past); err != nil {
				return false, err
			}
			r := &model.Run{ID: k.ID, Source: k.Source, Format: k.Format, FileOrd: k.FileOrd, Seq: k.Seq}
			return readCalls(st, k.Calls, &sc, func(first int, calls []model.ToolCall) bool {
				return yield(CallChunk{Run: r, First: first, Calls: calls}, nil)
			})
		}, func(err error) { yield(CallChunk{}, err) })
	}
}

// detailStream reads one spill file: frames from br, and the runs between
// them through dec, which reads no further than each needs (br is a
// ByteReader).
type detailStream struct {
	br  *bufio.Reader
	dec *gob.Decoder
}

// merge opens the spill files and calls run for each run in discovery order,
// with the stream at the run (after its key); run must read the run and all
// its calls, and says whether to go on. Any error ends the merge through fail.
func (d *Details) merge(run func(*detailStream, *detailKey) (bool, error), fail func(error)) {
	if d == nil {
		return
	}
	type stream struct {
		detailStream
		head *detailKey // of the next run, not decoded yet
		key  []byte
	}
	var streams []*stream
	advance := func(s *stream) (err error) {
		s.head = nil
		if s.key, err = readFrame(s.br, s.key); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		s.head, err = decodeKey(s.key)
		return err
	}
	for _, f := range d.files {
		br := bufio.NewReaderSize(f.Section(), 64<<10)
		s := &stream{detailStream: detailStream{br: br, dec: gob.NewDecoder(br)}}
		streams = append(streams, s)
		if err := advance(s); err != nil {
			fail(err)
			return
		}
	}
	for {
		var next *stream
		for _, s := range streams {
			if s.head != nil && (next == nil || before(s.head, next.head)) {
				next = s
			}
		}
		if next == nil {
			return
		}
		more, err := run(&next.detailStream, next.head)
		if err != nil {
			fail(err)
			return
		}
		if !more {
			return
		}
		if err := advance(next); err != nil {
			fail(err)
			return
		}
	}
}

// readRun decodes a run and its calls, into a slice made at its size.
func readRun(st *detailStream, calls int, sc *callScratch) (*model.Run, error) {
	r := new(model.Run)
	if err := st.dec.Decode(r); err != nil {
		return nil, err
	}
	if calls > 0 {
		r.ToolCalls = make([]model.ToolCall, 0, calls)
	}
	_, err := readCalls(st, calls, sc, func(_ int, chunk []model.ToolCall) bool {
		r.ToolCalls = append(r.ToolCalls, chunk...)
		return true
	})
	return r, err
}

// callScratch is what reading calls reuses from run to run of a merge:
// most runs have a few calls, and each run's buffers grown afresh and its
// names made strings again were a sixth of reading a full report's calls.
type callScratch struct {
	raw   []byte
	chunk []model.ToolCall
	names callReader
}

// readCalls decodes the n calls that follow a run, chunk by chunk into
// sc's buffer, handing each to use with the index of its first call; it
// stops early when use says so.
func readCalls(st *detailStream, n int, sc *callScratch, use func(first int, chunk []model.ToolCall) bool) (bool, error) {
	var err error
	for first := 0; first < n; first += len(sc.chunk) {
		if sc.raw, err = readFrame(st.br, sc.raw); err != nil {
			return false, noEOF(err)
		}
		if sc.chunk, err = sc.names.decode(sc.chunk[:0], sc.raw); err != nil {
			return false, err
		}
		if len(sc.chunk) == 0 || first+len(sc.chunk) > n {
			return false, errCorruptCalls
		}
		if !use(first, sc.chunk) {
			return false, nil
		}
	}
	return true, nil
}

func before(a, b *detailKey) bool {
	if a.FileOrd != b.FileOrd {
		return a.FileOrd < b.FileOrd
	}
	if a.FileOrd == joinedOrd {
		return joinedOrder(a, b) < 0
	}
	return a.Seq < b.Seq
}

// joinedOrd is the FileOrd of runs joined across files: after every other.
const joinedOrd = math.MaxInt

// compareJoined orders runs joined across files by where they come from and
// what they are, which no split of the files into shards changes.
func compareJoined(a, b *model.Run) int {
	ka, kb := keyOf(a), keyOf(b)
	return joinedOrder(&ka, &kb)
}

func joinedOrder(a, b *detailKey) int {
	return cmp.Or(cmp.Compare(a.Source, b.Source), cmp.Compare(a.Format, b.Format), cmp.Compare(a.ID, b.ID), a.Started.Compare(b.Started))
}

// Close removes the temporary files.
func (d *Details) Close() error {
	if d == nil {
		return nil
	}
	var errs []error
	for _, f := range d.files {
		errs = append(errs, f.Close())
	}
	d.files = nil
	return errors.Join(errs...)
}

// RunPage is the file name (without directory) of a run's page: the run id
// made safe for any file system, plus a hash of where the run came from, so
// names are unique and do not depend on the order runs were read.
func RunPage(r *model.Run) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%s\x00%d\x00%s", r.Format, r.Source, r.Seq, r.ID)))
	return SafeName(r.ID, 48) + "-" + hex.EncodeToString(sum[:6]) + ".html"
}

// SafeName turns untrusted text into a portable file-name stem: ASCII
// letters, digits, '.', '_' and '-' only, no leading dot, at most max bytes.
func SafeName(s string, max int) string {
	var b strings.Builder
	lastSub := false
	for _, r := range s {
		ok := r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-')
		if ok {
			b.WriteRune(r)
			lastSub = false
		} else if !lastSub {
			b.WriteByte('_')
			lastSub = true
		}
		if b.Len() >= max {
			break
		}
	}
	out := strings.Trim(b.String(), "._-")
	if out == "" {
		return "run"
	}
	if windowsDevice(out) {
		out = "run-" + out
		if len(out) > max {
			out = strings.TrimRight(out[:max], "._-")
		}
	}
	return out
}

// windowsDevice reports whether Windows reads a file named name (with any
// extension after it) as a device: CON, PRN, AUX, NUL, COM0–9, LPT0–9.
func windowsDevice(name string) bool {
	stem, _, _ := strings.Cut(name, ".")
	switch strings.ToUpper(stem) {
	case "CON", "PRN", "AUX", "NUL":
		return true
	}
	upper := strings.ToUpper(stem)
	return len(upper) == 4 && (strings.HasPrefix(upper, "COM") || strings.HasPrefix(upper, "LPT")) && upper[3] >= '0' && upper[3] <= '9'
}

// EncodeRun writes a kept run's detail to enc as its number of calls, the
// run without them, then its calls in chunks of at most callChunk: a long
// session's calls (tens of MB) as one gob value were held whole by the
// writer and the reader (partials, the export's tables).
func EncodeRun(enc *gob.Encoder, pr PageRun) error {
	r := *pr.Run
	r.ToolCalls = nil
	if err := enc.Encode(runHead{pr.Calls}); err != nil {
		return err
	}
	if err := enc.Encode(&r); err != nil {
		return err
	}
	var encErr error
	each := func(chunk []model.ToolCall) bool {
		encErr = enc.Encode(chunk)
		return encErr == nil
	}
	if pr.Read == nil {
		for chunk := range slices.Chunk(pr.Run.ToolCalls, callChunk) {
			if !each(chunk) {
				break
			}
		}
		return encErr
	}
	if err := pr.Read(each); err != nil {
		return err
	}
	return encErr
}

// runHead is how many calls follow a run EncodeRun wrote.
type runHead struct{ Calls int }

// DecodeRun reads a run EncodeRun wrote: run gets it (without its calls)
// and its number of calls, then calls gets its calls a chunk at a time,
// each valid until the next. At the end of the stream it returns io.EOF.
func DecodeRun(dec *gob.Decoder, run func(r *model.Run, calls int), calls func([]model.ToolCall)) error {
	var head runHead
	if err := dec.Decode(&head); err != nil {
		return err
	}
	if head.Calls < 0 {
		return fmt.Errorf("run details: %d calls", head.Calls)
	}
	r := new(model.Run)
	if err := dec.Decode(r); err != nil {
		return noEOF(err)
	}
	run(r, head.Calls)
	var chunk []model.ToolCall
	for left := head.Calls; left > 0; left -= len(chunk) {
		clear(chunk[:cap(chunk)]) // gob leaves a field the stream holds no value for as it was
		chunk = chunk[:0]
		if err := dec.Decode(&chunk); err != nil {
			return noEOF(err)
		}
		if len(chunk) == 0 || len(chunk) > left {
			return fmt.Errorf("run details: a chunk of %d calls where %d are left", len(chunk), left)
		}
		calls(chunk)
	}
	return nil
}

// noEOF is err, an unexpected EOF when the stream ended inside a run.
func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

package join

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/agentstat/agentstat/internal/recordspill"
)

// A fragment travels in a partial file as it waits on the record spill, so
// that merge joins the records of every shard as one pass would: its fields
// (the head), then the bytes of its spill segments, copied as they are.
//
//	uvarint(len(head)) head  segment bytes…
//	head: kind, source, key, count, the plan's or batch's own fields,
//	      segments (uvarint n; per segment its length and, for Claude Code,
//	      its table sizes), a log's number of entries
//
// Times in segments are read in the spill's zone: partials merge only when
// made with one --tz.

// Segment is one of a fragment's records on its way to or from a partial:
// on a spill, or encoded in memory.
type Segment struct {
	Ref   recordspill.Ref
	From  *recordspill.File // nil: bytes
	Bytes []byte
}

func (s Segment) size() int64 {
	if s.From == nil {
		return int64(len(s.Bytes))
	}
	return s.Ref.N
}

// EncodeFragment writes f to w; its records are read from the spill they
// wait on. With noText (a partial of --no-text), the log's texts in them
// (prompts, tool inputs, error texts) are replaced as WithholdText says.
func EncodeFragment(w *bufio.Writer, f *Fragment, loc *time.Location, noText bool) error {
	head := []byte{byte(f.Kind)}
	head = recordspill.AppendText(head, f.Source)
	head = recordspill.AppendText(head, f.Key)
	head = recordspill.AppendNum(head, f.Count)
	if h, ok := f.Records.(HeadAppender); ok {
		head = h.AppendHead(head, loc)
	}
	var segs []Segment
	entries := 0
	if f.Records != nil {
		segs, entries = f.Records.WireSegments(loc, noText)
	}
	tables := joinedFormats[f.Kind].Tables
	head = binary.AppendUvarint(head, uint64(len(segs)))
	for _, s := range segs {
		head = binary.AppendUvarint(head, uint64(s.size()))
		if tables {
			for _, n := range s.Ref.Tables {
				head = binary.AppendUvarint(head, uint64(n))
			}
		}
	}
	head = binary.AppendUvarint(head, uint64(entries))
	w.Write(binary.AppendUvarint(nil, uint64(len(head))))
	w.Write(head)
	for _, s := range segs {
		if s.From == nil {
			w.Write(s.Bytes)
			continue
		}
		if _, err := io.Copy(w, s.From.Section(s.Ref)); err != nil {
			return fmt.Errorf("record spill: %w", err)
		}
	}
	return nil
}

// WireSegments are a log's segments on the spill, then its entries in memory
// as one more, and how many entries they hold; with noText, all its
// entries, their texts withheld, as one segment.
func (l *EntryLog[T]) WireSegments(loc *time.Location, noText bool) ([]Segment, int) {
	withhold := noText && l.Codec.Withhold != nil
	var segs []Segment
	entries := l.Entries
	if withhold {
		entries = l.All()
	} else {
		for _, ref := range l.segments {
			segs = append(segs, Segment{Ref: ref, From: l.spill})
		}
	}
	if len(entries) > 0 {
		b := binary.AppendUvarint(nil, uint64(len(entries)))
		for _, e := range entries {
			if withhold {
				l.Codec.Withhold(&e)
			}
			b = l.Codec.Encode(b, &e, loc)
		}
		segs = append(segs, Segment{Bytes: b})
	}
	return segs, l.Len()
}

// withheld stands for a log's text a partial made with --no-text leaves
// out. The fold withholds every such text before it counts or shows
// anything; the joins read only whether one is there, and whether a
// Claude Code tool result begins "User rejected" or "Error" (claudeCallOf),
// which the replacement keeps.
const withheld = "-"

// WithholdText replaces each text with what a partial made with --no-text
// holds in its place.
func WithholdText(texts ...*string) {
	for _, s := range texts {
		switch {
		case *s == "":
		case strings.HasPrefix(*s, "User rejected"):
			*s = "User rejected"
		case strings.HasPrefix(*s, "Error"):
			*s = "Error"
		default:
			*s = withheld
		}
	}
}

// ErrFragment is a fragment that could not be read back from a partial.
var ErrFragment = errors.New("corrupt fragment")

// maxFragmentHead bounds a fragment's head: a source path, a few ids and
// one entry per segment.
const maxFragmentHead = 16 << 20

// DecodeFragment reads a fragment EncodeFragment wrote, its records copied
// to spill (whose zone is the one they were written in).
func DecodeFragment(r *bufio.Reader, spill *recordspill.File) (*Fragment, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil || n > maxFragmentHead {
		return nil, fmt.Errorf("%w: head", ErrFragment)
	}
	head := make([]byte, n)
	if _, err := io.ReadFull(r, head); err != nil {
		return nil, fmt.Errorf("%w: head: %v", ErrFragment, err)
	}
	h := recordspill.BytesReader(head)
	loc := spill.Loc()
	f := &Fragment{Kind: FragmentKind(h.Take(1)[0])}
	f.Source, f.Key = h.Text(), h.Text()
	f.Count = h.Num()
	jf := joinedFormats[f.Kind]
	if jf == nil {
		return nil, fmt.Errorf("%w: kind %d", ErrFragment, f.Kind)
	}
	records, ok := jf.ReadHead(f.Kind, h, loc)
	segs := make([]recordspill.Ref, h.Uvarint()) // each takes a byte of the head at least
	for i := range segs {
		segs[i].N = int64(h.Count(math.MaxInt64))
		if jf.Tables {
			for k := range segs[i].Tables {
				segs[i].Tables[k] = int32(h.Count(math.MaxInt32))
			}
		}
	}
	entries := int(h.Count(math.MaxInt32))
	if h.Err() != nil || h.Left() != 0 || !ok {
		return nil, fmt.Errorf("%w: head of %q", ErrFragment, f.Source)
	}
	for i, s := range segs {
		var copyErr error
		ref, ok := spill.Write(func(w *bufio.Writer) { _, copyErr = io.CopyN(w, r, s.N) })
		if copyErr != nil {
			return nil, fmt.Errorf("%w: records of %q: %v", ErrFragment, f.Source, copyErr)
		}
		if !ok {
			return nil, fmt.Errorf("record spill: cannot write")
		}
		ref.Tables = s.Tables
		segs[i] = ref
	}
	if f.Records, ok = records(spill, segs, entries); !ok { // what no reader makes: a transcript without records
		return nil, fmt.Errorf("%w: head of %q", ErrFragment, f.Source)
	}
	return f, nil
}

// SpilledLog is a log whose entries are all on spill, in segs.
func SpilledLog[T any](spill *recordspill.File, segs []recordspill.Ref, entries int, codec *EntryCodec[T]) *EntryLog[T] {
	return &EntryLog[T]{spill: spill, segments: segs, spilled: entries, Codec: codec}
}

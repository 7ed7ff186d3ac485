package recordspill

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/model"
)

// A record that ends before its bytes do (a read failing under the join)
// sets the reader's error, and every read after it gives zeros: no panic,
// whatever the field.
func TestSpillReaderShortRecord(t *testing.T) {
	rec := binary.AppendUvarint(nil, 40)
	rec = append(rec, "0123456789"...) // 30 bytes of the string missing
	r := &Reader{src: bytes.NewReader(rec), rest: int64(len(rec) + 30), buf: make([]byte, 0, 64)}
	if s := r.Text(); s != "" || r.err == nil {
		t.Fatalf("string %q, error %v", s, r.err)
	}
	zero := func(n int) bool { return bytes.Count(r.Take(n), []byte{0}) == n }
	if r.U64() != 0 || !zero(16) || !zero(57) || r.Uvarint() != 0 || r.Text() != "" { // 57: a line's record
		t.Fatal("a read after the failure gave something")
	}
}

// Records read back as they were written, each primitive and each zone of
// a time, whether a record comes through the read-ahead window or from the
// file, in any order.
func TestRecordsReadBack(t *testing.T) {
	loc := time.FixedZone("CST", 8*3600)
	s, err := New(loc)
	if err != nil {
		t.Skip("no temporary directory:", err)
	}
	defer s.Close()
	times := []time.Time{{}, time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), time.Date(2026, 1, 2, 3, 4, 5, 0, loc),
		time.Date(2026, 1, 2, 3, 4, 5, 0, time.Local), time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("X", -3600))}
	tokens := model.Tokens{Input: 1, Output: -2, CacheRead: 3 << 40, CacheCreation1h: 7}
	sizes := []int{0, 100, Window / 4, Window, 3 * Window, 10}
	var refs []Ref
	for i, size := range sizes {
		ref, ok := s.Write(func(w *bufio.Writer) {
			b := AppendText(nil, strings.Repeat("x", size))
			b = AppendBool(binary.AppendUvarint(b, uint64(i)), i%2 == 0)
			for _, at := range times {
				b = AppendTime(b, at, loc)
			}
			b = AppendTokens(b, &tokens)
			b = AppendNum(AppendStr(b, jsonscan.Str{V: "model", Set: true}), jsonscan.Num{V: 1.5, Set: true})
			w.Write(b)
		})
		if !ok {
			t.Fatal("not written")
		}
		refs = append(refs, ref)
	}
	for _, i := range []int{5, 0, 3, 1, 4, 2, 0} {
		r := s.Record(refs[i])
		if text := r.Text(); len(text) != sizes[i] || r.Uvarint() != i || r.Bool() != (i%2 == 0) {
			t.Fatalf("record %d: text of %d bytes", i, len(text))
		}
		for _, want := range times {
			if got := r.Time(loc); !got.Equal(want) || got.Location().String() != want.Location().String() {
				t.Errorf("record %d: time %v, want %v", i, got, want)
			}
		}
		if got := r.Tokens(); got != tokens {
			t.Errorf("record %d: tokens %+v", i, got)
		}
		if str, num := r.Str(), r.Num(); str != (jsonscan.Str{V: "model", Set: true}) || num != (jsonscan.Num{V: 1.5, Set: true}) {
			t.Errorf("record %d: %+v %+v", i, str, num)
		}
		s.Done(r)
	}
	if s.Err() != nil {
		t.Fatal(s.Err())
	}
	// A reference past the spill's end fails it.
	s.Done(s.Record(Ref{Off: s.Size(), N: 10}))
	if !errors.Is(s.Err(), ErrCorrupt) {
		t.Errorf("a record past the end: %v", s.Err())
	}
}

// Any bytes read back as a record, by any sequence of reads, never panic
// nor read past the record: a damaged spill fails, and after the first
// failure every read gives zeros.
func FuzzReader(f *testing.F) {
	rec := AppendTime(AppendText(AppendBool(nil, true), "model"), time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("X", 3600)), time.UTC)
	f.Add(rec, []byte{0, 1, 2})
	f.Add(AppendTokens(binary.AppendUvarint(nil, 300), &model.Tokens{Input: 5}), []byte{3, 4, 5, 6})
	f.Fuzz(func(t *testing.T, rec, reads []byte) {
		r := BytesReader(rec)
		for _, op := range reads {
			failed := r.Err() != nil
			var zero bool
			switch op % 7 {
			case 0:
				zero = !r.Bool()
			case 1:
				zero = r.Text() == ""
			case 2:
				zero = r.Time(time.UTC).IsZero()
			case 3:
				zero = r.Uvarint() == 0
			case 4:
				zero = r.Tokens() == model.Tokens{}
			case 5:
				zero = r.Count(1<<20) == 0
			case 6:
				r.Skip(int(op) / 7)
				zero = true
			}
			if failed && !zero {
				t.Fatalf("a read after a failure gave something (op %d)", op%7)
			}
			if r.Left() < 0 || r.Left() > int64(len(rec)) {
				t.Fatalf("%d bytes left of %d", r.Left(), len(rec))
			}
		}
	})
}

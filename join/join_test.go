package join

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/model"
)

// testKind is a format of this test's own: its entries are texts, and a
// session's run holds them in order, in its title.
const testKind FragmentKind = 100

var testCodec = &EntryCodec[string]{
	Encode:   func(b []byte, e *string, _ *time.Location) []byte { return recordspill.AppendText(b, *e) },
	Decode:   func(r *recordspill.Reader, _ *time.Location) string { return r.Text() },
	Withhold: func(e *string) { WithholdText(e) },
}

func init() {
	RegisterEntries(testKind, testCodec, func(frags []*Fragment, _ jsonscan.Warner, emit func(*model.Run, []*Fragment)) {
		for fs, entries := range Loaded[string](frags) {
			emit(&model.Run{ID: fs[0].Key, Title: strings.Join(slices.Concat(entries...), " ")}, fs)
		}
	})
}

func testSpill(t *testing.T) *recordspill.File {
	t.Helper()
	s, err := recordspill.New(time.UTC)
	if err != nil {
		t.Skip("no temporary directory:", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// A session's entries, spread over files, on the spill in segments and in
// memory, join in file order; through a partial (encoded, then decoded to
// another spill) they join alike, or with their texts withheld.
func TestEntriesJoinThroughAPartial(t *testing.T) {
	defer func(n int) { SegmentLines = n }(SegmentLines)
	SegmentLines = 3
	spill := testSpill(t)
	var frags []*Fragment
	for file, session := range []string{"b", "a", "b", "a", "b"} {
		l := &EntryLog[string]{Codec: testCodec}
		for i := range file + 2 {
			l.Push(spill, fmt.Sprintf("%s%d.%d", session, file, i))
		}
		l.FlushTo(spill, true)
		frags = append(frags, &Fragment{Kind: testKind, Source: fmt.Sprintf("f%d", file), Key: session, Records: l})
	}
	if len(frags[4].Records.(*EntryLog[string]).Segments()) < 2 {
		t.Fatal("the last file's entries are not in segments")
	}
	join := func(frags []*Fragment) []string {
		var runs []string
		JoinEach(slices.Clone(frags), nil, func(r *model.Run, from []*Fragment) {
			runs = append(runs, fmt.Sprintf("%s %d: %s", r.ID, len(from), r.Title))
		}, nil)
		return runs
	}
	through := func(noText bool) []string {
		var buf bytes.Buffer
		w := bufio.NewWriter(&buf)
		for _, f := range frags {
			if err := EncodeFragment(w, f, time.UTC, noText); err != nil {
				t.Fatal(err)
			}
		}
		w.Flush()
		other, r := testSpill(t), bufio.NewReader(&buf)
		var back []*Fragment
		for range frags {
			f, err := DecodeFragment(r, other)
			if err != nil {
				t.Fatal(err)
			}
			back = append(back, f)
		}
		return join(back)
	}
	want := []string{"b 3: b0.0 b0.1 b2.0 b2.1 b2.2 b2.3 b4.0 b4.1 b4.2 b4.3 b4.4 b4.5", "a 2: a1.0 a1.1 a1.2 a3.0 a3.1 a3.2 a3.3 a3.4"}
	if got := through(false); !slices.Equal(got, want) {
		t.Errorf("through a partial: %q, want %q", got, want)
	}
	if got, want := through(true), []string{"b 3: - - - - - - - - - - - -", "a 2: - - - - - - - -"}; !slices.Equal(got, want) {
		t.Errorf("through a partial without texts: %q, want %q", got, want)
	}
	if got := join(frags); !slices.Equal(got, want) {
		t.Errorf("joined: %q, want %q", got, want)
	}
	if spill.Err() != nil {
		t.Error(spill.Err())
	}
}

// A partial's fragment of a kind no format registered is refused.
func TestDecodeRefusesAnUnknownKind(t *testing.T) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	f := &Fragment{Kind: testKind, Source: "x", Key: "k", Records: &EntryLog[string]{Codec: testCodec, Entries: []string{"e"}}}
	if err := EncodeFragment(w, f, time.UTC, false); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	b := buf.Bytes()
	_, k := binary.Uvarint(b) // the head's length, then its first byte: the kind
	if b[k] != byte(testKind) {
		t.Fatalf("the head begins %d", b[k])
	}
	b[k] = 99
	if _, err := DecodeFragment(bufio.NewReader(bytes.NewReader(b)), testSpill(t)); err == nil {
		t.Error("a fragment of an unknown kind was read")
	}
}

package clamp

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/agentstat/agentstat/logformat/clamp/clamptest"
	"github.com/go-json-experiment/json/jsontext"
)

func randDoc(rng *rand.Rand, depth int) string {
	switch k := rng.IntN(6); {
	case depth > 3 || k == 0:
		return `"` + clamptest.RandString(rng) + `"`
	case k == 1:
		return []string{"1", "-2.5e3", "true", "null", "123456789012345678901234567890", "NaN", "-Infinity", "Infinity"}[rng.IntN(8)]
	case k < 4:
		var parts []string
		for n := rng.IntN(4); n > 0; n-- {
			parts = append(parts, `"`+clamptest.RandString(rng)+`": `+randDoc(rng, depth+1))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	default:
		var parts []string
		for n := rng.IntN(4); n > 0; n-- {
			parts = append(parts, randDoc(rng, depth+1))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
}

func clampAll(t *testing.T, doc string, limit int, wrap func(io.Reader) io.Reader) []byte {
	c := NewReader()
	c.Reset(wrap(strings.NewReader(doc)))
	c.limit = limit
	out, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("%q: %v", doc, err)
	}
	return out
}

func TestClampKeepsJSONValid(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	wraps := []func(io.Reader) io.Reader{func(r io.Reader) io.Reader { return r }, iotest.OneByteReader, iotest.HalfReader}
	for i := 0; i < 3000; i++ {
		doc := randDoc(rng, 0)
		finite := nonFiniteAsNull.Replace(doc) // no generated string holds these words
		if !json.Valid([]byte(finite)) {
			t.Fatalf("generator made invalid JSON: %s", doc)
		}
		limit := 1 + rng.IntN(12)
		out := clampAll(t, doc, limit, wraps[i%3])
		if !strictJSON(out) || !utf8.Valid(out) {
			t.Fatalf("limit %d: %s\nbecame invalid: %s", limit, doc, out)
		}
		if shape([]byte(finite)) != shape(out) {
			t.Fatalf("shape changed:\n%s\n%s", doc, out)
		}
		if big, want := clampAll(t, doc, 1<<20, wraps[i%3]), replaceLoneSurrogates(finite); string(big) != want {
			t.Fatalf("a document with no long string:\n%s\nbecame\n%s\nnot\n%s", doc, big, want)
		}
	}
}

var nonFiniteAsNull = strings.NewReplacer("-Infinity", "null", "Infinity", "null", "NaN", "null")

// strictJSON is the decoder's own check, which refuses a lone surrogate
// (encoding/json takes it). Clamping may make two keys equal.
func strictJSON(doc []byte) bool {
	return jsontext.Value(doc).IsValid(jsontext.AllowDuplicateNames(true))
}

// replaceLoneSurrogates is what the clamp does to a document with no long
// string, written the plain way: every \uXXXX escape of a surrogate that is
// not half of a pair becomes \ufffd. doc must be valid JSON, where a
// backslash only ever starts an escape.
func replaceLoneSurrogates(doc string) string {
	half := func(i int) (high, low bool) {
		if i+6 > len(doc) || doc[i+1] != 'u' {
			return false, false
		}
		v, err := strconv.ParseUint(doc[i+2:i+6], 16, 16)
		return err == nil && utf16.IsSurrogate(rune(v)) && v < 0xDC00, err == nil && utf16.IsSurrogate(rune(v)) && v >= 0xDC00
	}
	var b strings.Builder
	for i := 0; i < len(doc); {
		if doc[i] != '\\' {
			b.WriteByte(doc[i])
			i++
			continue
		}
		high, low := half(i)
		switch _, nextLow := half(i + 6); {
		case high && nextLow:
			b.WriteString(doc[i : i+12])
			i += 12
		case high || low:
			b.WriteString(`\ufffd`)
			i += 6
		default:
			b.WriteString(doc[i : i+2])
			i += 2
		}
	}
	return b.String()
}

// shape is the document's token stream with every string emptied: clamping
// may shorten strings only (and so may make two keys equal).
func shape(doc []byte) string {
	dec := json.NewDecoder(bytes.NewReader(doc))
	var b strings.Builder
	for {
		tok, err := dec.Token()
		if err != nil {
			return b.String()
		}
		switch v := tok.(type) {
		case string:
			b.WriteString("s ")
		case json.Delim:
			b.WriteString(v.String() + " ")
		default:
			fmt.Fprintf(&b, "%v ", v)
		}
	}
}

// stringEnd finds the first quote, backslash or newline eight bytes at a
// time; bytes just below and above those (and 0x00, 0x80, 0xFF, whose
// borrows are the trap of the trick) sit around them at every offset.
func TestStringEnd(t *testing.T) {
	alphabet := []byte{'"', '\\', '\n', '!', '#', '[', ']', '\t', '\v', 0, 1, 0x80, 0xA2, 0xDC, 0xFF, 'a'}
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, rnd.IntN(40))
		for i := range b {
			b[i] = alphabet[rnd.IntN(len(alphabet))]
			if rnd.IntN(3) > 0 {
				b[i] = alphabet[3+rnd.IntN(len(alphabet)-3)] // fewer stops: longer runs
			}
		}
		want := len(b)
		if i := bytes.IndexAny(b, "\"\\\n"); i >= 0 {
			want = i
		}
		if got := stringEnd(b); got != want {
			t.Fatalf("%q: %d, want %d", b, got, want)
		}
	}
}

// surrogateEscape finds `\ud` and `\uD` as two searches do, wherever
// backslashes, u, d and their neighbours fall.
func TestSurrogateEscape(t *testing.T) {
	alphabet := []byte{'\\', 'u', 'd', 'D', 'U', 'e', '"', 0x24, 0xC4, 0xE4}
	rnd := rand.New(rand.NewPCG(3, 4))
	for range 50000 {
		b := make([]byte, rnd.IntN(12))
		for i := range b {
			b[i] = alphabet[rnd.IntN(len(alphabet))]
		}
		want := bytes.Contains(b, []byte(`\ud`)) || bytes.Contains(b, []byte(`\uD`))
		if got := surrogateEscape(b); got != want {
			t.Fatalf("%q: %v, want %v", b, got, want)
		}
	}
}

// clampLimits are string and bare-token limits at which clamptest.Tricky
// are edges.
var clampLimits = [][2]int{{8, 5}, {64, 5}, {8, MaxBareToken}, {MaxString, MaxBareToken}}

// A line plainLine passes is one the clamp's state machine leaves as it is
// (clamped from the start of input, newline and all).
func TestClampPlainLines(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	lines := slices.Clone(clamptest.Tricky)
	for range 3000 {
		var b strings.Builder
		for k := rng.IntN(8); k > 0; k-- {
			b.WriteString(clamptest.Tricky[rng.IntN(len(clamptest.Tricky))])
		}
		lines = append(lines, b.String())
	}
	plain := 0
	for _, line := range lines {
		for _, lim := range clampLimits {
			c := NewReader()
			c.Reset(nil)
			c.limit, c.bareLimit, c.Lines = lim[0], lim[1], true
			if !c.plainLine([]byte(line)) {
				continue
			}
			plain++
			in := []byte(line + "\n") // plainLine looks at a line that has its newline
			var out clampOut
			out.start(in, nil)
			if _, err := c.machine(in, 0, &out); err != nil || string(out.finish()) != string(in) {
				t.Fatalf("%q passes as plain, but the clamp gives %q (%v)", line, out.finish(), err)
			}
		}
	}
	if plain < len(lines)/4 {
		t.Fatalf("only %d of %d lines plain", plain, len(clampLimits)*len(lines))
	}
}

// Runs of short lines that plainLine passes are passed whole: a document
// of them, tricky lines among them, comes out as the clamp's state machine
// makes it, with any limits, however the reads cut it.
func TestClampPlainRuns(t *testing.T) {
	defer func(n int, p bool) { minPlainLine, plainRuns = n, p }(minPlainLine, plainRuns)
	minPlainLine = 16 // runs of ~256 bytes
	rng := rand.New(rand.NewPCG(11, 12))
	long := `  "long": "` + strings.Repeat("日本 é ", 60) + `",` // 600 bytes, over the limit of 500 below
	plainLines := []string{`{`, `  "id": "a-1",`, `  "n": [1, 2.5, -3e2],`, `  "t": "日本 \n \" é",`, `  "ok": true`, `},`, `[`, `]`, `  "x": null`, long}
	for range 300 {
		var doc strings.Builder
		for k := rng.IntN(200); k > 0; k-- {
			if rng.IntN(30) == 0 {
				doc.WriteString(clamptest.Tricky[rng.IntN(len(clamptest.Tricky))])
			} else {
				doc.WriteString(plainLines[rng.IntN(len(plainLines))])
			}
			doc.WriteByte('\n')
		}
		for _, lim := range append(slices.Clone(clampLimits), [2]int{500, MaxBareToken}, [2]int{MaxString, 5}) {
			for _, lines := range []bool{false, true} {
				clamp := func(runs bool) ([]byte, error) {
					plainRuns = runs
					c := NewReader()
					c.Reset(&randomReads{r: strings.NewReader(doc.String()), rng: rand.New(rand.NewPCG(uint64(lim[0]), uint64(lim[1])))})
					c.limit, c.bareLimit, c.Lines = lim[0], lim[1], lines
					return io.ReadAll(c)
				}
				got, err := clamp(true)
				want, wantErr := clamp(false)
				if (err == nil) != (wantErr == nil) || !bytes.Equal(got, want) {
					t.Fatalf("limits %v, lines=%v: runs passed whole give %q (%v), clamped %q (%v)", lim, lines, got, err, want, wantErr)
				}
			}
		}
	}
}

// randomReads reads from r a random number of bytes at a time, from 1 to 400.
type randomReads struct {
	r   io.Reader
	rng *rand.Rand
}

func (r *randomReads) Read(p []byte) (int, error) {
	return r.r.Read(p[:min(len(p), 1+r.rng.IntN(400))])
}

// The clamp gives the same bytes however its input is cut in two: what it
// carries from one read to the next (an open string, a bare token's length,
// a held surrogate) is what a whole line passed at once must not skip.
func TestClampAnySplit(t *testing.T) {
	defer func(n int) { minPlainLine = n }(minPlainLine)
	doc := strings.Join(clamptest.Tricky, "\n") + "\n" + strings.Join(clamptest.Tricky, "")
	for _, lim := range clampLimits {
		minPlainLine = 0 // every line is looked at as a whole first
		if lim[0] == MaxString {
			minPlainLine = 64 // and short lines in runs
		}
		for _, lines := range []bool{false, true} {
			run := func(parts ...string) ([]byte, error) {
				rs := make([]io.Reader, len(parts))
				for i, p := range parts {
					rs[i] = strings.NewReader(p)
				}
				c := NewReader()
				c.Reset(io.MultiReader(rs...))
				c.limit, c.bareLimit, c.Lines = lim[0], lim[1], lines
				return io.ReadAll(c)
			}
			whole, werr := run(doc)
			for k := range len(doc) {
				got, err := run(doc[:k], doc[k:])
				if (err == nil) != (werr == nil) || err == nil && !bytes.Equal(got, whole) { // a document refused is refused whole
					t.Fatalf("limits %v, lines=%v, cut at %d (%q|%q): %q (%v), whole %q (%v)", lim, lines, k, doc[max(0, k-10):k], doc[k:min(len(doc), k+10)], got, err, whole, werr)
				}
			}
		}
	}
}

func BenchmarkClamp(b *testing.B) {
	doc := []byte(strings.Repeat(`{"type":"assistant","message":{"content":[{"type":"text","text":"`+strings.Repeat("lorem ipsum \\n dolor ", 50)+`"}]},"n":12345}`+"\n", 200))
	b.SetBytes(int64(len(doc)))
	c := NewReader()
	for b.Loop() {
		c.Reset(bytes.NewReader(doc))
		io.Copy(io.Discard, c)
	}
}

// FuzzClamp: valid JSON stays valid JSON with the same token shape, at any
// limit and any chunking; invalid input never panics.
func FuzzClamp(f *testing.F) {
	for _, s := range []string{`{"a":"\ud83d\ude00é"}`, `["\\\"x"]`, `{"k":"日本語","n":1.5e3}`, `"\u00e9\u0041"`, `["\ud83d","\ude00\ud83d\n"]`} {
		f.Add([]byte(s), uint8(3))
	}
	f.Add([]byte("{\"a\":\"open\n{\"b\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}\n"), uint8(3))
	f.Add([]byte("[\"ab\\\n\"cd\"]\n\"\\u12\n"), uint8(1))
	f.Add([]byte("{\"n\": 123456789, \"t\": true}\n\x00\x00\x00\x00\x00\x00\x00\x00\x00\n[1]\n"), uint8(0x43))
	f.Add([]byte("[NaN, -Infinity,Infinity, \"NaN\", NaNa]\n{\"a\":-Infinity}\n"), uint8(7))
	f.Fuzz(func(t *testing.T, doc []byte, limit uint8) {
		// The low five bits set the string limit, the high three the bare-token limit.
		strLimit, bareLimit := int(limit%32)+1, []int{MaxBareToken, 2, 5, 16, MaxBareToken, 3, 8, 1}[limit/32]
		clampWith := func(data []byte, lines bool, read func(io.Reader) io.Reader) ([]byte, error) {
			c := NewReader()
			c.Reset(read(bytes.NewReader(data)))
			c.limit, c.bareLimit, c.Lines = strLimit, bareLimit, lines
			return io.ReadAll(c)
		}
		clamp := func(data []byte, lines bool, half bool) ([]byte, error) {
			if half {
				return clampWith(data, lines, iotest.HalfReader)
			}
			return clampWith(data, lines, func(r io.Reader) io.Reader { return r })
		}
		out, err := clamp(doc, false, true)
		// However the input comes, the same bytes come out before the same
		// error: what a decoder reads of a refused document, and so the
		// error it reports, does not depend on how the file was read.
		whole, wholeErr := clamp(doc, false, false)
		oneByte, oneByteErr := clampWith(doc, false, iotest.OneByteReader)
		if !bytes.Equal(whole, oneByte) || !bytes.Equal(whole, out) || fmt.Sprint(wholeErr) != fmt.Sprint(oneByteErr) || fmt.Sprint(wholeErr) != fmt.Sprint(err) {
			t.Fatalf("limits %d/%d: %q: whole %q (%v), half at a time %q (%v), a byte at a time %q (%v)", strLimit, bareLimit, doc, whole, wholeErr, out, err, oneByte, oneByteErr)
		}
		linesOut, linesErr := clamp(doc, true, true)
		if linesErr != nil {
			t.Fatalf("lines: %q: %v", doc, linesErr)
		}
		// Whatever the input, each line is clamped as if alone; as JSON Lines
		// a line comes out as it does in a document, or, where an over-long
		// bare token fails the document, as something no decoder accepts.
		var parts, lineParts [][]byte
		var partErr error
		for _, line := range bytes.SplitAfter(doc, []byte("\n")) {
			o, err := clamp(line, false, false)
			lo, lerr := clamp(line, true, false)
			switch {
			case lerr != nil:
				t.Fatalf("lines: %q: %v", line, lerr)
			case err == nil && !bytes.Equal(o, lo):
				t.Fatalf("%q: in a document %q, as a line %q", line, o, lo)
			case errors.Is(err, ErrTokenTooLong) && json.Valid(bytes.TrimSuffix(lo, []byte("\n"))):
				t.Fatalf("%q: an over-long token, yet as a line %q is JSON", line, lo)
			}
			partErr = cmp.Or(partErr, err)
			parts, lineParts = append(parts, o), append(lineParts, lo)
		}
		if (err == nil) != (partErr == nil) || err == nil && !bytes.Equal(out, bytes.Join(parts, nil)) {
			t.Fatalf("limits %d/%d: %q: whole %q (%v), line by line %q (%v)", strLimit, bareLimit, doc, out, err, bytes.Join(parts, nil), partErr)
		}
		if !bytes.Equal(linesOut, bytes.Join(lineParts, nil)) {
			t.Fatalf("limits %d/%d: %q: as lines %q, line by line %q", strLimit, bareLimit, doc, linesOut, bytes.Join(lineParts, nil))
		}
		if !json.Valid(doc) || !utf8.Valid(doc) {
			return
		}
		if err != nil {
			if errors.Is(err, ErrTokenTooLong) {
				return
			}
			t.Fatal(err)
		}
		if !strictJSON(out) || shape(doc) != shape(out) {
			t.Fatalf("limit %d: %q became %q", strLimit, doc, out)
		}
	})
}

// Line hands back a plain line as it is, from a clamp's first use on,
// and clamps the others as the stream clamp does.
func TestClampLine(t *testing.T) {
	plain := []byte(`{"type":"user","message":{"content":"` + strings.Repeat("ok ", 100) + `"}}`)
	if out, nulls, copied := NewReader().Line(plain, nil, true); copied || nulls != 0 || !bytes.Equal(out, plain) {
		t.Fatalf("a plain line came back copied (%v) or changed: %q", copied, out)
	}
	c := NewReader()
	for _, tc := range []struct{ line, want string }{
		{`[NaN,"\ud83d"]`, `[null,"\ufffd"]`},
		{`{"a":"x` + `\uX`, `{"a":"x` + `\uX`}, // before its newline the escape is kept
	} {
		if out, _, _ := c.Line([]byte(tc.line), nil, true); string(out) != tc.want {
			t.Errorf("%q: %q, want %q", tc.line, out, tc.want)
		}
	}
	if out, _, _ := c.Line([]byte(`{"a":"x\uX`), nil, false); string(out) != `{"a":"x` {
		t.Errorf("at the end of the file the broken escape is dropped, got %q", out)
	}
}

// Short lines are clamped in runs that end at a newline, never inside a
// word the clamp replaces or a character it must not cut: a document of
// them comes out as its lines do one by one.
func TestClampShortLineRuns(t *testing.T) {
	defer func(n int) { minPlainLine = n }(minPlainLine)
	minPlainLine = 8 // runs of ~128 bytes, ending anywhere in a line but for the newline search
	var doc strings.Builder
	for i := range 300 {
		doc.WriteString([]string{`[1,NaN,"日本",-Infinity]`, `{"a":"\ud83d","b":Infinity}`, `["é",NaN]`, `[` + strconv.Itoa(i) + `]`}[i%4] + "\n")
	}
	clamp := func(s string) string {
		c := NewReader()
		c.Reset(strings.NewReader(s))
		c.Lines = true
		out, err := io.ReadAll(c)
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	var byLine strings.Builder
	for _, line := range strings.SplitAfter(doc.String(), "\n") {
		byLine.WriteString(clamp(line))
	}
	if got := clamp(doc.String()); got != byLine.String() {
		t.Fatalf("as one document:\n%.300s\nline by line:\n%.300s", got, byLine.String())
	}
}

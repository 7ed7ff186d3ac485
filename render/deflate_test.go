package render

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	kflate "github.com/klauspost/compress/flate"
)

// The blocks make one deflate stream that inflates to what was written,
// back-references across blocks included, and the bytes depend only on
// what was written, not on how it was cut into writes.
func TestParallelDeflate(t *testing.T) {
	defer func(n int) { deflateBlock = n }(deflateBlock)
	deflateBlock = 40 << 10 // more than the window: a block reaches back into the one before only
	rng := rand.New(rand.NewPCG(11, 12))
	phrase := []byte(`<row r="12"><c r="A12" t="inlineStr"><is><t>日本語 session</t></is></c></row>`)
	for _, size := range []int{0, 1, deflateBlock - 1, deflateBlock, deflateBlock + 1, 7*deflateBlock + 123} {
		data := make([]byte, 0, size)
		for len(data) < size {
			if rng.IntN(4) == 0 {
				data = append(data, byte(rng.IntN(256)))
			} else {
				data = append(data, phrase[:rng.IntN(len(phrase))]...)
			}
		}
		data = data[:size]
		var first []byte
		for _, cut := range []int{1 << 30, 1, 4093, deflateBlock} {
			var out bytes.Buffer
			w, err := newParallelDeflate(&out, 6)
			if err != nil {
				t.Fatal(err)
			}
			for rest := data; len(rest) > 0; {
				k := min(len(rest), cut, 1+rng.IntN(2*cut))
				if _, err := w.Write(rest[:k]); err != nil {
					t.Fatal(err)
				}
				rest = rest[k:]
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(kflate.NewReader(bytes.NewReader(out.Bytes())))
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%d bytes, writes of up to %d: inflates to %d bytes (%v)", size, cut, len(got), err)
			}
			if first == nil {
				first = out.Bytes()
			} else if !bytes.Equal(out.Bytes(), first) {
				t.Fatalf("%d bytes: writes of up to %d give other bytes", size, cut)
			}
			if size > 4*deflateBlock && out.Len() > size/2 {
				t.Fatalf("%d bytes deflate to %d", size, out.Len())
			}
		}
	}
	if _, err := newParallelDeflate(io.Discard, 42); err == nil {
		t.Fatal("level 42 accepted")
	}
	// Blocks that repeat the window before them are deflated as references
	// into their dictionary: a few hundred bytes each, not their size.
	const period = deflateWindow - 2<<10
	data := make([]byte, 3*deflateBlock)
	for i := range data {
		if i < deflateBlock {
			data[i] = byte(rng.IntN(256))
		} else {
			data[i] = data[i-period]
		}
	}
	var out bytes.Buffer
	w, err := newParallelDeflate(&out, 6)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	w.Close()
	if out.Len() > deflateBlock+4<<10 {
		t.Errorf("blocks repeating the window before them deflate to %d bytes of %d: no dictionary", out.Len(), len(data))
	}
}

// Segments ended by closeSegment, then a stream Close ends, inflate as one
// stream to what was written to each in turn, and crc32Combine gives the
// CRC-32 of the whole from the parts'.
func TestDeflateSegments(t *testing.T) {
	defer func(n int) { deflateBlock = n }(deflateBlock)
	deflateBlock = 40 << 10
	rng := rand.New(rand.NewPCG(13, 14))
	phrase := []byte(`<c r="B7" t="inlineStr"><is><t>源 source</t></is></c>`)
	for _, sizes := range [][]int{{0, 0, 0}, {10, 0, 10}, {100, 3*deflateBlock + 5, 7}, {deflateBlock, deflateBlock, 1}} {
		var stream, whole []byte
		crc := crc32.ChecksumIEEE(nil)
		for i, size := range sizes {
			data := make([]byte, 0, size)
			for len(data) < size {
				data = append(data, phrase[:rng.IntN(len(phrase))]...)
			}
			data = data[:size]
			var out bytes.Buffer
			w, err := newParallelDeflate(&out, 6)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(data)
			if i == len(sizes)-1 {
				err = w.Close()
			} else {
				err = w.closeSegment()
			}
			if err != nil {
				t.Fatal(err)
			}
			stream = append(stream, out.Bytes()...)
			whole = append(whole, data...)
			crc = crc32Combine(crc, crc32.ChecksumIEEE(data), int64(len(data)))
		}
		got, err := io.ReadAll(kflate.NewReader(bytes.NewReader(stream)))
		if err != nil || !bytes.Equal(got, whole) {
			t.Fatalf("segments of %v: inflate to %d bytes (%v), want %d", sizes, len(got), err, len(whole))
		}
		if want := crc32.ChecksumIEEE(whole); crc != want {
			t.Errorf("segments of %v: combined CRC %08x, want %08x", sizes, crc, want)
		}
	}
}

func TestCRC32Combine(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, n := range []int{0, 1, 2, 3, 7, 8, 255, 256, 4097, 1 << 20} {
		b := make([]byte, n+37)
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		for _, cut := range []int{0, 1, 37, len(b) - n} {
			a, c := b[:cut], b[cut:]
			if got, want := crc32Combine(crc32.ChecksumIEEE(a), crc32.ChecksumIEEE(c), int64(len(c))), crc32.ChecksumIEEE(b); got != want {
				t.Errorf("%d+%d bytes: %08x, want %08x", len(a), len(c), got, want)
			}
		}
	}
}

// BenchmarkParallelDeflate compresses 32 MB of sheet-like rows the way a
// workbook's tool-call sheet is: in MB/s of the XML, with what each stream
// allocates (its blocks' compressors, dictionaries and outputs are kept
// from block to block).
func BenchmarkParallelDeflate(b *testing.B) {
	var rows []byte
	for i := 0; len(rows) < 32<<20; i++ {
		rows = fmt.Appendf(rows, `<row r="%d"><c r="A%d" t="inlineStr"><is><t>run-%x</t></is></c><c r="G%d" s="6"><v>%d.%d</v></c></row>`,
			i, i, i/50, i, 46304+i/1000, i*7919%100000)
	}
	b.SetBytes(int64(len(rows)))
	b.ReportAllocs()
	for b.Loop() {
		z, err := newParallelDeflate(io.Discard, xlsxLevel)
		if err != nil {
			b.Fatal(err)
		}
		for row := range slices.Chunk(rows, 64<<10) {
			z.Write(row)
		}
		if err := z.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

package render

import (
	"bytes"
	"io"
	"math/rand/v2"
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
}

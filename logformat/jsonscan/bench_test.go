package jsonscan

import (
	"bytes"
	"testing"

	"github.com/agentstat/agentstat/internal/logsynth"
	"github.com/go-json-experiment/json/jsontext"
)

// BenchmarkUnquote measures unquoting a Codex tool output (a JSON document
// escaped in a string, English and Chinese text): jsontext's, and the one
// the readers use for strings already validated.
func BenchmarkUnquote(b *testing.B) {
	data, err := logsynth.File("codex", 1)
	if err != nil {
		b.Fatal(err)
	}
	var raw []byte
	for l := range bytes.Lines(data) {
		if i := bytes.Index(l, []byte(`"output":"`)); i >= 0 && len(l) > len(raw) {
			s := Scanner{B: l, i: i + len(`"output":`)}
			if !s.skipString() {
				b.Fatal("not a string")
			}
			raw = l[i+len(`"output":`) : s.i]
		}
	}
	if len(raw) < 1000 {
		b.Fatalf("no long tool output (%d bytes)", len(raw))
	}
	for _, c := range []struct {
		name    string
		unquote func(dst, raw []byte) ([]byte, error)
	}{{"jsontext", func(dst, raw []byte) ([]byte, error) { return jsontext.AppendUnquote(dst, raw) }}, {"validated", appendUnquoted}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			var buf []byte
			for b.Loop() {
				if buf, err = c.unquote(buf[:0], raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

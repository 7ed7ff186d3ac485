package logformat

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentstat/agentstat/internal/logsynth"
	"github.com/agentstat/agentstat/logformat/formattest"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/reader"
)

// BenchmarkRead measures each reader on a realistic generated file (payload
// text included), in MB/s: compare runs with benchstat.
func BenchmarkRead(b *testing.B) {
	names := map[string]string{"claudecode": "s.jsonl", "codex": "rollout.jsonl", "otel": "traces.otlp.jsonl"}
	for _, f := range All() {
		data, err := logsynth.File(f.Name, 1)
		if err != nil {
			b.Fatal(err)
		}
		name := names[f.Name]
		if name == "" {
			name = f.Name + ".json"
		}
		b.Run(f.Name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				c := formattest.NewCollector()
				if err := Read(bytes.NewReader(data), name, Options{}, c); err != nil {
					b.Fatal(err)
				}
				if len(c.Runs)+len(c.Frags) == 0 {
					b.Fatal("no runs")
				}
				if len(c.Frags) > 0 {
					if runs, _ := formattest.JoinAll(c.Frags, c); len(runs) == 0 {
						b.Fatal("no joined runs")
					}
				}
			}
		})
	}
}

// BenchmarkReadLongTranscript measures the chunked JSONL reader (the path of
// files over 16 MB) on a Claude Code transcript, decoded on two goroutines.
func BenchmarkReadLongTranscript(b *testing.B) {
	data := formattest.LongTranscript(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		c := formattest.NewCollector()
		if err := Read(bytes.NewReader(data), "long.jsonl", Options{LineWorkers: 2}, c); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadBundle measures a large debug bundle (the 1 GB corpus's,
// scaled to 4 MB) through the token path alone and through the raw path,
// which reads it as it is (the first bytes only peeked through the clamp).
func BenchmarkReadBundle(b *testing.B) {
	dir := b.TempDir()
	if _, err := logsynth.Generate(context.Background(), dir, logsynth.Options{Size: 20e6, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "debugbundle", "bundle-big.json"))
	if err != nil {
		b.Fatal(err)
	}
	for _, path := range []string{"token", "raw"} {
		b.Run(path, func(b *testing.B) {
			opt := Options{}
			reads := 0
			if path == "raw" { // read again as it is, once (a second time would be through the clamp)
				opt.Reread = func() (io.Reader, error) {
					if reads++; reads > 1 {
						b.Fatal("the raw path gave up")
					}
					return bytes.NewReader(data), nil
				}
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				reads = 0
				c := formattest.NewCollector()
				if err := Read(bytes.NewReader(data), "bundle.json", opt, c); err != nil || len(c.Runs) != 1 {
					b.Fatal(err, len(c.Runs))
				}
			}
		})
	}
}

// BenchmarkDecodeLineRaw measures the raw path alone, on one core, over a
// generated transcript's lines: most of what a long transcript costs.
func BenchmarkDecodeLineRaw(b *testing.B) {
	var lines [][]byte
	size := 0
	for l := range bytes.Lines(formattest.LongTranscript(b)) {
		lines = append(lines, bytes.TrimSuffix(l, []byte("\n")))
		size += len(l)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	docs := make([]document, len(lines))
	w := &jsonscan.WarnList{}
	var a reader.LineArena
	for b.Loop() {
		clear(docs)
		a.Reset()
		for i, l := range lines {
			if !decodeLineRaw(l, &docs[i], w, &a) {
				b.Fatalf("the raw path gave up: %.200s", l)
			}
		}
	}
}

package formats

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentstat/agentstat/internal/logsynth"
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
				c := newCollector()
				if err := Read(bytes.NewReader(data), name, Options{}, c); err != nil {
					b.Fatal(err)
				}
				if len(c.runs)+len(c.frags) == 0 {
					b.Fatal("no runs")
				}
				if len(c.frags) > 0 {
					if runs, _ := Join(c.frags, c); len(runs) == 0 {
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
	data := longTranscript(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		c := newCollector()
		if err := Read(bytes.NewReader(data), "long.jsonl", Options{LineWorkers: 2}, c); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadBundle measures a large debug bundle (the 1 GB corpus's,
// scaled to 4 MB) through the token path alone and through the raw path.
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
			if path == "raw" {
				opt.Reread = func() (io.Reader, error) { b.Fatal("the raw path gave up"); return nil, nil }
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				c := newCollector()
				if err := Read(bytes.NewReader(data), "bundle.json", opt, c); err != nil || len(c.runs) != 1 {
					b.Fatal(err, len(c.runs))
				}
			}
		})
	}
}

// BenchmarkClaudeJoin measures the join of one long session (up to four
// files of up to 80,000 lines), the serial step after reading.
func BenchmarkClaudeJoin(b *testing.B) {
	fs := randomClaudeSession(rand.New(rand.NewPCG(3, 4)), 2000)
	b.ReportAllocs()
	for b.Loop() {
		if _, calls := claudeRun("long", fs, newCollector()); len(calls.All()) == 0 {
			b.Fatal("no calls")
		}
	}
}

// BenchmarkRecordSpill measures reading a long session's records back from
// the spill, both halves, as its join does (serial, at the end), in MB/s
// of records.
func BenchmarkRecordSpill(b *testing.B) {
	data := longTranscript(b)
	spill, err := NewRecordSpill(nil)
	if err != nil {
		b.Skip("no temporary directory:", err)
	}
	defer spill.Close()
	c := newCollector()
	if err := Read(bytes.NewReader(data), "long.jsonl", Options{Spill: spill}, c); err != nil {
		b.Fatal(err)
	}
	var size int64
	for _, f := range c.frags {
		size += f.recordSize()
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range c.frags {
			f.loadRecords(linesAndUsages)
			f.loadRecords(usesAndResults)
			f.release()
		}
	}
	if spill.Err() != nil {
		b.Fatal(spill.Err())
	}
}

// longTranscript is twenty generated Claude Code transcripts end to end.
func longTranscript(b *testing.B) []byte {
	b.Helper()
	var data []byte
	for seed := range 20 {
		d, err := logsynth.File("claudecode", uint64(seed))
		if err != nil {
			b.Fatal(err)
		}
		data = append(data, d...)
	}
	return data
}

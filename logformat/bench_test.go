package logformat

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/agentstat/agentstat/internal/logsynth"
	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/join"
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
					if runs, _ := joinAll(c.Frags, c); len(runs) == 0 {
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

// BenchmarkClaudeJoin measures the join of one long session (up to four
// files of up to 80,000 lines), the serial step after reading.
func BenchmarkClaudeJoin(b *testing.B) {
	fs := randomClaudeSession(rand.New(rand.NewPCG(3, 4)), 2000)
	b.ReportAllocs()
	for b.Loop() {
		if _, calls := claudeRun("long", fs, formattest.NewCollector()); len(calls.All()) == 0 {
			b.Fatal("no calls")
		}
	}
}

// BenchmarkRecordSpill measures reading a long session's records back from
// the spill, both halves, as its join does (at the end, on both cores), in
// MB/s of records: three copies of longTranscript as one session of about
// 4,900 lines, in segments of 1,024.
func BenchmarkRecordSpill(b *testing.B) {
	one := regexp.MustCompile(`"sessionId":"[^"]*"`).ReplaceAll(longTranscript(b), []byte(`"sessionId":"long"`))
	data := bytes.Repeat(one, 3)
	spill, err := recordspill.New(nil)
	if err != nil {
		b.Skip("no temporary directory:", err)
	}
	defer spill.Close()
	c := formattest.NewCollector()
	defer func(n int) { join.SegmentLines = n }(join.SegmentLines)
	join.SegmentLines = 1 << 10
	if err := Read(bytes.NewReader(data), "long.jsonl", Options{Spill: spill}, c); err != nil {
		b.Fatal(err)
	}
	if len(c.Frags) != 1 || len(claudeLogOf(c.Frags[0]).refs) < 4 || claudeLogOf(c.Frags[0]).refs[0].Tables[0] < 1<<10 {
		b.Fatalf("%d fragments, not one long session in segments", len(c.Frags))
	}
	var size int64
	for _, f := range c.Frags {
		size += claudeLogOf(f).recordSize()
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range c.Frags {
			claudeLogOf(f).loadRecords(linesAndUsages)
			claudeLogOf(f).loadRecords(usesAndResults)
			claudeLogOf(f).release()
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

// BenchmarkDecodeLineRaw measures the raw path alone, on one core, over a
// generated transcript's lines: most of what a long transcript costs.
func BenchmarkDecodeLineRaw(b *testing.B) {
	var lines [][]byte
	size := 0
	for l := range bytes.Lines(longTranscript(b)) {
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

// BenchmarkClaudeJoinLong measures the join of one long session read back
// from the spill, as a long transcript's is: thirty
// copies of longTranscript as one session of about 49,000 lines.
func BenchmarkClaudeJoinLong(b *testing.B) {
	one := regexp.MustCompile(`"sessionId":"[^"]*"`).ReplaceAll(longTranscript(b), []byte(`"sessionId":"long"`))
	spill, err := recordspill.New(time.UTC)
	if err != nil {
		b.Skip("no temporary directory:", err)
	}
	defer spill.Close()
	c := formattest.NewCollector()
	if err := Read(bytes.NewReader(bytes.Repeat(one, 30)), "long.jsonl", Options{Location: time.UTC, Spill: spill}, c); err != nil {
		b.Fatal(err)
	}
	if len(c.Frags) != 1 {
		b.Fatalf("%d fragments, not one long session", len(c.Frags))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, calls := claudeRun("long", c.Frags, formattest.NewCollector()); len(calls.All()) == 0 {
			b.Fatal("no calls")
		}
	}
	if spill.Err() != nil {
		b.Fatal(spill.Err())
	}
}

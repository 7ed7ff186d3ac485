package claudecode

import (
	"bytes"
	"math/rand/v2"
	"regexp"
	"testing"
	"time"

	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/join"
	"github.com/agentstat/agentstat/logformat/formattest"
)

// BenchmarkClaudeJoin measures the join of one long session (up to four
// files of up to 80,000 lines), the serial step after reading.
func BenchmarkClaudeJoin(b *testing.B) {
	fs := randomSession(rand.New(rand.NewPCG(3, 4)), 2000)
	b.ReportAllocs()
	for b.Loop() {
		if _, calls := sessionRun("long", fs, formattest.NewCollector()); len(calls.All()) == 0 {
			b.Fatal("no calls")
		}
	}
}

// BenchmarkRecordSpill measures reading a long session's records back from
// the spill, both halves, as its join does (at the end, on both cores), in
// MB/s of records: three copies of longTranscript as one session of about
// 4,900 lines, in segments of 1,024.
func BenchmarkRecordSpill(b *testing.B) {
	one := regexp.MustCompile(`"sessionId":"[^"]*"`).ReplaceAll(formattest.LongTranscript(b), []byte(`"sessionId":"long"`))
	data := bytes.Repeat(one, 3)
	spill, err := recordspill.New(nil)
	if err != nil {
		b.Skip("no temporary directory:", err)
	}
	defer spill.Close()
	c := formattest.NewCollector()
	defer func(n int) { join.SegmentLines = n }(join.SegmentLines)
	join.SegmentLines = 1 << 10
	if err := readLines(bytes.NewReader(data), "long.jsonl", nil, spill, c); err != nil {
		b.Fatal(err)
	}
	if len(c.Frags) != 1 || len(logOf(c.Frags[0]).refs) < 4 || logOf(c.Frags[0]).refs[0].Tables[0] < 1<<10 {
		b.Fatalf("%d fragments, not one long session in segments", len(c.Frags))
	}
	var size int64
	for _, f := range c.Frags {
		size += logOf(f).recordSize()
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range c.Frags {
			logOf(f).loadRecords(linesAndUsages)
			logOf(f).loadRecords(usesAndResults)
			logOf(f).release()
		}
	}
	if spill.Err() != nil {
		b.Fatal(spill.Err())
	}
}

// BenchmarkClaudeJoinLong measures the join of one long session read back
// from the spill, as a long transcript's is: thirty
// copies of longTranscript as one session of about 49,000 lines.
func BenchmarkClaudeJoinLong(b *testing.B) {
	one := regexp.MustCompile(`"sessionId":"[^"]*"`).ReplaceAll(formattest.LongTranscript(b), []byte(`"sessionId":"long"`))
	spill, err := recordspill.New(time.UTC)
	if err != nil {
		b.Skip("no temporary directory:", err)
	}
	defer spill.Close()
	c := formattest.NewCollector()
	if err := readLines(bytes.NewReader(bytes.Repeat(one, 30)), "long.jsonl", time.UTC, spill, c); err != nil {
		b.Fatal(err)
	}
	if len(c.Frags) != 1 {
		b.Fatalf("%d fragments, not one long session", len(c.Frags))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, calls := sessionRun("long", c.Frags, formattest.NewCollector()); len(calls.All()) == 0 {
			b.Fatal("no calls")
		}
	}
	if spill.Err() != nil {
		b.Fatal(spill.Err())
	}
}

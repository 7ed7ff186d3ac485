package analyze

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/agentstat/agentstat/analyze/formats"
	"github.com/agentstat/agentstat/analyze/model"
	"github.com/agentstat/agentstat/internal/logsynth"
)

type runCollector struct{ runs []*model.Run }

func (c *runCollector) Warn(string)                  {}
func (c *runCollector) Run(r *model.Run)             { c.runs = append(c.runs, r) }
func (c *runCollector) Fragment(f *formats.Fragment) {}

// BenchmarkAccumulate measures folding runs into an accumulator, in MB/s of
// the log bytes the runs were read from.
func BenchmarkAccumulate(b *testing.B) {
	c := &runCollector{}
	var size int64
	for i, f := range []string{"session", "planexec", "debugbundle", "structmsg"} {
		for seed := range 50 {
			data, err := logsynth.File(f, uint64(i*1000+seed))
			if err != nil {
				b.Fatal(err)
			}
			if err := formats.Read(bytes.NewReader(data), fmt.Sprintf("%s-%d.json", f, seed), formats.Options{}, c); err != nil {
				b.Fatal(err)
			}
			size += int64(len(data))
		}
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		acc := NewAccumulator(time.UTC)
		for _, r := range c.runs {
			acc.AddRun(r)
		}
		if acc.Report(Options{}).Summary.Runs.Total != int64(len(c.runs)) {
			b.Fatal("runs lost")
		}
	}
}

// BenchmarkAnalyze measures the whole pipeline over a generated 20 MB corpus.
func BenchmarkAnalyze(b *testing.B) {
	dir := b.TempDir()
	st, err := logsynth.Generate(context.Background(), dir, logsynth.Options{Size: 20e6, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Bytes)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Analyze(context.Background(), Options{Roots: []string{dir}}); err != nil {
			b.Fatal(err)
		}
	}
}

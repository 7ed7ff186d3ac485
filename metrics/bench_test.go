package metrics

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/agentstat/agentstat/internal/logsynth"
	"github.com/agentstat/agentstat/join"
	"github.com/agentstat/agentstat/logformat"
	"github.com/agentstat/agentstat/model"
)

type runCollector struct{ runs []*model.Run }

func (c *runCollector) Warn(string)               {}
func (c *runCollector) Run(r *model.Run)          { c.runs = append(c.runs, r) }
func (c *runCollector) Fragment(f *join.Fragment) {}

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
			if err := logformat.Read(bytes.NewReader(data), fmt.Sprintf("%s-%d.json", f, seed), logformat.Options{}, c); err != nil {
				b.Fatal(err)
			}
			size += int64(len(data))
		}
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		acc := NewAccumulator(Settings{Location: time.UTC})
		for _, r := range c.runs {
			acc.AddRun(r)
		}
		if acc.Report(time.Time{}, "").Summary.Runs.Total != int64(len(c.runs)) {
			b.Fatal("runs lost")
		}
	}
}

// BenchmarkDetails spills runs' tool calls and reads them back, as a full
// report does for its workbook (Calls) and again for the run pages
// (Pages), in MB/s of the spill: one long run of 100,000 calls, and 5,000
// short runs of 20, most runs of a corpus.
func BenchmarkDetails(b *testing.B) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.FixedZone("", 8*3600))
	tools := []string{"Bash", "Read", "Edit", "Grep", "mcp__github__create_issue"}
	calls := func(n int) []model.ToolCall {
		cs := make([]model.ToolCall, n)
		for i := range cs {
			c := &cs[i]
			c.Name, c.Category, c.Outcome = tools[i%len(tools)], "shell", model.OutcomeOK
			c.Started, c.Ended = t0.Add(time.Duration(i)*time.Second), t0.Add(time.Duration(i)*time.Second+1500*time.Millisecond)
			c.DurationMS, c.HasDuration = 1500, true
			if i%13 == 0 {
				c.Outcome, c.Error = model.OutcomeError, fmt.Sprintf("exit status %d: command failed", i%7)
			}
		}
		return cs
	}
	long := []*model.Run{{ID: "long", Format: "claudecode", Source: "proj/session.jsonl", ToolCalls: calls(100_000)}}
	var short []*model.Run
	for i := range 5000 {
		short = append(short, &model.Run{ID: fmt.Sprint("run-", i), Format: "session", Source: fmt.Sprintf("sessions/s-%d.json", i),
			FileOrd: i, ToolCalls: calls(20)})
	}
	for _, c := range []struct {
		name string
		runs []*model.Run
	}{{"long", long}, {"short", short}} {
		want := 0
		for _, r := range c.runs {
			want += len(r.ToolCalls)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d := new(Details)
				w, err := d.writer()
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range c.runs {
					w.write(r)
				}
				if err := w.close(); err != nil {
					b.Fatal(err)
				}
				if info, err := d.files[0].Stat(); err == nil {
					b.SetBytes(info.Size())
				}
				got := 0
				for chunk, err := range d.Calls() {
					if err != nil {
						b.Fatal(err)
					}
					got += len(chunk.Calls)
				}
				for pr, err := range d.Pages(1 << 14) {
					if err != nil {
						b.Fatal(err)
					}
					if pr.Read == nil {
						got += len(pr.Run.ToolCalls)
						continue
					}
					pr.Read(func(chunk []model.ToolCall) bool { got += len(chunk); return true })
				}
				d.Close()
				if got != 2*want {
					b.Fatalf("%d calls back of %d, twice", got, want)
				}
			}
		})
	}
}

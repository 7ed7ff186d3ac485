package logformat

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentstat/agentstat/logformat/formattest"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/agentstat/agentstat/model"
)

// fuzzRead feeds arbitrary bytes to the reader and checks invariants that
// must hold for any input: no panic, and every run it emits is well-formed.
func fuzzRead(f *testing.F, dir, name string) {
	seeds, _ := filepath.Glob(filepath.Join("..", "testdata", "logs", dir, "*"))
	deeper, _ := filepath.Glob(filepath.Join("..", "testdata", "logs", dir, "*", "*"))
	seeds = append(seeds, deeper...)
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := formattest.NewCollector()
		err := Read(bytes.NewReader(data), name, Options{}, c)
		if err != nil && reason(err) == "" {
			t.Fatalf("non-skip error from an in-memory reader: %v", err)
		}
		runs, _ := formattest.JoinAll(c.Frags, c)
		for _, r := range append(c.Runs, runs...) {
			checkRunInvariants(t, r)
		}
	})
}

func checkRunInvariants(t *testing.T, r *model.Run) {
	valid := map[model.Status]bool{}
	for _, s := range model.RunStatuses {
		valid[s] = true
	}
	if !valid[r.Status] || r.ID == "" || r.Format == "" {
		t.Fatalf("bad run: status %q id %q format %q", r.Status, r.ID, r.Format)
	}
	if r.HasDuration && (r.DurationMS < 0 || r.DurationMS > reader.MaxDurationMS) {
		t.Fatalf("run duration %v", r.DurationMS)
	}
	for _, c := range r.ToolCalls {
		if c.HasDuration && (c.DurationMS < 0 || c.DurationMS > reader.MaxDurationMS) {
			t.Fatalf("call duration %v", c.DurationMS)
		}
	}
	for _, s := range r.Steps {
		if _, ok := model.ParseStepStatus(string(s.Status)); !ok && s.Status != model.StepOther {
			t.Fatalf("step status %q", s.Status)
		}
	}
}

func FuzzPlanexec(f *testing.F)    { fuzzRead(f, "planexec", "f.json") }
func FuzzSession(f *testing.F)     { fuzzRead(f, "session", "f.json") }
func FuzzDebugbundle(f *testing.F) { fuzzRead(f, "debugbundle", "f.json") }
func FuzzPlanagent(f *testing.F)   { fuzzRead(f, "planagent", "f.json") }
func FuzzStructmsg(f *testing.F)   { fuzzRead(f, "structmsg", "f.json") }
func FuzzJSONLines(f *testing.F)   { fuzzRead(f, "broken", "f.jsonl") }
func FuzzClaudeCode(f *testing.F)  { fuzzRead(f, "claudecode/proj", "f.jsonl") }
func FuzzCodex(f *testing.F)       { fuzzRead(f, "codex", "f.jsonl") }
func FuzzOtel(f *testing.F)        { fuzzRead(f, "otel", "f.jsonl") }
func FuzzGemini(f *testing.F)      { fuzzRead(f, "gemini", "f.json") }

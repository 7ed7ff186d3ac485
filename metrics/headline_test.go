package metrics

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// Every figure check, diff and --fail-on-regression name is one the
// registry can read, so that no threshold silently has no data.
func TestFiguresResolve(t *testing.T) {
	for _, f := range ThresholdFlags {
		if _, ok := FigureAt(f.Metric); !ok {
			t.Errorf("--%s: %s is not a headline figure", f.Flag, f.Metric)
		}
		if _, ok := toolFigureAt(f.ToolMetric); f.ToolMetric != "" && !ok {
			t.Errorf("--%s: %s is not a per-tool figure", f.Flag, f.ToolMetric)
		}
	}
	for _, name := range RegressionKeys() {
		if _, err := ParseRegressionLimit(name + "=0.1"); err != nil {
			t.Error(err)
		}
	}
	keys := map[string]bool{}
	for _, f := range Headline {
		if f.History != "" && keys[f.History] {
			t.Errorf("history key %s twice", f.History)
		}
		keys[f.History] = true
	}
}

// A history line is read and written back as it was, and a line of an
// older writer with a count missing reads it as 0.
func TestHistoryRoundTrip(t *testing.T) {
	lines := `{"schema":"agentstat.history/v1","generated_at":"2026-01-01T00:00:00Z","runs":2334,"success_rate":0.767944936086529,"tool_calls":89227,"error_rate":null,"cost_usd":null,"run_cost_p95_usd":null,"cancel_rate":null,"run_p95_ms":244040.84221482597,"tool_call_p95_ms":5297.8637870813145,"quality_mean":7.5109352517985615,"tokens":10239487007,"files_skipped":0}
{"schema":"agentstat.history/v1","generated_at":"2026-01-02T00:00:00Z","runs":3,"success_rate":1,"tool_calls":4,"error_rate":0.25,"cost_usd":null,"run_cost_p95_usd":null,"cancel_rate":null,"run_p95_ms":null,"tool_call_p95_ms":null,"quality_mean":null,"tokens":0,"files_skipped":2}
`
	path := t.TempDir() + "/h.jsonl"
	extra := `{"schema":"agentstat.history/v1","generated_at":"x","runs":"many"}` + "\n" + `{"schema":"agentstat.history/v1","generated_at":"y","runs":1}` + "\n"
	if err := os.WriteFile(path, []byte(lines+extra), 0o644); err != nil {
		t.Fatal(err)
	}
	entries, skipped, err := ReadHistory(path)
	if err != nil || skipped != 1 || len(entries) != 3 {
		t.Fatalf("%d entries, %d skipped, %v", len(entries), skipped, err)
	}
	var b bytes.Buffer
	if err := WriteHistory(&b, entries[:2]); err != nil {
		t.Fatal(err)
	}
	if b.String() != lines {
		t.Errorf("written back as\n%s\nwant\n%s", b.String(), lines)
	}
	if v := entries[2].Value("tokens"); v == nil || *v != 0 {
		t.Errorf("a missing count reads as %v, want 0", v)
	}
	if v := entries[2].Value("success_rate"); v != nil {
		t.Errorf("a missing rate reads as %v, want no data", *v)
	}
	if !strings.Contains(b.String(), `"error_rate":null`) {
		t.Error("no data is not written as null")
	}
}

package metrics

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentstat/agentstat/pricing"
)

// A Claude Code session whose requests cross midnight, one of them above
// 200,000 prompt tokens, with 5-minute and 1-hour cache writes, a streamed
// copy of a message, a subagent message nested in a progress entry, a model
// no table prices, and a compaction.
const costSession = `{"type":"user","sessionId":"S","uuid":"u1","timestamp":"2026-01-01T23:50:00Z","message":{"role":"user","content":"price this"}}
{"type":"assistant","sessionId":"S","uuid":"a1","timestamp":"2026-01-01T23:50:05Z","requestId":"r1","message":{"id":"m1","model":"m-20250929","role":"assistant","content":[],"usage":{"input_tokens":1000,"output_tokens":500,"cache_read_input_tokens":20000,"cache_creation_input_tokens":4000,"cache_creation":{"ephemeral_5m_input_tokens":1000,"ephemeral_1h_input_tokens":3000}}}}
{"type":"assistant","sessionId":"S","uuid":"a1-copy","timestamp":"2026-01-01T23:50:06Z","requestId":"r1","message":{"id":"m1","model":"m-20250929","role":"assistant","content":[],"usage":{"input_tokens":1000,"output_tokens":100,"cache_read_input_tokens":20000,"cache_creation_input_tokens":4000,"cache_creation":{"ephemeral_5m_input_tokens":1000,"ephemeral_1h_input_tokens":3000}}}}
{"type":"assistant","sessionId":"S","uuid":"a2","timestamp":"2026-01-02T00:10:00Z","requestId":"r2","message":{"id":"m2","model":"anthropic/m","role":"assistant","content":[],"usage":{"input_tokens":10,"output_tokens":2000,"cache_read_input_tokens":250000,"cache_creation_input_tokens":1000,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":1000}}}}
{"type":"progress","sessionId":"S","uuid":"p1","timestamp":"2026-01-02T00:20:01Z","data":{"type":"agent_progress","agentId":"sub1","message":{"type":"assistant","uuid":"s1","timestamp":"2026-01-02T00:20:00Z","requestId":"r3","message":{"id":"m3","model":"mystery","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}],"usage":{"input_tokens":100,"output_tokens":100}}}}}
{"type":"system","subtype":"compact_boundary","sessionId":"S","uuid":"c1","timestamp":"2026-01-02T00:30:00Z"}
{"type":"assistant","sessionId":"S","uuid":"a4","timestamp":"2026-01-02T00:31:00Z","message":{"id":"m4","model":"<synthetic>","role":"assistant","content":[],"usage":{"input_tokens":9999,"output_tokens":9999}}}
`

// Prices per token of model m, and a long-context tier above 200,000.
const costPrices = `{"m": {"input_cost_per_token": 3e-6, "output_cost_per_token": 15e-6, "cache_read_input_token_cost": 0.3e-6,
  "cache_creation_input_token_cost": 3.75e-6, "cache_creation_input_token_cost_above_1hr": 6e-6,
  "input_cost_per_token_above_200k_tokens": 6e-6, "output_cost_per_token_above_200k_tokens": 22.5e-6,
  "cache_read_input_token_cost_above_200k_tokens": 0.6e-6, "cache_creation_input_token_cost_above_1hr_above_200k_tokens": 12e-6,
  "max_input_tokens": 1000000}}`

func TestCostByHand(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "S.jsonl"), []byte(costSession), 0o644); err != nil {
		t.Fatal(err)
	}
	prices, err := pricing.Builtin().With(strings.NewReader(costPrices), "test-prices.json")
	if err != nil {
		t.Fatal(err)
	}
	// The same tokens priced by hand: the largest copy of m1 below 200k, m2 above.
	m1 := 1000*3e-6 + 500*15e-6 + 20000*0.3e-6 + 1000*3.75e-6 + 3000*6e-6
	m2 := 10*6e-6 + 2000*22.5e-6 + 250000*0.6e-6 + 1000*12e-6
	near := func(what string, got *float64, want float64) {
		t.Helper()
		if got == nil || math.Abs(*got-want) > 1e-6 {
			t.Errorf("%s = %v, want %.6f", what, deref(got), want)
		}
	}

	r := reportOf(t, Settings{Prices: prices}, dir)
	s := &r.Summary
	near("cost", s.Cost.USD, m1+m2)
	if s.Cost.UnpricedTokens != 200 || s.Cost.UnpricedModels["mystery"] != 200 || s.Cost.Pricing.Source != "built-in, test-prices.json" {
		t.Errorf("cost = %+v", s.Cost)
	}
	if len(s.Models) != 3 || s.Models[0].Model != "anthropic/m" || s.Models[1].Model != "m-20250929" || s.Models[2].CostUSD != nil || s.Models[1].Tokens.Output != 500 {
		t.Fatalf("models = %+v", s.Models)
	}
	near("model m-20250929", s.Models[1].CostUSD, m1)
	near("run cost p50", s.Runs.CostUSD.P50, m1+m2)
	if len(s.Daily) != 2 {
		t.Fatalf("daily = %+v", s.Daily)
	}
	near("2026-01-01 cost", s.Daily[0].CostUSD, m1)
	near("2026-01-02 cost", s.Daily[1].CostUSD, m2)
	if s.Daily[0].Runs != 1 || s.Daily[1].Runs != 0 || s.Daily[1].TokensByKind.Input != 10+100 {
		t.Errorf("runs by their start, tokens by their request: %+v", s.Daily)
	}
	w := s.Context.Window
	near("peak share", w.PeakShare.Max, 251010.0/1e6)
	if w.Runs != 1 || *w.PeakTokens.Max != 251010 || w.Compactions.Sum != 1 || w.RunsOver90 != 0 {
		t.Errorf("window = %+v", w)
	}
	if sub := s.Context.Subagents; sub.Invocations != 1 || sub.Calls != 1 || sub.Tokens != 200 {
		t.Errorf("subagents = %+v", sub)
	}

	// In New York both requests fall on January 1st.
	ny, _ := time.LoadLocation("America/New_York")
	r = reportOf(t, Settings{Prices: prices, Location: ny}, dir)
	if d := r.Summary.Daily; len(d) != 1 || d[0].Date != "2026-01-01" {
		t.Fatalf("daily in New York = %+v", d)
	}
	near("2026-01-01 cost in New York", r.Summary.Daily[0].CostUSD, m1+m2)

	// Without the file, m is priced by no one: never at 0.
	r = reportOf(t, Settings{}, dir)
	if r.Summary.Cost.USD != nil || r.Summary.Cost.UnpricedTokens != r.Summary.Context.Tokens.Total {
		t.Errorf("unpriced: %+v", r.Summary.Cost)
	}
}

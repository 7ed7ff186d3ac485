package pricing

import (
	"math"
	"strings"
	"testing"

	"github.com/agentstat/agentstat/model"
)

const testTable = `{
  "sample_spec": {"input_cost_per_token": 1},
  "m": {"input_cost_per_token": 3e-6, "output_cost_per_token": 15e-6, "cache_read_input_token_cost": 0.3e-6,
        "cache_creation_input_token_cost": 3.75e-6, "cache_creation_input_token_cost_above_1hr": 6e-6,
        "input_cost_per_token_above_200k_tokens": 6e-6, "output_cost_per_token_above_200k_tokens": 22.5e-6,
        "cache_read_input_token_cost_above_200k_tokens": 0.6e-6, "cache_creation_input_token_cost_above_200k_tokens": 7.5e-6,
        "cache_creation_input_token_cost_above_1hr_above_200k_tokens": 12e-6,
        "max_input_tokens": 1000000, "litellm_provider": "test", "supports_vision": true},
  "no-hour": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6, "cache_creation_input_token_cost": 1.25e-6},
  "embedding": {"input_cost_per_token": 1e-7, "mode": "embedding"}
}`

func table(t *testing.T) *Table {
	t.Helper()
	tab, err := Builtin().With(strings.NewReader(testTable), "test.json")
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func TestLookup(t *testing.T) {
	tab := table(t)
	for name, want := range map[string]bool{
		"m": true, "anthropic/m": true, "m-20250929": true, "vertex_ai/m@20250929": true, "m-2025": false,
		"embedding": false, "sample_spec": false, "unknown": false, "": false,
		"claude-sonnet-4-5-20250929": true, "gpt-5.3-codex": true, "gemini/gemini-2.5-pro": true, "glm-4.7-flash": false,
	} {
		if _, ok := tab.Lookup(name); ok != want {
			t.Errorf("Lookup(%q) = %v, want %v", name, ok, want)
		}
	}
}

// Each cost worked out by hand from the prices above.
func TestCost(t *testing.T) {
	tab := table(t)
	m, _ := tab.Lookup("m")
	noHour, _ := tab.Lookup("no-hour")
	for _, c := range []struct {
		name     string
		p        *Price
		tokens   model.Tokens
		tier     int
		usd      float64
		fallback bool
	}{
		// 1000×3 + 500×15 + 20000×0.3 + 1000×3.75 (5-minute) + 3000×6 (1-hour), per million
		{"base", m, model.Tokens{Input: 1000, Output: 500, CacheRead: 20000, CacheCreation: 4000, CacheCreation1h: 3000}, 0, 0.03825, false},
		// 10×6 + 2000×22.5 + 250000×0.6 + 1000×12: every token at the long-context prices
		{"above 200k", m, model.Tokens{Input: 10, Output: 2000, CacheRead: 250000, CacheCreation: 1000, CacheCreation1h: 1000}, 1, 0.20706, false},
		// no 1-hour price: 2000 writes at the 5-minute 1.25, no cache-read price: 100 reads at input
		{"fallbacks", noHour, model.Tokens{Input: 100, CacheRead: 100, CacheCreation: 2000, CacheCreation1h: 2000}, 0, 0.0027, true},
	} {
		if tier := c.p.Tier(c.tokens.Prompt()); tier != c.tier {
			t.Errorf("%s: tier %d, want %d", c.name, tier, c.tier)
		}
		usd, fallback := c.p.Cost(c.tokens, c.tier)
		if math.Abs(usd-c.usd) > 1e-12 || fallback != c.fallback {
			t.Errorf("%s: $%.10f (fallback %v), want $%.10f (%v)", c.name, usd, fallback, c.usd, c.fallback)
		}
	}
	if m.Tier(200_000) != 0 || m.Tier(200_001) != 1 {
		t.Error("the long-context tier starts above 200,000 prompt tokens")
	}
}

// A file overrides the built-in table key by key and adds models.
func TestWith(t *testing.T) {
	base := Builtin()
	sonnet, _ := base.Lookup("claude-sonnet-4-5")
	tab, err := base.With(strings.NewReader(`{"claude-sonnet-4-5": {"output_cost_per_token": 1e-5}}`), "cheap.json")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := tab.Lookup("claude-sonnet-4-5-20250929")
	if got.Output != 1e-5 || got.Input != sonnet.Input || got.CacheWrite1h != sonnet.CacheWrite1h || len(got.Tiers) != 1 {
		t.Errorf("override: %+v, built-in %+v", got, sonnet)
	}
	if tab.Digest() == base.Digest() || tab.Source != "built-in, cheap.json" || base.Source != "built-in" {
		t.Errorf("digests %s %s, sources %q %q", tab.Digest(), base.Digest(), tab.Source, base.Source)
	}
	for _, bad := range []string{`[1]`, `{"m": {"input_cost_per_token": -1}}`, `{"m": {"output_cost_per_token": "0.1"}}`, `{"m": 5}`, `not json`} {
		if _, err := base.With(strings.NewReader(bad), "bad.json"); err == nil || !strings.Contains(err.Error(), "bad.json") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

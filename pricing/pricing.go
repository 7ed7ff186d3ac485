// Package pricing prices model tokens in USD from a table in LiteLLM's
// model_prices_and_context_window.json format: a built-in one for the models
// agentstat's readers meet, to which --pricing files add or override models
// key by key.
package pricing

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/agentstat/agentstat/model"
)

// BuiltinDate is the day the built-in prices were checked against the
// providers' price lists.
const BuiltinDate = "2026-11-27"

//go:embed prices.json
var builtinJSON []byte

// Table is a price list. It is immutable once built, so workers share it.
type Table struct {
	raw    map[string]map[string]float64 // model → LiteLLM key → value, as merged
	models map[string]*Price
	// Source names where the prices came from: "built-in" and any --pricing files.
	Source string
	Date   string // BuiltinDate
	digest string
}

// Price is one model's prices in USD per token.
type Price struct {
	Input, Output, CacheRead, CacheWrite float64
	CacheWrite1h                         float64 // 0: priced as a 5-minute write, with a price_fallback warning
	MaxInput                             int64   // the context window; 0 when unknown
	Tiers                                []Tier  // long-context prices, by rising threshold
	noCacheRead, noCacheWrite            bool    // priced as input, with a price_fallback warning
}

// Tier is the prices of a request whose prompt exceeds Above tokens; a zero
// price falls back to the model's base price for that kind.
type Tier struct {
	Above                                              int64
	Input, Output, CacheRead, CacheWrite, CacheWrite1h float64
}

// Builtin is the built-in table, parsed once.
var Builtin = sync.OnceValue(func() *Table {
	t, err := parse(bytes.NewReader(builtinJSON), nil)
	if err != nil {
		panic("pricing: built-in table: " + err.Error())
	}
	t.Source, t.Date = "built-in", BuiltinDate
	t.seal()
	return t
})

// With returns a table of t's models with those of the LiteLLM-format JSON
// read from r added, and each of its keys overriding t's: a file can change
// one price of a built-in model and keep the rest.
func (t *Table) With(r io.Reader, name string) (*Table, error) {
	n, err := parse(r, t.raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	n.Source, n.Date = t.Source+", "+name, t.Date
	n.seal()
	return n, nil
}

// parse reads a LiteLLM table over a copy of base. Keys that are not numbers
// (provider, mode, supports_*) are ignored; sample_spec is no model.
func parse(r io.Reader, base map[string]map[string]float64) (*Table, error) {
	var in map[string]map[string]any
	dec := json.NewDecoder(r)
	dec.UseNumber()
	if err := dec.Decode(&in); err != nil {
		return nil, fmt.Errorf("not a LiteLLM price table: %w", err)
	}
	raw := map[string]map[string]float64{}
	for m, keys := range base {
		raw[m] = maps.Clone(keys)
	}
	for m, keys := range in {
		if m == "sample_spec" {
			continue
		}
		if raw[m] == nil {
			raw[m] = map[string]float64{}
		}
		for k, v := range keys {
			n, ok := v.(json.Number)
			if !ok {
				if strings.Contains(k, "_cost") && v != nil {
					return nil, fmt.Errorf("%s: %s: not a price: %v", m, k, v)
				}
				continue // provider, mode, supports_*
			}
			f, err := n.Float64()
			if err != nil || f < 0 {
				return nil, fmt.Errorf("%s: %s: not a price: %s", m, k, n)
			}
			raw[m][k] = f
		}
	}
	return &Table{raw: raw}, nil
}

// tierKey is a long-context price: a base key and a threshold in thousands of tokens.
var tierKey = regexp.MustCompile(`^(input_cost_per_token|output_cost_per_token|cache_read_input_token_cost|cache_creation_input_token_cost|cache_creation_input_token_cost_above_1hr)_above_(\d+)k_tokens$`)

// seal compiles the raw keys into prices and digests the table.
func (t *Table) seal() {
	t.models = map[string]*Price{}
	h := sha256.New()
	for _, m := range slices.Sorted(maps.Keys(t.raw)) {
		keys := t.raw[m]
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			fmt.Fprintf(h, "%q %q %s\n", m, k, strconv.FormatFloat(keys[k], 'g', -1, 64))
		}
		in, okIn := keys["input_cost_per_token"]
		out, okOut := keys["output_cost_per_token"]
		if !okIn || !okOut {
			continue // not a model priced by the token
		}
		p := &Price{Input: in, Output: out, MaxInput: int64(keys["max_input_tokens"])}
		p.CacheRead, p.noCacheRead = priceOr(keys, "cache_read_input_token_cost", in)
		p.CacheWrite, p.noCacheWrite = priceOr(keys, "cache_creation_input_token_cost", in)
		p.CacheWrite1h = keys["cache_creation_input_token_cost_above_1hr"]
		tiers := map[int64]*Tier{}
		for k, v := range keys {
			sub := tierKey.FindStringSubmatch(k)
			if sub == nil {
				continue
			}
			th, _ := strconv.ParseInt(sub[2], 10, 64)
			tr := tiers[th*1000]
			if tr == nil {
				tr = &Tier{Above: th * 1000}
				tiers[th*1000] = tr
			}
			switch sub[1] {
			case "input_cost_per_token":
				tr.Input = v
			case "output_cost_per_token":
				tr.Output = v
			case "cache_read_input_token_cost":
				tr.CacheRead = v
			case "cache_creation_input_token_cost":
				tr.CacheWrite = v
			default:
				tr.CacheWrite1h = v
			}
		}
		for _, th := range slices.Sorted(maps.Keys(tiers)) {
			p.Tiers = append(p.Tiers, *tiers[th])
		}
		t.models[m] = p
	}
	t.digest = hex.EncodeToString(h.Sum(nil))
}

func priceOr(keys map[string]float64, k string, or float64) (float64, bool) {
	if v, ok := keys[k]; ok {
		return v, false
	}
	return or, true
}

// Digest identifies the table's content: partials merge only when priced alike.
func (t *Table) Digest() string { return t.digest }

// Models is how many models the table prices.
func (t *Table) Models() int { return len(t.models) }

// undated is name without a trailing date (-20250929 or @20250929).
func undated(name string) (string, bool) {
	n := len(name) - 9
	if n < 1 || name[n] != '-' && name[n] != '@' {
		return name, false
	}
	for _, c := range name[n+1:] {
		if c < '0' || c > '9' {
			return name, false
		}
	}
	return name[:n], true
}

// Lookup finds a model's price by its exact name, then without a provider
// prefix (anthropic/, openai/, gemini/, vertex_ai/…), then without a
// trailing date; ok is false for a model the table does not price, and for
// a request that names no model.
func (t *Table) Lookup(name string) (p *Price, ok bool) {
	if name == "" {
		return nil, false
	}
	if p, ok = t.models[name]; ok {
		return p, true
	}
	bare := name
	if i := strings.LastIndexByte(bare, '/'); i >= 0 {
		bare = bare[i+1:]
		if p, ok = t.models[bare]; ok {
			return p, true
		}
	}
	if base, ok := undated(bare); ok {
		p, ok = t.models[base]
		return p, ok
	}
	return nil, false
}

// Cost is what one request of tokens to the named model cost; ok is false
// when the table does not price the model.
func (t *Table) Cost(name string, tokens model.Tokens) (usd float64, ok bool) {
	p, ok := t.Lookup(name)
	if !ok {
		return 0, false
	}
	usd, _ = p.Cost(tokens, p.Tier(tokens.Prompt()))
	return usd, true
}

// Tier is the index+1 of the long-context tier a request of this prompt
// size is priced at, 0 for the base prices.
func (p *Price) Tier(prompt int64) int {
	tier := 0
	for i, tr := range p.Tiers {
		if prompt > tr.Above {
			tier = i + 1
		}
	}
	return tier
}

// Cost is the price in USD of tokens billed at tier (Price.Tier); fallback is
// set when a kind with tokens had no price of its own.
func (p *Price) Cost(t model.Tokens, tier int) (usd float64, fallback bool) {
	in, out, read, write, write1h := p.Input, p.Output, p.CacheRead, p.CacheWrite, p.CacheWrite1h
	if write1h == 0 {
		write1h = write
		fallback = t.CacheCreation1h > 0
	}
	if tier > 0 {
		tr := p.Tiers[tier-1]
		in, out, read = or(tr.Input, in), or(tr.Output, out), or(tr.CacheRead, read)
		write = or(tr.CacheWrite, write)
		if tr.CacheWrite1h > 0 {
			write1h = tr.CacheWrite1h
		} else if p.CacheWrite1h == 0 {
			write1h = write
		}
	}
	fallback = fallback || p.noCacheRead && t.CacheRead > 0 || p.noCacheWrite && t.CacheCreation > 0
	write5m := t.CacheCreation - t.CacheCreation1h
	usd = float64(t.Input)*in + float64(t.Output)*out + float64(t.CacheRead)*read +
		float64(write5m)*write + float64(t.CacheCreation1h)*write1h
	return usd, fallback
}

func or(v, fallback float64) float64 {
	if v > 0 {
		return v
	}
	return fallback
}

package metrics

import (
	"cmp"
	"maps"
	"math"
	"slices"

	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/agentstat/agentstat/model"
	"github.com/agentstat/agentstat/pricing"
)

// usageKey is one model's tokens billed at one price tier (pricing.Price.Tier).
type usageKey struct {
	Model string
	Tier  int8
}

// usage is token use by model and price tier. Cost is computed from it only
// when the report is made: integer counts add up the same in any order, so
// merged partials price to the same bytes as a single pass.
type usage map[usageKey]model.Tokens

func (u *usage) add(k usageKey, t model.Tokens) {
	if *u == nil {
		*u = usage{}
	}
	v := (*u)[k]
	v.Add(t)
	(*u)[k] = v
}

// byModel is u split by model.
func (u usage) byModel() map[string]usage {
	by := map[string]usage{}
	for k, t := range u {
		m := by[k.Model]
		m.add(k, t)
		by[k.Model] = m
	}
	return by
}

// usageKey is the model and price tier q is billed at.
func (a *Accumulator) usageKey(q model.Request) usageKey {
	k := usageKey{Model: q.Model}
	if p, ok := a.prices.Lookup(q.Model); ok {
		k.Tier = int8(p.Tier(q.Tokens.Prompt()))
	}
	return k
}

// costOf prices u with prices: the cost of the priced tokens, whether any
// were priced, and the tokens of each model the table does not price.
func costOf(u usage, prices *pricing.Table) (usd float64, priced bool, unpriced map[string]int64) {
	keys := slices.SortedFunc(maps.Keys(u), func(a, b usageKey) int {
		return cmp.Or(cmp.Compare(a.Model, b.Model), cmp.Compare(a.Tier, b.Tier))
	})
	for _, k := range keys {
		t := u[k]
		p, ok := prices.Lookup(k.Model)
		if !ok {
			if unpriced == nil {
				unpriced = map[string]int64{}
			}
			unpriced[orUnspecified(k.Model)] += t.Total()
			continue
		}
		c, _ := p.Cost(t, int(k.Tier))
		usd += c
		priced = true
	}
	return RoundUSD(usd), priced, unpriced
}

// RoundUSD drops the float noise of a sum of products (0.0024000000000000002)
// at a ten-thousandth of a millionth of a dollar.
func RoundUSD(usd float64) float64 { return math.Round(usd*1e10) / 1e10 }

// RunCost is what r's requests cost at prices, as reports show it; nil when
// none of them was priced.
func RunCost(prices *pricing.Table, r *model.Run) *float64 { return RequestsCost(prices, r.Requests) }

// RequestsCost is what requests cost at prices, as reports show it (a run's,
// a subagent's); nil when none of them was priced.
func RequestsCost(prices *pricing.Table, requests []model.Request) *float64 {
	var usd float64
	priced := false
	for _, q := range requests {
		if c, ok := prices.Cost(q.Model, q.Tokens); ok {
			usd, priced = usd+c, true
		}
	}
	if !priced {
		return nil
	}
	return ptr(RoundUSD(usd))
}

// windowAcc is context-window use: each run's largest prompt, its share of
// the model's window, and how often the run was compacted.
type windowAcc struct {
	Runs, Over90 int64
	Peak, Share  Dist
	Compactions  Dist
}

// addUsage folds r's requests: tokens by model, by the day each request was
// made (the run's day when it does not say) and by price tier; the run's
// cost (priced is false when no request of it was); its context-window use.
func (a *Accumulator) addUsage(r *model.Run, f *groupAcc, proj *groupAcc, runDay *dayAcc) (cost float64, priced bool) {
	if runDay != nil {
		runDay.Tokens.Unspecified += r.Tokens.Unspecified
	}
	var agent *agentAcc
	if r.Agent != "" {
		agent = getOrNew(a.Agents, r.Agent)
	}
	var models []string // the models of this run, each once
	var peak int64
	share := -1.0
	for i := range r.Requests {
		q := &r.Requests[i]
		p, known := a.prices.Lookup(q.Model)
		prompt := q.Tokens.Prompt()
		k := usageKey{Model: q.Model}
		if known {
			k.Tier = int8(p.Tier(prompt))
			c, fallback := p.Cost(q.Tokens, int(k.Tier))
			cost, priced = cost+c, true
			if fallback {
				a.warnIn(reader.WarnPriceFallback, r.Source)
			}
		}
		a.Usage.add(k, q.Tokens)
		f.Usage.add(k, q.Tokens)
		proj.Usage.add(k, q.Tokens)
		if agent != nil {
			agent.Usage.add(k, q.Tokens)
		}
		day := runDay
		if !q.At.IsZero() {
			day = a.dayAcc(a.day(q.At))
		}
		if day != nil {
			day.Tokens.Add(q.Tokens)
			day.Usage.add(k, q.Tokens)
		}
		if q.Model != "" {
			m := getOrNew(a.Models, q.Model)
			m.Requests++
			m.Tokens.Add(q.Tokens)
			if !slices.Contains(models, q.Model) {
				models = append(models, q.Model)
				m.Runs++
			}
		}
		if prompt > peak {
			peak, share = prompt, -1
			if known && p.MaxInput > 0 {
				share = float64(prompt) / float64(p.MaxInput)
			}
		}
	}
	if len(r.Requests) > 0 {
		w := &a.Window
		w.Runs++
		w.Peak.Add(float64(peak))
		if share >= 0 {
			w.Share.Add(share)
			if share >= 0.9 {
				w.Over90++
			}
		}
		w.Compactions.Add(float64(r.Context.Compactions))
	}
	if priced {
		cost = RoundUSD(cost)
		a.RunCost.Add(cost)
	}
	return cost, priced
}

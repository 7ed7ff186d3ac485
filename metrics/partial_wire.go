package metrics

import (
	"bytes"
	"cmp"
	"encoding/gob"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/DataDog/sketches-go/ddsketch"
	"github.com/DataDog/sketches-go/ddsketch/mapping"
	"github.com/DataDog/sketches-go/ddsketch/store"
	"github.com/agentstat/agentstat/model"
	"github.com/agentstat/agentstat/pricing"
)

// The accumulator's state to and from its partial file form.

// gobMap is a map that gob writes in key order: gob writes a plain map in
// Go's random iteration order, so the same state would not be the same bytes.
type gobMap[K cmp.Ordered, V any] map[K]V

func (m gobMap[K, V]) GobEncode() ([]byte, error) {
	keys := slices.Sorted(maps.Keys(m))
	vals := make([]V, len(keys))
	for i, k := range keys {
		vals[i] = m[k]
	}
	return encodePairs(keys, vals)
}

func (m *gobMap[K, V]) GobDecode(b []byte) error {
	keys, vals, err := decodePairs[K, V](b)
	*m = make(gobMap[K, V], len(keys))
	for i, k := range keys {
		(*m)[k] = vals[i]
	}
	return err
}

// GobEncode writes token use in the order of its keys, as gobMap does.
func (u usage) GobEncode() ([]byte, error) {
	keys := slices.SortedFunc(maps.Keys(u), func(a, b usageKey) int {
		return cmp.Or(strings.Compare(a.Model, b.Model), cmp.Compare(a.Tier, b.Tier))
	})
	vals := make([]model.Tokens, len(keys))
	for i, k := range keys {
		vals[i] = u[k]
	}
	return encodePairs(keys, vals)
}

func (u *usage) GobDecode(b []byte) error {
	keys, vals, err := decodePairs[usageKey, model.Tokens](b)
	*u = make(usage, len(keys))
	for i, k := range keys {
		(*u)[k] = vals[i]
	}
	return err
}

func encodePairs[K, V any](keys []K, vals []V) ([]byte, error) {
	var b bytes.Buffer
	enc := gob.NewEncoder(&b)
	err := errors.Join(enc.Encode(keys), enc.Encode(vals))
	return b.Bytes(), err
}

func decodePairs[K, V any](b []byte) (keys []K, vals []V, err error) {
	dec := gob.NewDecoder(bytes.NewReader(b))
	if err := errors.Join(dec.Decode(&keys), dec.Decode(&vals)); err != nil {
		return nil, nil, err
	}
	if len(keys) != len(vals) {
		return nil, nil, fmt.Errorf("%d keys for %d values", len(keys), len(vals))
	}
	return keys, vals, nil
}

func (d *Dist) wire() distWire {
	// Exact values come in the order workers read their files; no figure depends on it.
	w := distWire{N: d.n, SumHi: d.sumHi, SumLo: d.sumLo, Min: d.min, Max: d.max, Exact: slices.Sorted(slices.Values(d.exact))}
	if d.sketch != nil {
		d.sketch.Encode(&w.Sketch, true)
	}
	return w
}

func distFromWire(w distWire) (Dist, error) {
	d := Dist{n: w.N, sumHi: w.SumHi, sumLo: w.SumLo, min: w.Min, max: w.Max, exact: w.Exact}
	switch {
	case w.Sketch != nil:
		m, err := mapping.NewLogarithmicMapping(sketchAccuracy)
		if err != nil {
			return d, err
		}
		if d.sketch, err = ddsketch.DecodeDDSketch(w.Sketch, store.DenseStoreConstructor, m); err != nil {
			return d, err
		}
		if got := int64(d.sketch.GetCount() + 0.5); got != d.n || len(d.exact) > 0 {
			return d, fmt.Errorf("a sketch of %d values for a count of %d", got, d.n)
		}
	case int64(len(w.Exact)) != w.N:
		return d, fmt.Errorf("%d exact values for a count of %d", len(w.Exact), w.N)
	}
	return d, nil
}

func (g callGroup) wire() callWire      { return callWire{g.calls, g.known, g.errors, g.cancelled} }
func callFromWire(w callWire) callGroup { return callGroup{w.Calls, w.Known, w.Errors, w.Cancelled} }

func (g *qualityGroup) wire() qualityWire {
	return qualityWire{Scores: g.scores.wire(), ValidTrue: g.validTrue, ValidAll: g.validAll}
}

func qualityFromWire(w qualityWire) (*qualityGroup, error) {
	d, err := distFromWire(w.Scores)
	return &qualityGroup{scores: d, validTrue: w.ValidTrue, validAll: w.ValidAll}, err
}

func (a *Accumulator) wire() (*partialState, error) {
	s := &partialState{
		FilesSeen: a.filesSeen, FilesParsed: a.filesParsed, FilesFiltered: a.filesFiltered, RunsFiltered: a.runsFiltered,
		FilesByFormat: a.filesByFormat, Skipped: sortedSkipped(a.skipped), Warnings: a.warnings, WarnFiles: a.warnFiles,
		Runs: a.runs, RunsByStatus: a.runsByStatus, RunDur: a.runDur.wire(), Steps: a.steps, StepsBy: a.stepsBy,
		Calls: a.calls.wire(), CallDur: a.callDur.wire(),
		Tools: map[string]toolWire{}, Agents: map[string]agentWire{}, Formats: map[string]groupWire{},
		Models: map[string]modelWire{}, Days: map[string]dayWire{}, Projects: map[string]groupWire{},
		Quality: a.quality.qualityGroup.wire(), QualityBins: a.quality.bins,
		ByPhase: map[string]qualityWire{}, ByTool: map[string]qualityWire{},
		Tokens: a.tokens, TokensPerRun: a.tokensPerRun.wire(), Usage: a.usage, RunCost: a.runCost.wire(),
		Window:     windowWire{Runs: a.window.runs, Over90: a.window.over90, Peak: a.window.peak.wire(), Share: a.window.share.wire(), Compactions: a.window.compactions.wire()},
		RefsByType: a.refsByType, RefsByRel: a.refsByRel, RefsByUsage: a.refsByUsage, Contribs: a.contribs,
		Subagents: a.subagents, SubagentTypes: a.subagents.ByType, SubUsage: a.subUsage,
		BudgetTool: a.budgetTool.wire(), BudgetDur: a.budgetDur.wire(), BudgetStep: a.budgetStep.wire(),
		BudgetWarn: a.budgetWarn, BudgetExceed: a.budgetExceed, Retries: a.retries,
		Errors: map[string]errorWire{}, Index: a.RunIndex().Rows(), IDs: slices.SortedFunc(slices.Values(a.ids), func(x, y runID) int { return bytes.Compare(x[:], y[:]) }),
		RunHist: a.runHist[:], CallHist: a.callHist[:], Redacted: a.redacted,
	}
	s.Subagents.ByType = nil
	for k, v := range a.tools {
		w := toolWire{Calls: v.callGroup.wire(), Dur: v.dur.wire(), Categories: v.categories, Hist: v.hist[:], Days: map[string]callWire{}}
		for d, g := range v.days {
			w.Days[d] = g.wire()
		}
		s.Tools[k] = w
	}
	for k, v := range a.agents {
		s.Agents[k] = agentWire{Runs: v.runs, Calls: v.callGroup.wire(), Usage: v.usage}
	}
	for _, g := range [...]struct {
		from map[string]*groupAcc
		to   map[string]groupWire
	}{{a.formats, s.Formats}, {a.projects, s.Projects}} {
		for k, v := range g.from {
			g.to[k] = groupWire{Runs: v.runs, Success: v.success, Decided: v.decided, Calls: v.callGroup.wire(), Tokens: v.tokens, Usage: v.usage}
		}
	}
	for k, v := range a.models {
		s.Models[k] = modelWire{Runs: v.runs, Requests: v.requests, Tokens: v.tokens}
	}
	for k, v := range a.days {
		s.Days[k] = dayWire{Runs: v.runs, Success: v.success, Decided: v.decided, ByStatus: v.byStatus, Calls: v.callGroup.wire(), Dur: v.dur.wire(), Tokens: v.tokens, Usage: v.usage}
	}
	for k, v := range a.quality.byPhase {
		s.ByPhase[k] = v.wire()
	}
	for k, v := range a.quality.byTool {
		s.ByTool[k] = v.wire()
	}
	for k, v := range a.errors {
		s.Errors[k] = errorWire{Count: v.count, Tools: v.tools, ExSource: v.exSource, ExRunID: v.exRunID}
	}
	return s, nil
}

// fromWire rebuilds an accumulator; gob leaves empty maps nil, so every map
// is made again before anything is merged into it.
func fromWire(s *partialState, prices *pricing.Table) (*Accumulator, error) {
	a := NewAccumulator(Settings{Location: time.UTC, Prices: prices})
	var errs []error
	dist := func(w distWire) Dist {
		d, err := distFromWire(w)
		errs = append(errs, err)
		return d
	}
	a.filesSeen, a.filesParsed, a.filesFiltered, a.runsFiltered = s.FilesSeen, s.FilesParsed, s.FilesFiltered, s.RunsFiltered
	addCounts(a.filesByFormat, s.FilesByFormat)
	a.skipped = s.Skipped
	addCounts(a.warnings, s.Warnings)
	addFirst(a.warnFiles, s.WarnFiles)
	a.runs = s.Runs
	addCounts(a.runsByStatus, s.RunsByStatus)
	a.runDur = dist(s.RunDur)
	a.steps = s.Steps
	addCounts(a.stepsBy, s.StepsBy)
	a.calls, a.callDur = callFromWire(s.Calls), dist(s.CallDur)
	for k, v := range s.Tools {
		t := &toolAcc{callGroup: callFromWire(v.Calls), dur: dist(v.Dur)}
		t.addCategories(v.Categories)
		copy(t.hist[:], v.Hist)
		for d, g := range v.Days {
			g := callFromWire(g)
			t.day(d).merge(g)
		}
		a.tools[k] = t
	}
	for k, v := range s.Agents {
		a.agents[k] = &agentAcc{runs: v.Runs, callGroup: callFromWire(v.Calls), usage: v.Usage}
	}
	for k, v := range s.Formats {
		a.formats[k] = v.acc()
	}
	for k, v := range s.Projects {
		a.projects[k] = v.acc()
	}
	for k, v := range s.Models {
		a.models[k] = &modelAcc{runs: v.Runs, requests: v.Requests, tokens: v.Tokens}
	}
	for k, v := range s.Days {
		d := a.dayAcc(k)
		d.runs, d.success, d.decided = v.Runs, v.Success, v.Decided
		addCounts(d.byStatus, v.ByStatus)
		d.callGroup, d.dur, d.tokens, d.usage = callFromWire(v.Calls), dist(v.Dur), v.Tokens, v.Usage
	}
	q, err := qualityFromWire(s.Quality)
	errs = append(errs, err)
	a.quality.qualityGroup, a.quality.bins = *q, s.QualityBins
	for k, v := range s.ByPhase {
		a.quality.byPhase[k], err = qualityFromWire(v)
		errs = append(errs, err)
	}
	for k, v := range s.ByTool {
		a.quality.byTool[k], err = qualityFromWire(v)
		errs = append(errs, err)
	}
	a.tokens, a.tokensPerRun = s.Tokens, dist(s.TokensPerRun)
	a.usage, a.runCost = s.Usage, dist(s.RunCost)
	a.window = windowAcc{runs: s.Window.Runs, over90: s.Window.Over90, peak: dist(s.Window.Peak), share: dist(s.Window.Share), compactions: dist(s.Window.Compactions)}
	addCounts(a.refsByType, s.RefsByType)
	addCounts(a.refsByRel, s.RefsByRel)
	addCounts(a.refsByUsage, s.RefsByUsage)
	addCounts(a.contribs, s.Contribs)
	a.subagents, a.subUsage = s.Subagents, s.SubUsage
	a.subagents.CostUSD = nil // figured when the report is made
	a.subagents.ByType = map[string]int64{}
	addCounts(a.subagents.ByType, s.SubagentTypes)
	a.budgetTool, a.budgetDur, a.budgetStep = dist(s.BudgetTool), dist(s.BudgetDur), dist(s.BudgetStep)
	a.budgetWarn, a.budgetExceed, a.retries = s.BudgetWarn, s.BudgetExceed, s.Retries
	for k, v := range s.Errors {
		e := &errorAcc{count: v.Count, tools: map[string]int64{}, exSource: v.ExSource, exRunID: v.ExRunID}
		addCounts(e.tools, v.Tools)
		a.errors[k] = e
	}
	for i := range s.Index {
		a.index.add(&s.Index[i])
	}
	a.ids = append(a.ids, s.IDs...)
	if len(s.RunHist) != len(a.runHist) || len(s.CallHist) != len(a.callHist) {
		errs = append(errs, fmt.Errorf("histograms of %d and %d bins, want %d", len(s.RunHist), len(s.CallHist), len(a.runHist)))
	} else {
		copy(a.runHist[:], s.RunHist)
		copy(a.callHist[:], s.CallHist)
	}
	a.redacted = s.Redacted
	if int64(a.index.Len()) != a.runs {
		errs = append(errs, fmt.Errorf("%d runs indexed for a count of %d", a.index.Len(), a.runs))
	}
	return a, errors.Join(errs...)
}

// sortedSkipped is the skipped files in path order, as workers hand them over in any.
func sortedSkipped(files []SkippedFile) []SkippedFile {
	return slices.SortedFunc(slices.Values(files), func(x, y SkippedFile) int {
		return cmp.Or(strings.Compare(x.Path, y.Path), strings.Compare(x.Reason, y.Reason), strings.Compare(x.Detail, y.Detail))
	})
}

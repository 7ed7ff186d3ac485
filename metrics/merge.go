package metrics

// Merge adds everything o holds to a.
func (a *Accumulator) Merge(o *Accumulator) {
	a.redacted += o.redacted
	a.filesSeen += o.filesSeen
	a.filesParsed += o.filesParsed
	a.filesFiltered += o.filesFiltered
	a.runsFiltered += o.runsFiltered
	addCounts(a.filesByFormat, o.filesByFormat)
	a.skipped = append(a.skipped, o.skipped...)
	addCounts(a.warnings, o.warnings)
	addFirst(a.warnFiles, o.warnFiles)
	a.runs += o.runs
	addCounts(a.runsByStatus, o.runsByStatus)
	a.runDur.Merge(&o.runDur)
	a.steps += o.steps
	addCounts(a.stepsBy, o.stepsBy)
	a.calls.merge(o.calls)
	a.callDur.Merge(&o.callDur)
	for k, v := range o.tools {
		t := a.tools[k]
		if t == nil {
			t = &toolAcc{}
			a.tools[k] = t
		}
		t.callGroup.merge(v.callGroup)
		t.dur.Merge(&v.dur)
		for i, n := range v.hist {
			t.hist[i] += n
		}
		for d, g := range v.days {
			t.day(d).merge(*g)
		}
		t.addCategories(v.categories)
	}
	for k, v := range o.agents {
		t := getOrNew(a.agents, k)
		t.runs += v.runs
		t.callGroup.merge(v.callGroup)
		t.usage.merge(v.usage)
	}
	for _, g := range [...][2]map[string]*groupAcc{{a.formats, o.formats}, {a.projects, o.projects}} {
		for k, v := range g[1] {
			getOrNew(g[0], k).merge(v)
		}
	}
	for k, v := range o.models {
		t := getOrNew(a.models, k)
		t.runs += v.runs
		t.requests += v.requests
		t.tokens.Add(v.tokens)
	}
	for k, v := range o.days {
		t := a.dayAcc(k)
		t.runs += v.runs
		t.success += v.success
		t.decided += v.decided
		addCounts(t.byStatus, v.byStatus)
		t.callGroup.merge(v.callGroup)
		t.dur.Merge(&v.dur)
		t.tokens.Add(v.tokens)
		t.usage.merge(v.usage)
	}
	a.quality.qualityGroup.merge(&o.quality.qualityGroup)
	for i, n := range o.quality.bins {
		a.quality.bins[i] += n
	}
	for k, v := range o.quality.byPhase {
		getOrNew(a.quality.byPhase, k).merge(v)
	}
	for k, v := range o.quality.byTool {
		getOrNew(a.quality.byTool, k).merge(v)
	}
	a.tokens.Add(o.tokens)
	a.tokensPerRun.Merge(&o.tokensPerRun)
	a.usage.merge(o.usage)
	a.runCost.Merge(&o.runCost)
	a.window.merge(&o.window)
	addCounts(a.refsByType, o.refsByType)
	addCounts(a.refsByRel, o.refsByRel)
	addCounts(a.refsByUsage, o.refsByUsage)
	addCounts(a.contribs, o.contribs)
	a.subagents.Invocations += o.subagents.Invocations
	a.subagents.Calls += o.subagents.Calls
	a.subagents.Tokens += o.subagents.Tokens
	a.subagents.Requests += o.subagents.Requests
	a.subUsage.merge(o.subUsage)
	addCounts(a.subagents.ByType, o.subagents.ByType)
	a.budgetTool.Merge(&o.budgetTool)
	a.budgetDur.Merge(&o.budgetDur)
	a.budgetStep.Merge(&o.budgetStep)
	a.budgetWarn += o.budgetWarn
	a.budgetExceed += o.budgetExceed
	a.retries += o.retries
	for k, v := range o.errors {
		e := a.errors[k]
		if e == nil {
			e = &errorAcc{tools: map[string]int64{}, exSource: v.exSource, exRunID: v.exRunID}
			a.errors[k] = e
		}
		e.count += v.count
		addCounts(e.tools, v.tools)
		e.example(v.exSource, v.exRunID)
	}
	a.index.merge(&o.index)
	a.ids = append(a.ids, o.ids...)
	for i := range a.runHist {
		a.runHist[i] += o.runHist[i]
		a.callHist[i] += o.callHist[i]
	}
}

func addCounts[K comparable](dst, src map[K]int64) {
	for k, v := range src {
		dst[k] += v
	}
}

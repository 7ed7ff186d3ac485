package metrics

// Merge adds everything o holds to a.
func (a *Accumulator) Merge(o *Accumulator) {
	a.Redacted += o.Redacted
	a.FilesSeen += o.FilesSeen
	a.FilesParsed += o.FilesParsed
	a.FilesFiltered += o.FilesFiltered
	a.RunsFiltered += o.RunsFiltered
	addCounts(a.FilesByFormat, o.FilesByFormat)
	a.Skipped = append(a.Skipped, o.Skipped...)
	addCounts(a.Warnings, o.Warnings)
	addFirst(a.WarnFiles, o.WarnFiles)
	a.Runs += o.Runs
	addCounts(a.RunsByStatus, o.RunsByStatus)
	a.RunDur.Merge(&o.RunDur)
	a.Steps += o.Steps
	addCounts(a.StepsBy, o.StepsBy)
	a.Calls.merge(o.Calls)
	a.CallDur.Merge(&o.CallDur)
	for k, v := range o.Tools {
		t := a.Tools[k]
		if t == nil {
			t = &toolAcc{}
			a.Tools[k] = t
		}
		t.CallCounts.merge(v.CallCounts)
		t.Dur.Merge(&v.Dur)
		for i, n := range v.Hist {
			t.Hist[i] += n
		}
		for d, g := range v.Days {
			t.day(d).merge(*g)
		}
		t.addCategories(v.Categories)
	}
	for k, v := range o.Agents {
		t := getOrNew(a.Agents, k)
		t.Runs += v.Runs
		t.CallCounts.merge(v.CallCounts)
		t.Usage.merge(v.Usage)
	}
	for _, g := range [...][2]map[string]*groupAcc{{a.Formats, o.Formats}, {a.Projects, o.Projects}} {
		for k, v := range g[1] {
			getOrNew(g[0], k).merge(v)
		}
	}
	for k, v := range o.Models {
		t := getOrNew(a.Models, k)
		t.Runs += v.Runs
		t.Requests += v.Requests
		t.Tokens.Add(v.Tokens)
	}
	for k, v := range o.Days {
		t := a.dayAcc(k)
		t.Runs += v.Runs
		t.Success += v.Success
		t.Decided += v.Decided
		addCounts(t.ByStatus, v.ByStatus)
		t.CallCounts.merge(v.CallCounts)
		t.Dur.Merge(&v.Dur)
		t.Tokens.Add(v.Tokens)
		t.Usage.merge(v.Usage)
	}
	a.Quality.QualityScores.merge(&o.Quality.QualityScores)
	for i, n := range o.Quality.Bins {
		a.Quality.Bins[i] += n
	}
	for k, v := range o.Quality.ByPhase {
		getOrNew(a.Quality.ByPhase, k).merge(v)
	}
	for k, v := range o.Quality.ByTool {
		getOrNew(a.Quality.ByTool, k).merge(v)
	}
	a.Tokens.Add(o.Tokens)
	a.TokensPerRun.Merge(&o.TokensPerRun)
	a.Usage.merge(o.Usage)
	a.RunCost.Merge(&o.RunCost)
	a.Window.merge(&o.Window)
	addCounts(a.RefsByType, o.RefsByType)
	addCounts(a.RefsByRel, o.RefsByRel)
	addCounts(a.RefsByUsage, o.RefsByUsage)
	addCounts(a.Contribs, o.Contribs)
	a.Subagents.Invocations += o.Subagents.Invocations
	a.Subagents.Calls += o.Subagents.Calls
	a.Subagents.Tokens += o.Subagents.Tokens
	a.Subagents.Requests += o.Subagents.Requests
	a.SubUsage.merge(o.SubUsage)
	addCounts(a.Subagents.ByType, o.Subagents.ByType)
	a.BudgetTool.Merge(&o.BudgetTool)
	a.BudgetDur.Merge(&o.BudgetDur)
	a.BudgetStep.Merge(&o.BudgetStep)
	a.BudgetWarn += o.BudgetWarn
	a.BudgetExceed += o.BudgetExceed
	a.Retries += o.Retries
	for k, v := range o.Errors {
		e := a.Errors[k]
		if e == nil {
			e = &errorAcc{Tools: map[string]int64{}, ExSource: v.ExSource, ExRunID: v.ExRunID}
			a.Errors[k] = e
		}
		e.Count += v.Count
		addCounts(e.Tools, v.Tools)
		e.example(v.ExSource, v.ExRunID)
	}
	a.Index.merge(&o.Index)
	a.IDs = append(a.IDs, o.IDs...)
	for i := range a.RunHist {
		a.RunHist[i] += o.RunHist[i]
		a.CallHist[i] += o.CallHist[i]
	}
}

func addCounts[K comparable](dst, src map[K]int64) {
	for k, v := range src {
		dst[k] += v
	}
}

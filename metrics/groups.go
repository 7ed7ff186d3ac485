package metrics

import "github.com/agentstat/agentstat/model"

// What the accumulator keeps per tool, agent, format or project, model, day
// and evaluation group, and how each adds (merge.go merges them all by one
// rule).

// CallCounts counts calls by outcome; known counts the ok and the failed,
// the error rate's denominator.
type CallCounts struct{ Calls, Known, Errors, Cancelled int64 }

func (g *CallCounts) add(o model.Outcome) {
	g.Calls++
	switch o {
	case model.OutcomeOK:
		g.Known++
	case model.OutcomeError:
		g.Known++
		g.Errors++
	case model.OutcomeCancelled:
		g.Cancelled++
	}
}

type toolAcc struct {
	CallCounts
	Dur        Dist
	Hist       [len(HistogramEdgesMS) + 1]int64
	Days       gobMap[string, *CallCounts] // its calls by day, for its page
	Categories gobMap[string, int64]       // nil until the tool's calls name one
}

func (t *toolAcc) day(d string) *CallCounts {
	if t.Days == nil {
		t.Days = map[string]*CallCounts{}
	}
	return getOrNew(t.Days, d)
}

type agentAcc struct {
	Runs int64
	CallCounts
	Usage usage
}

// groupAcc is the runs of one format or one project.
type groupAcc struct {
	Runs, Success, Decided int64
	CallCounts
	Tokens model.Tokens
	Usage  usage
}

type modelAcc struct {
	Runs, Requests int64
	Tokens         model.Tokens
}

type dayAcc struct {
	Runs, Success, Decided int64
	ByStatus               gobMap[model.Status, int64]
	CallCounts
	Dur    Dist
	Tokens model.Tokens // by the day each request was made
	Usage  usage
}

type QualityScores struct {
	Scores              Dist
	ValidTrue, ValidAll int64
}

type qualityAcc struct {
	QualityScores
	Bins    [10]int64
	ByPhase gobMap[string, *QualityScores]
	ByTool  gobMap[string, *QualityScores]
}

type errorAcc struct {
	Count             int64
	Tools             gobMap[string, int64]
	ExSource, ExRunID string
}

func (q *qualityAcc) add(e model.Evaluation) {
	groups := []*QualityScores{&q.QualityScores, getOrNew(q.ByPhase, orUnspecified(e.Phase))}
	if e.Tool != "" {
		groups = append(groups, getOrNew(q.ByTool, e.Tool))
	}
	for _, g := range groups {
		if e.HasScore {
			g.Scores.Add(e.Score)
		}
		if e.Valid != model.TriUnknown {
			g.ValidAll++
			if e.Valid == model.TriTrue {
				g.ValidTrue++
			}
		}
	}
	if e.HasScore {
		q.Bins[min(9, max(0, int(e.Score)))]++
	}
}

// subagentAcc counts the subagents the runs started (SubagentSummary less
// its cost, which is priced from SubUsage when the report is made).
type subagentAcc struct {
	Invocations, Calls, Tokens, Requests int64
	ByType                               gobMap[string, int64]
}

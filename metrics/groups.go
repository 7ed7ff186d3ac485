package metrics

import "github.com/agentstat/agentstat/model"

// What the accumulator keeps per tool, agent, format or project, model, day
// and evaluation group, and how each adds and merges.

// callGroup counts calls by outcome; known counts the ok and the failed,
// the error rate's denominator.
type callGroup struct{ calls, known, errors, cancelled int64 }

func (g *callGroup) add(o model.Outcome) {
	g.calls++
	switch o {
	case model.OutcomeOK:
		g.known++
	case model.OutcomeError:
		g.known++
		g.errors++
	case model.OutcomeCancelled:
		g.cancelled++
	}
}

func (g *callGroup) merge(o callGroup) {
	g.calls += o.calls
	g.known += o.known
	g.errors += o.errors
	g.cancelled += o.cancelled
}

type toolAcc struct {
	callGroup
	dur        Dist
	hist       [len(HistogramEdgesMS) + 1]int64
	days       map[string]*callGroup // its calls by day, for its page
	categories map[string]int64      // nil until the tool's calls name one
}

func (t *toolAcc) addCategories(m map[string]int64) {
	if len(m) == 0 {
		return
	}
	if t.categories == nil {
		t.categories = make(map[string]int64, len(m))
	}
	addCounts(t.categories, m)
}

func (t *toolAcc) day(d string) *callGroup {
	if t.days == nil {
		t.days = map[string]*callGroup{}
	}
	return getOrNew(t.days, d)
}

type agentAcc struct {
	runs int64
	callGroup
	usage usage
}

// groupAcc is the runs of one format or one project.
type groupAcc struct {
	runs, success, decided int64
	callGroup
	tokens model.Tokens
	usage  usage
}

func (g *groupAcc) merge(o *groupAcc) {
	g.runs += o.runs
	g.success += o.success
	g.decided += o.decided
	g.callGroup.merge(o.callGroup)
	g.tokens.Add(o.tokens)
	g.usage.merge(o.usage)
}

type modelAcc struct {
	runs, requests int64
	tokens         model.Tokens
}

type dayAcc struct {
	runs, success, decided int64
	byStatus               map[model.Status]int64
	callGroup
	dur    Dist
	tokens model.Tokens // by the day each request was made
	usage  usage
}

type qualityGroup struct {
	scores              Dist
	validTrue, validAll int64
}

type qualityAcc struct {
	qualityGroup
	bins    [10]int64
	byPhase map[string]*qualityGroup
	byTool  map[string]*qualityGroup
}

type errorAcc struct {
	count             int64
	tools             map[string]int64
	exSource, exRunID string
}

func (q *qualityAcc) add(e model.Evaluation) {
	groups := []*qualityGroup{&q.qualityGroup, getOrNew(q.byPhase, orUnspecified(e.Phase))}
	if e.Tool != "" {
		groups = append(groups, getOrNew(q.byTool, e.Tool))
	}
	for _, g := range groups {
		if e.HasScore {
			g.scores.Add(e.Score)
		}
		if e.Valid != model.TriUnknown {
			g.validAll++
			if e.Valid == model.TriTrue {
				g.validTrue++
			}
		}
	}
	if e.HasScore {
		q.bins[min(9, max(0, int(e.Score)))]++
	}
}

func (g *qualityGroup) merge(o *qualityGroup) {
	g.scores.Merge(&o.scores)
	g.validTrue += o.validTrue
	g.validAll += o.validAll
}

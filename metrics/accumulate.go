// Package metrics folds runs into mergeable figures and finalizes them into
// the summary docs/metrics.md defines: the accumulator and what a file
// counts as, the folding of the cross-file joins' runs, partials, the run
// index and details, thresholds, diff and history.
package metrics

import (
	"strings"
	"time"

	"github.com/agentstat/agentstat/logformat"
	"github.com/agentstat/agentstat/model"
	"github.com/agentstat/agentstat/pricing"
)

// Accumulator folds runs into mergeable figures: counts, fixed-point sums and
// distributions. Each worker owns one; Merge combines them. Every part is
// independent of the order runs arrive in, so the result is the same bytes
// whichever worker read which file, and partials from several machines merge
// to the single-pass result.
type Accumulator struct {
	tally // what it has counted: what merges, and what a partial carries

	loc    *time.Location
	prices *pricing.Table
	// The last day named (day): a run's calls fall on one day, and each
	// was a string formatted and allocated.
	lastDate    dateKey
	lastDayName string

	scope       Scope
	keepSecrets bool
	noText      bool     // no text from a log reaches an output
	noIndex     bool     // a row for each run is most of what grows with the runs read
	redact      redactor // this worker's: its memo outlives a run

	details *detailWriter // this worker's spill of run details, when kept
	spill   *Details      // all spill files, on the merged accumulator
	waiting *waiting      // records not joined yet: Join folds them
}

// tally is the accumulator's counted state. Merge adds two tallies by one
// rule for every field (merge.go); a partial is its gob encoding, whose maps
// (gobMap) and lists are written in order, so that the same tally is the
// same bytes. A new figure's state is a field here, and nothing else.
type tally struct {
	FilesSeen, FilesParsed, FilesFiltered, RunsFiltered int64
	FilesByFormat                                       gobMap[string, int64]
	Skipped                                             []SkippedFile
	Warnings                                            gobMap[string, int64]
	WarnFiles                                           firstFiles // per kind, the first file (by path) that raised it

	Runs         int64
	RunsByStatus gobMap[model.Status, int64]
	RunDur       Dist
	Steps        int64
	StepsBy      gobMap[model.StepStatus, int64]
	Calls        CallCounts
	CallDur      Dist
	Tools        gobMap[string, *toolAcc]
	Agents       gobMap[string, *agentAcc]
	Formats      gobMap[string, *groupAcc]
	Projects     gobMap[string, *groupAcc]
	Models       gobMap[string, *modelAcc]
	Days         gobMap[string, *dayAcc]
	Quality      qualityAcc
	Tokens       model.Tokens
	TokensPerRun Dist
	Usage        usage
	RunCost      Dist
	Window       windowAcc
	RefsByType   gobMap[string, int64]
	RefsByRel    gobMap[string, int64]
	RefsByUsage  gobMap[string, int64]
	Contribs     gobMap[string, int64]
	Subagents    subagentAcc
	SubUsage     usage // the subagents' requests (their cost is also the runs')
	BudgetTool   Dist
	BudgetDur    Dist
	BudgetStep   Dist
	BudgetWarn   int64
	BudgetExceed int64
	Retries      int64
	Errors       gobMap[string, *errorAcc]
	Index        RunIndex
	IDs          []runID // each run's format and id, for duplicate ids
	RunHist      [len(HistogramEdgesMS) + 1]int64
	CallHist     [len(HistogramEdgesMS) + 1]int64
	Redacted     int64 // values that looked like credentials, replaced
}

// HistogramEdgesMS are the upper bounds of the duration histogram bins; a
// last bin holds everything longer.
var HistogramEdgesMS = [...]float64{100, 1000, 5000, 15000, 60000, 300000, 900000, 3600000, 14400000}

func histBin(ms float64) int {
	for i, e := range HistogramEdgesMS {
		if ms < e {
			return i
		}
	}
	return len(HistogramEdgesMS)
}

// NewAccumulator returns an empty accumulator of the given settings.
func NewAccumulator(s Settings) *Accumulator {
	loc, prices := s.Location, s.Prices
	if loc == nil {
		loc = time.UTC
	}
	if prices == nil {
		prices = pricing.Builtin()
	}
	var spill *Details
	if s.KeepDetails {
		spill = new(Details)
	}
	return &Accumulator{
		tally:       newTally(loc),
		loc:         loc,
		prices:      prices,
		scope:       s.Scope,
		keepSecrets: s.KeepSecrets,
		noText:      s.NoText,
		noIndex:     s.NoIndex,
		spill:       spill,
	}
}

// newTally is an empty tally, its maps made.
func newTally(loc *time.Location) tally {
	return tally{
		Index:         RunIndex{home: loc},
		FilesByFormat: gobMap[string, int64]{},
		Warnings:      gobMap[string, int64]{},
		WarnFiles:     firstFiles{},
		RunsByStatus:  gobMap[model.Status, int64]{},
		StepsBy:       gobMap[model.StepStatus, int64]{},
		Tools:         gobMap[string, *toolAcc]{},
		Agents:        gobMap[string, *agentAcc]{},
		Formats:       gobMap[string, *groupAcc]{},
		Projects:      gobMap[string, *groupAcc]{},
		Models:        gobMap[string, *modelAcc]{},
		Days:          gobMap[string, *dayAcc]{},
		Quality:       qualityAcc{ByPhase: gobMap[string, *QualityScores]{}, ByTool: gobMap[string, *QualityScores]{}},
		RefsByType:    gobMap[string, int64]{},
		RefsByRel:     gobMap[string, int64]{},
		RefsByUsage:   gobMap[string, int64]{},
		Contribs:      gobMap[string, int64]{},
		Subagents:     subagentAcc{ByType: gobMap[string, int64]{}},
		Errors:        gobMap[string, *errorAcc]{},
	}
}

// Warn counts a warning of the given kind.
func (a *Accumulator) Warn(kind string) { a.Warnings[kind]++ }

// warnIn counts a warning raised by the file at path, which becomes the
// kind's example if it sorts first: whichever worker reads which file, the
// merged example is the same.
func (a *Accumulator) warnIn(kind, path string) {
	a.Warnings[kind]++
	keepFirst(a.WarnFiles, kind, path)
}

// firstFiles is, per warning kind, the first file (by path) that raised it.
type firstFiles gobMap[string, string]

func (f firstFiles) GobEncode() ([]byte, error) { return gobMap[string, string](f).GobEncode() }
func (f *firstFiles) GobDecode(b []byte) error  { return (*gobMap[string, string])(f).GobDecode(b) }

// keepFirst keeps p as m[k] if no path is there yet or p sorts before it.
func keepFirst(m map[string]string, k, p string) {
	if cur, ok := m[k]; !ok || p < cur {
		m[k] = p
	}
}

// Merge keeps, for each kind, the path of f and o that sorts first.
func (f *firstFiles) Merge(o *firstFiles) {
	if *f == nil {
		*f = firstFiles{}
	}
	for k, p := range *o {
		keepFirst(*f, k, p)
	}
}

func (a *Accumulator) skip(path, reason, detail string) {
	if !a.keepSecrets {
		for _, p := range []*string{&path, &detail} {
			if out, changed := RedactText(*p); changed {
				*p = out
				a.Redacted++
			}
		}
	}
	a.Skipped = append(a.Skipped, SkippedFile{Path: path, Reason: reason, Detail: detail})
}

func (a *Accumulator) day(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	t = t.In(a.loc)
	y, m, d := t.Date()
	if k := (dateKey{y, m, d}); k != a.lastDate || a.lastDayName == "" {
		a.lastDate, a.lastDayName = k, t.Format(time.DateOnly)
	}
	return a.lastDayName
}

type dateKey struct {
	y int
	m time.Month
	d int
}

func (a *Accumulator) dayAcc(d string) *dayAcc {
	if d == "" {
		return nil
	}
	acc := a.Days[d]
	if acc == nil {
		acc = &dayAcc{ByStatus: map[model.Status]int64{}}
		a.Days[d] = acc
	}
	return acc
}

func getOrNew[T any](m map[string]*T, k string) *T {
	v := m[k]
	if v == nil {
		v = new(T)
		m[k] = v
	}
	return v
}

// AddRun folds one run into the figures.
func (a *Accumulator) AddRun(r *model.Run) { a.addRun(r, len(r.ToolCalls), onePart(r.ToolCalls)) }

// addKept folds a run the window keeps, its texts redacted unless the
// secrets are kept; its calls come from parts when it has them, else from
// r.ToolCalls. With ahead, each part of them is made (and redacted) on a
// goroutine of its own while the part before is folded and spilled: the
// caller has a core to spare meanwhile (partsAhead).
func (a *Accumulator) addKept(r *model.Run, parts *model.CallParts, ahead bool) {
	n, next := len(r.ToolCalls), onePart(r.ToolCalls)
	if parts != nil {
		n, next = parts.N, parts.Next
	}
	ahead = ahead && parts != nil
	if ahead {
		parts.KeepTwo()
	}
	// Texts --no-text withholds go first: what is redacted and counted is
	// what an output could show (and a partial's waiting records carry no
	// text under --no-text, see join.EncodeFragment).
	if a.noText {
		withholdRun(r)
		take := next
		next = func() []model.ToolCall {
			part := take()
			withholdCalls(part)
			return part
		}
	}
	if !a.keepSecrets {
		x := &a.redact
		before := x.n
		x.run(r)
		defer func() { a.Redacted += x.n - before }()
		take := next
		next = func() []model.ToolCall {
			part := take()
			x.calls(part)
			return part
		}
	}
	if ahead {
		var done func()
		next, done = partsAhead(next)
		defer done()
	}
	a.addRun(r, n, next)
}

// partsAhead runs next on a goroutine of its own, a part ahead of the
// caller of the next it returns: while the caller folds and spills a
// part, the next one is made. A long session's fold was one core's work
// at the end of the join (~60 ms at 1 GB of logs: its calls made from the
// join's pages and redacted ~30, folded ~17, spilled ~8) while the join
// waited for it. next's parts must stay valid until the call after the
// next (CallParts.KeepTwo): the goroutine makes part k+1 while part k is
// used, and k+2 only once k+1 is taken. done takes what is left, so the
// goroutine always ends.
func partsAhead(next func() []model.ToolCall) (ahead func() []model.ToolCall, done func()) {
	parts := make(chan []model.ToolCall)
	go func() {
		defer close(parts)
		for part := next(); part != nil; part = next() {
			parts <- part
		}
	}()
	return func() []model.ToolCall { return <-parts }, func() {
		for range parts {
		}
	}
}

// onePart hands out calls as one part, then nil (nil at once for none).
func onePart(calls []model.ToolCall) func() []model.ToolCall {
	return func() []model.ToolCall {
		part := calls
		calls = nil
		if len(part) == 0 {
			return nil
		}
		return part
	}
}

// addRun folds a run whose n calls come from next, a part at a time (nil
// after the last), rather than from r.ToolCalls: a long session's calls
// are folded and spilled without ever being held together.
func (a *Accumulator) addRun(r *model.Run, n int, next func() []model.ToolCall) {
	a.Runs++
	a.RunsByStatus[r.Status]++
	a.IDs = append(a.IDs, runIDOf(r.Format, r.ID))
	decided := r.Status != model.StatusRunning && r.Status != model.StatusUnknown
	success := r.Status == model.StatusSuccess
	if r.HasDuration {
		a.RunDur.Add(r.DurationMS)
		a.RunHist[histBin(r.DurationMS)]++
	}
	f := getOrNew(a.Formats, r.Format)
	f.Runs++
	f.Tokens.Add(r.Tokens)
	project := ProjectOf(r)
	p := getOrNew(a.Projects, project)
	p.Runs++
	p.Tokens.Add(r.Tokens)
	runDay := a.day(r.Started)
	day := a.dayAcc(runDay)
	if day != nil {
		day.Runs++
		day.ByStatus[r.Status]++
		if r.HasDuration {
			day.Dur.Add(r.DurationMS)
		}
	}
	if decided {
		p.Decided++
		if success {
			p.Success++
		}
		f.Decided++
		if day != nil {
			day.Decided++
		}
		if success {
			f.Success++
			if day != nil {
				day.Success++
			}
		}
	}

	for _, s := range r.Steps {
		a.Steps++
		a.StepsBy[s.Status]++
	}

	runAgents := map[string]bool{}
	if r.Agent != "" {
		runAgents[r.Agent] = true
	}
	for _, s := range r.Steps {
		if s.Agent != "" {
			runAgents[s.Agent] = true
		}
	}
	if a.details != nil {
		a.details.writeRun(r, n)
	}
	var seen runSeen
	for part := next(); part != nil; part = next() {
		a.addCalls(r, part, f, p, runDay, runAgents, &seen)
		if a.details != nil {
			a.details.writeCalls(part)
		}
	}
	for name := range runAgents {
		getOrNew(a.Agents, name).Runs++
	}

	for _, e := range r.Quality {
		a.Quality.add(e)
	}

	a.Tokens.Add(r.Tokens)
	if tot := r.Tokens.Total(); tot > 0 {
		a.TokensPerRun.Add(float64(tot))
	}
	cost, priced := a.addUsage(r, f, p, day)
	ctx := &r.Context
	for _, ref := range ctx.Refs {
		a.RefsByType[orUnspecified(ref.Type)]++
		a.RefsByRel[orUnspecified(ref.Relevance)]++
		a.RefsByUsage[orUnspecified(ref.UsageMode)]++
	}
	for _, c := range ctx.Contributions {
		a.Contribs[c]++
	}
	for _, s := range ctx.Subagents {
		a.Subagents.Invocations++
		a.Subagents.Calls += s.Calls
		a.Subagents.Tokens += s.Tokens
		a.Subagents.ByType[orUnspecified(s.Type)]++
		for _, q := range s.Requests {
			a.Subagents.Requests++
			a.SubUsage.add(a.usageKey(q), q.Tokens)
		}
	}
	for _, v := range ctx.ToolCallBudget {
		a.BudgetTool.Add(v)
	}
	for _, v := range ctx.DurationBudget {
		a.BudgetDur.Add(v)
	}
	for _, v := range ctx.StepBudget {
		a.BudgetStep.Add(v)
	}
	a.BudgetWarn += ctx.BudgetWarnings
	a.BudgetExceed += ctx.BudgetExceeded
	a.Retries += ctx.Retries

	if a.noIndex {
		return
	}
	row := RunRow{
		ID: r.ID, Format: r.Format, Source: r.Source, Page: RunPage(r), Title: clip(r.Title, 200), Status: string(r.Status),
		Agent: r.Agent, Model: r.Model, Project: project, Started: r.Started, Ended: r.Ended, ToolCalls: n, Errors: seen.errors, Cancelled: seen.cancelled,
		Tools: strings.Join(seen.tools, "\n"), ErrorTexts: strings.Join(seen.errTexts, "\n"), FailedTools: seen.failedTools(),
		Steps: len(r.Steps), Tokens: r.Tokens.Total(),
	}
	if priced {
		row.CostUSD = ptr(cost)
	}
	if r.HasDuration {
		row.DurationMS = ptr(r.DurationMS)
	}
	a.Index.add(&row)
}

// addCalls folds a part of r's calls; f and day are r's format and day,
// runAgents gathers the agents of r, errs counts r's failed calls.
func (a *Accumulator) addCalls(r *model.Run, calls []model.ToolCall, f *groupAcc, p *groupAcc, runDay string, runAgents map[string]bool, seen *runSeen) {
	day := a.dayAcc(runDay)
	for i := range calls {
		c := &calls[i]
		a.Calls.add(c.Outcome)
		f.add(c.Outcome)
		p.add(c.Outcome)
		t := a.Tools[c.Name]
		if t == nil {
			t = &toolAcc{}
			a.Tools[c.Name] = t
		}
		t.add(c.Outcome)
		if c.Category != "" {
			if t.Categories == nil {
				t.Categories = map[string]int64{}
			}
			t.Categories[c.Category]++
		}
		if c.HasDuration {
			a.CallDur.Add(c.DurationMS)
			a.CallHist[histBin(c.DurationMS)]++
			t.Dur.Add(c.DurationMS)
			t.Hist[histBin(c.DurationMS)]++
		}
		agent := c.Agent
		if agent == "" {
			agent = r.Agent
		}
		if agent != "" {
			runAgents[agent] = true
			getOrNew(a.Agents, agent).add(c.Outcome)
		}
		callDay, dayName := day, runDay
		if !c.Started.IsZero() {
			dayName = a.day(c.Started)
			callDay = a.dayAcc(dayName)
		}
		if callDay != nil {
			callDay.add(c.Outcome)
			t.day(dayName).add(c.Outcome)
		}
		key := ""
		if c.Outcome == model.OutcomeError {
			key = NormalizeError(c.Error)
			a.addError(key, c, r)
		}
		seen.add(c, key, !a.noIndex)
	}
}

func orUnspecified(s string) string {
	if strings.TrimSpace(s) == "" {
		return "unspecified"
	}
	return s
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := 0
	for i := range s {
		if i > n {
			break
		}
		cut = i
	}
	return s[:cut] + "…"
}

func ptr[T any](v T) *T { return &v }

var _ logformat.Warner = (*Accumulator)(nil)

// copyCounts returns a copy of m with string keys (nil stays an empty map).
func copyCounts[K ~string](m map[K]int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[string(k)] = v
	}
	return out
}

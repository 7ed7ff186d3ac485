package analyze

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

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
	loc *time.Location
	// The last day named (day): a run's calls fall on one day, and each
	// was a string formatted and allocated.
	lastDate    dateKey
	lastDayName string

	filesSeen, filesParsed, filesFiltered, runsFiltered int64
	filesByFormat                                       map[string]int64
	skipped                                             []SkippedFile
	warnings                                            map[string]int64
	warnFiles                                           map[string]string // per kind, the first file (by path) that raised it

	runs         int64
	runsByStatus map[model.Status]int64
	runDur       Dist
	steps        int64
	stepsBy      map[model.StepStatus]int64
	calls        callGroup
	callDur      Dist
	tools        map[string]*toolAcc
	agents       map[string]*agentAcc
	formats      map[string]*groupAcc
	projects     map[string]*groupAcc
	models       map[string]*modelAcc
	days         map[string]*dayAcc
	quality      qualityAcc
	tokens       model.Tokens
	tokensPerRun Dist
	usage        usage
	runCost      Dist
	window       windowAcc
	prices       *pricing.Table
	refsByType   map[string]int64
	refsByRel    map[string]int64
	refsByUsage  map[string]int64
	contribs     map[string]int64
	subagents    SubagentSummary
	subUsage     usage // the subagents' requests (their cost is also the runs')
	budgetTool   Dist
	budgetDur    Dist
	budgetStep   Dist
	budgetWarn   int64
	budgetExceed int64
	retries      int64
	errors       map[string]*errorAcc
	index        RunIndex
	ids          []runID // each run's format and id, for duplicate ids
	runHist      [len(HistogramEdgesMS) + 1]int64
	callHist     [len(HistogramEdgesMS) + 1]int64

	redacted    int64 // values that looked like credentials, replaced
	keepSecrets bool
	noText      bool     // Options.NoText: no text from a log reaches an output
	noIndex     bool     // Options.NoIndex: a row for each run is most of what grows with the runs read
	redact      redactor // this worker's: its memo outlives a run

	details *detailWriter // this worker's spill of run details, when kept
	spill   *Details      // all spill files, on the merged accumulator
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

// NewAccumulator returns an empty accumulator that dates runs in loc and
// prices tokens with prices (the built-in table when nil).
func NewAccumulator(loc *time.Location, prices *pricing.Table) *Accumulator {
	if prices == nil {
		prices = pricing.Builtin()
	}
	return &Accumulator{
		loc:           loc,
		prices:        prices,
		index:         RunIndex{home: loc},
		filesByFormat: map[string]int64{},
		warnings:      map[string]int64{},
		warnFiles:     map[string]string{},
		runsByStatus:  map[model.Status]int64{},
		stepsBy:       map[model.StepStatus]int64{},
		tools:         map[string]*toolAcc{},
		agents:        map[string]*agentAcc{},
		formats:       map[string]*groupAcc{},
		projects:      map[string]*groupAcc{},
		models:        map[string]*modelAcc{},
		days:          map[string]*dayAcc{},
		quality:       qualityAcc{byPhase: map[string]*qualityGroup{}, byTool: map[string]*qualityGroup{}},
		refsByType:    map[string]int64{},
		refsByRel:     map[string]int64{},
		refsByUsage:   map[string]int64{},
		contribs:      map[string]int64{},
		subagents:     SubagentSummary{ByType: map[string]int64{}},
		errors:        map[string]*errorAcc{},
	}
}

// Warn counts a warning of the given kind.
func (a *Accumulator) Warn(kind string) { a.warnings[kind]++ }

// warnIn counts a warning raised by the file at path, which becomes the
// kind's example if it sorts first: whichever worker reads which file, the
// merged example is the same.
func (a *Accumulator) warnIn(kind, path string) {
	a.warnings[kind]++
	keepFirst(a.warnFiles, kind, path)
}

// keepFirst keeps p as m[k] if no path is there yet or p sorts before it.
func keepFirst(m map[string]string, k, p string) {
	if cur, ok := m[k]; !ok || p < cur {
		m[k] = p
	}
}

// addFirst keeps in m, for each key of o, the path that sorts first.
func addFirst(m, o map[string]string) {
	for k, p := range o {
		keepFirst(m, k, p)
	}
}

func (a *Accumulator) skip(path, reason, detail string) {
	if !a.keepSecrets {
		for _, p := range []*string{&path, &detail} {
			if out, changed := RedactText(*p); changed {
				*p = out
				a.redacted++
			}
		}
	}
	a.skipped = append(a.skipped, SkippedFile{Path: path, Reason: reason, Detail: detail})
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
	acc := a.days[d]
	if acc == nil {
		acc = &dayAcc{byStatus: map[model.Status]int64{}}
		a.days[d] = acc
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
func (a *Accumulator) addKept(r *model.Run, parts *logformat.CallParts, ahead bool) {
	n, next := len(r.ToolCalls), onePart(r.ToolCalls)
	if parts != nil {
		n, next = parts.N, parts.Next
	}
	ahead = ahead && parts != nil
	if ahead {
		parts.KeepTwo()
	}
	if !a.keepSecrets {
		x := &a.redact
		before := x.n
		x.run(r)
		defer func() { a.redacted += x.n - before }()
		take := next
		next = func() []model.ToolCall {
			part := take()
			x.calls(part)
			return part
		}
	}
	if a.noText {
		withholdRun(r)
		take := next
		next = func() []model.ToolCall {
			part := take()
			withholdCalls(part)
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
	a.runs++
	a.runsByStatus[r.Status]++
	a.ids = append(a.ids, runIDOf(r.Format, r.ID))
	decided := r.Status != model.StatusRunning && r.Status != model.StatusUnknown
	success := r.Status == model.StatusSuccess
	if r.HasDuration {
		a.runDur.Add(r.DurationMS)
		a.runHist[histBin(r.DurationMS)]++
	}
	f := getOrNew(a.formats, r.Format)
	f.runs++
	f.tokens.Add(r.Tokens)
	project := ProjectOf(r)
	p := getOrNew(a.projects, project)
	p.runs++
	p.tokens.Add(r.Tokens)
	runDay := a.day(r.Started)
	day := a.dayAcc(runDay)
	if day != nil {
		day.runs++
		day.byStatus[r.Status]++
		if r.HasDuration {
			day.dur.Add(r.DurationMS)
		}
	}
	if decided {
		p.decided++
		if success {
			p.success++
		}
		f.decided++
		if day != nil {
			day.decided++
		}
		if success {
			f.success++
			if day != nil {
				day.success++
			}
		}
	}

	for _, s := range r.Steps {
		a.steps++
		a.stepsBy[s.Status]++
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
		getOrNew(a.agents, name).runs++
	}

	for _, e := range r.Quality {
		a.quality.add(e)
	}

	a.tokens.Add(r.Tokens)
	if tot := r.Tokens.Total(); tot > 0 {
		a.tokensPerRun.Add(float64(tot))
	}
	cost, priced := a.addUsage(r, f, p, day)
	ctx := &r.Context
	for _, ref := range ctx.Refs {
		a.refsByType[orUnspecified(ref.Type)]++
		a.refsByRel[orUnspecified(ref.Relevance)]++
		a.refsByUsage[orUnspecified(ref.UsageMode)]++
	}
	for _, c := range ctx.Contributions {
		a.contribs[c]++
	}
	for _, s := range ctx.Subagents {
		a.subagents.Invocations++
		a.subagents.Calls += s.Calls
		a.subagents.Tokens += s.Tokens
		a.subagents.ByType[orUnspecified(s.Type)]++
		for _, q := range s.Requests {
			a.subagents.Requests++
			a.subUsage.add(a.usageKey(q), q.Tokens)
		}
	}
	for _, v := range ctx.ToolCallBudget {
		a.budgetTool.Add(v)
	}
	for _, v := range ctx.DurationBudget {
		a.budgetDur.Add(v)
	}
	for _, v := range ctx.StepBudget {
		a.budgetStep.Add(v)
	}
	a.budgetWarn += ctx.BudgetWarnings
	a.budgetExceed += ctx.BudgetExceeded
	a.retries += ctx.Retries

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
	a.index.add(&row)
}

// addCalls folds a part of r's calls; f and day are r's format and day,
// runAgents gathers the agents of r, errs counts r's failed calls.
func (a *Accumulator) addCalls(r *model.Run, calls []model.ToolCall, f *groupAcc, p *groupAcc, runDay string, runAgents map[string]bool, seen *runSeen) {
	day := a.dayAcc(runDay)
	for i := range calls {
		c := &calls[i]
		a.calls.add(c.Outcome)
		f.add(c.Outcome)
		p.add(c.Outcome)
		t := a.tools[c.Name]
		if t == nil {
			t = &toolAcc{}
			a.tools[c.Name] = t
		}
		t.add(c.Outcome)
		if c.Category != "" {
			if t.categories == nil {
				t.categories = map[string]int64{}
			}
			t.categories[c.Category]++
		}
		if c.HasDuration {
			a.callDur.Add(c.DurationMS)
			a.callHist[histBin(c.DurationMS)]++
			t.dur.Add(c.DurationMS)
			t.hist[histBin(c.DurationMS)]++
		}
		agent := c.Agent
		if agent == "" {
			agent = r.Agent
		}
		if agent != "" {
			runAgents[agent] = true
			getOrNew(a.agents, agent).add(c.Outcome)
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

// runSeen is what a run's calls add to its row in the run index: counts,
// and what the run list searches and filters by (its tools, its error
// messages as errors[] normalises them).
type runSeen struct {
	errors, cancelled int
	tools, errTexts   []string
	failed            []toolCount // the tools that failed, in the order they first did
}

type toolCount struct {
	name string
	n    int
}

// failedTools is the row's FailedTools: "name\tcount" lines, most failures first.
func (s *runSeen) failedTools() string {
	slices.SortStableFunc(s.failed, func(x, y toolCount) int { return cmp.Or(cmp.Compare(y.n, x.n), cmp.Compare(x.name, y.name)) })
	var b strings.Builder
	for i, f := range s.failed {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(f.name)
		b.WriteByte('\t')
		b.WriteString(strconv.Itoa(f.n))
	}
	return b.String()
}

// Bounds on what a row keeps to be searched: the index holds every run.
const (
	rowTools    = 24
	rowErrTexts = 8
)

// add counts c; key is its normalised error message, "" for none.
func (s *runSeen) add(c *model.ToolCall, key string, keep bool) {
	switch c.Outcome {
	case model.OutcomeError:
		s.errors++
		if keep && key != "" && len(s.errTexts) < rowErrTexts && !slices.Contains(s.errTexts, key) {
			s.errTexts = append(s.errTexts, key)
		}
		if keep && c.Name != "" {
			if i := slices.IndexFunc(s.failed, func(f toolCount) bool { return f.name == c.Name }); i >= 0 {
				s.failed[i].n++
			} else if len(s.failed) < rowTools {
				s.failed = append(s.failed, toolCount{c.Name, 1})
			}
		}
	case model.OutcomeCancelled:
		s.cancelled++
	}
	if keep && len(s.tools) < rowTools && c.Name != "" && !slices.Contains(s.tools, c.Name) {
		s.tools = append(s.tools, c.Name)
	}
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

var (
	reHex    = regexp.MustCompile(`\b(?:0x)?[0-9a-fA-F]{8,}(?:-[0-9a-fA-F]{4,})*\b`)
	rePath   = regexp.MustCompile(`(^|[\s"'(=:])(?:[A-Za-z]:)?(?:[\\/][\w.@~+-]+)+[\\/]?|\b[\w.-]+\.(?:go|py|ts|tsx|js|jsx|json|jsonl|md|java|rs|c|h|cpp|css|html|yaml|yml|toml|txt|sh)\b`)
	reNumber = regexp.MustCompile(`\d+(?:\.\d+)?`)
	reSpace  = regexp.MustCompile(`\s+`)
)

// NormalizeError folds the parts of an error message that vary between
// occurrences of the same error: ids, paths and numbers.
func NormalizeError(msg string) string { return normalizeError(msg, normalizeHead, normalizedLen) }

const (
	normalizedLen = 200 // bytes of a normalized text kept
	normalizeHead = 512 // bytes of a longer text normalized first
)

// normalizeError is NormalizeError keeping keep bytes, which it tries to
// get from about the first head bytes of the text: a long text (1-2 KB of
// a stack trace) would take the expressions ~0.2 ms to normalize whole.
func normalizeError(msg string, head, keep int) string {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return "(no message)"
	}
	if !utf8.ValidString(msg) {
		msg = strings.ToValidUTF8(msg, "\uFFFD")
	}
	msg = clip(msg, 2000)
	// No expression's match holds whitespace but as its first byte, or all
	// whitespace (\s+), and none looks past its end but for \b, which
	// whitespace and the text's end pass alike: the text cut before a
	// whitespace byte normalizes to a prefix of what the whole text does.
	if len(msg) > head {
		if k := spaceFrom(msg, head); k >= 0 {
			if out := normalizeText(msg[:k]); len(out) > keep {
				return clip(out, keep)
			}
		}
	}
	return clip(normalizeText(msg), keep)
}

// normalizeText runs the expressions that fold ids, paths, numbers and
// whitespace over msg.
func normalizeText(msg string) string {
	// Each expression runs only on a text it may change (tested on the
	// text as the ones before left it): most error texts hold no id, many
	// no path, and each expression costs a pass of the regexp engine over
	// up to 2,000 bytes.
	if hexRun(msg, 8) {
		msg = reHex.ReplaceAllString(msg, "<id>")
	}
	if strings.ContainsAny(msg, `/\.`) { // a path has a separator, a file name a dot
		msg = rePath.ReplaceAllString(msg, "${1}<path>")
	}
	if strings.ContainsAny(msg, "0123456789") {
		msg = reNumber.ReplaceAllString(msg, "<n>")
	}
	if strings.ContainsAny(msg, "\t\n\f\r") || strings.Contains(msg, "  ") { // else every run of \s is one space
		msg = reSpace.ReplaceAllString(msg, " ")
	}
	return msg
}

// spaceFrom is the index of the first byte from i on that \s matches, -1 if none.
func spaceFrom(s string, i int) int {
	for ; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\f', '\r':
			return i
		}
	}
	return -1
}

// hexRun reports whether s holds n hexadecimal digits in a row.
func hexRun(s string, n int) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; '0' <= s[i] && s[i] <= '9' || 'a' <= c && c <= 'f' {
			if run++; run == n {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

func (a *Accumulator) addError(key string, c *model.ToolCall, r *model.Run) {
	e := a.errors[key]
	if e == nil {
		e = &errorAcc{tools: map[string]int64{}, exSource: r.Source, exRunID: r.ID}
		a.errors[key] = e
	}
	e.count++
	e.tools[c.Name]++
	e.example(r.Source, r.ID)
}

// example keeps the smallest (source, id) as the example, whatever the order.
func (e *errorAcc) example(source, id string) {
	if source < e.exSource || (source == e.exSource && id < e.exRunID) {
		e.exSource, e.exRunID = source, id
	}
}

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

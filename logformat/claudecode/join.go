package claudecode

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/join"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/agentstat/agentstat/model"
)

func init() {
	join.Register(&join.JoinedFormat{
		Tables: true,
		ReadHead: func(join.FragmentKind, *recordspill.Reader, *time.Location) (join.FromPartial, bool) {
			return func(spill *recordspill.File, segs []recordspill.Ref, _ int) (join.Records, bool) {
				return &sessionLog{refs: segs, spill: spill}, len(segs) > 0
			}, true
		},
		Join: func(frags []*join.Fragment, w jsonscan.Warner, emit func(*model.Run, []*join.Fragment), emitParts func(*model.Run, *model.CallParts, []*join.Fragment)) {
			joinSessions(orderSessions(frags), w, emit, emitParts)
		},
	}, join.FragmentClaude)
}

// joinSessions builds one run per session from every entry of the tree: each
// message (uuid) counts once however many files repeat it, usage counts once
// per message id and request id (the largest copy: streaming writes partial
// ones first), and sidechain entries (subagents) are subagent work.
func joinSessions(s orderedSessions, w jsonscan.Warner, emit func(*model.Run, []*join.Fragment), emitParts func(*model.Run, *model.CallParts, []*join.Fragment)) {
	order, bySession := s.order, s.bySession
	for _, id := range order {
		fs := bySession[id]
		r, calls := sessionRun(id, fs, w) // it reads the records back
		if emitParts != nil {
			emitParts(r, calls, fs)
		} else {
			r.ToolCalls = calls.All()
		}
		calls.Drain() // the calls emitParts left
		for _, f := range fs {
			logOf(f).release() // one session's records in memory at a time
		}
		if emitParts == nil {
			emit(r, fs)
		}
	}
}

// orderedSessions is the Claude Code fragments by session, the largest
// session first, while the runs emitted before it (which emit may hold a
// while) are fewest: its join is the peak of memory.
type orderedSessions struct {
	order     []string
	bySession map[string][]*join.Fragment
	size      map[string]int64 // the size of each session's records
}

func orderSessions(frags []*join.Fragment) orderedSessions {
	s := orderedSessions{size: map[string]int64{}}
	s.order, s.bySession = join.Group(frags)
	for _, id := range s.order {
		for _, f := range s.bySession[id] {
			s.size[id] += logOf(f).recordSize()
		}
	}
	slices.SortStableFunc(s.order, func(a, b string) int { return cmp.Compare(s.size[b], s.size[a]) })
	return s
}

// sessionLines numbers the lines of one session's files one after another
// (g), so that the join can sort and mark lines through small integers: the
// join of a long session is the peak of memory, and hash maps keyed by ids
// cost several times what sorted arrays of ids do.
type sessionLines struct {
	files []*fileSession
	start []int32 // start[i] is the number of files[i].lines[0]; one more at the end
}

func (s *sessionLines) file(g int32) int {
	if len(s.files) == 1 {
		return 0
	}
	return sort.Search(len(s.files), func(i int) bool { return s.start[i+1] > g })
}

func (s *sessionLines) entry(g int32) entry {
	i := s.file(g)
	return entry{s.files[i], &s.files[i].lines[g-s.start[i]]}
}

// timeKey is a line's time and number, for sorting by time.
type timeKey struct {
	sec     int64
	nsec, g int32
}

// cmpTimeKey orders by time, equal times by line number (file order).
func cmpTimeKey(a, b timeKey) int {
	return cmp.Or(cmp.Compare(a.sec, b.sec), cmp.Compare(a.nsec, b.nsec), cmp.Compare(a.g, b.g))
}

// lineRequest is the request a line's usage stands for.
type lineRequest struct {
	g   int32
	req model.Request
}

// chainRef is one tool use or result of the main chain: the position of its
// line in the time-sorted chain, and its index among that line's own.
type chainRef struct{ pos, k int32 }

// sessionRun joins one session with its records' tables in memory; its
// calls are made as they are taken from the parts, which must be before
// the fragments' records are released.
func sessionRun(id string, fs []*join.Fragment, w jsonscan.Warner) (*model.Run, *model.CallParts) {
	r := &model.Run{ID: id, Format: "claudecode", Agent: "claude-code", Status: model.StatusUnknown}
	s := sessionLines{files: make([]*fileSession, len(fs)), start: make([]int32, len(fs)+1)}
	for i, f := range fs {
		s.start[i+1] = s.start[i] + logOf(f).lineCount()
	}
	n := s.start[len(fs)]

	// Each uuid counts once: the first line that bears it, in file order;
	// a line without is no repeat. The uuids come first and alone
	// (uuidKeys), the other tables after.
	repeated := repeatedLines(fs, s.start)

	var first, last time.Time
	quiet := false
	for i, f := range fs {
		spill := logOf(f).recordSpill()
		logOf(f).loadRecords(linesAndUsages)
		cf := logOf(f).claude
		s.files[i] = cf
		if !checkTables(cf, linesAndUsages) && spill != nil {
			spill.Fail(recordspill.ErrCorrupt)
		}
		if s.start[i+1]-s.start[i] != int32(len(cf.lines)) && spill != nil {
			// Read back otherwise than counted: the spill failed (Err), and
			// the lines are numbered as they came, with no repeats known.
			spill.Fail(recordspill.ErrCorrupt)
			repeated = nil
		}
		if cf.quiet {
			quiet = stretchSpan(&first, &last, quiet, cf.first, cf.last)
		}
	}
	if repeated == nil {
		for i, cf := range s.files {
			s.start[i+1] = s.start[i] + int32(len(cf.lines))
		}
		n = s.start[len(fs)]
		repeated = reader.NewBitset(n)
	}

	// Tokens, before the chain is sorted, so that the usage table can go
	// first: once per message, the largest copy (the first of equals); the
	// model with most tokens names the run. The keys, sorted, find each
	// message's copies; the usages that count are then summed in line
	// order (in key order each was a cache miss, a third of the join).
	nUsages := 0
	for _, f := range s.files {
		nUsages += len(f.usages)
	}
	withUsage := make([]idKey, 0, nUsages)
	for i, f := range s.files {
		for j := range f.lines {
			if g := s.start[i] + int32(j); f.lines[j].usage != 0 && !repeated.Has(g) {
				withUsage = append(withUsage, idKey{keyOf(f.usages[f.lines[j].usage-1].key), g})
			}
		}
	}
	sortIDKeys(withUsage)
	counted := reader.NewBitset(n)
	markLargest(withUsage, func(g int32) int64 { return s.entry(g).usageOf().tokens.Total() }, counted.Set)
	withUsage = nil
	var sideRequests []lineRequest // the counted usages of subagent lines, in line order
	perModel := map[string]int64{}
	if c := counted.Count(0, n); c > 0 {
		r.Requests = make([]model.Request, 0, c) // a long session's requests, made once
	}
	for i, f := range s.files {
		byModel := make([]int64, max(len(f.words), 1)) // by index in words (0 is "", with no words too)
		seen := reader.NewBitset(int32(len(byModel)))
		for j := range f.lines {
			g := s.start[i] + int32(j)
			if !counted.Has(g) {
				continue
			}
			l := &f.lines[j]
			u := &f.usages[l.usage-1]
			q := model.Request{Model: f.wordAt(u.model), At: s.entry(g).at(), Tokens: u.tokens}
			r.AddRequest(q)
			byModel[u.model] += u.tokens.Total()
			seen.Set(u.model)
			if l.sidechain() || l.agent != 0 {
				sideRequests = append(sideRequests, lineRequest{g, q})
			}
		}
		for m, t := range byModel {
			if seen.Has(int32(m)) {
				perModel[f.wordAt(int32(m))] += t
			}
		}
	}
	r.Model = reader.TopModel(perModel)
	r.Project, r.Branch = sessionProject(s.files)
	for i, f := range fs {
		if logOf(f).spill != nil { // records read back for this join alone (release)
			s.files[i].usages = nil
		}
	}

	// The main chain, and the source: the first file with a line of it or a quiet line.
	var side []int32
	byTime := make([]timeKey, 0, n)
	for i, f := range s.files {
		for j := range f.lines {
			g := s.start[i] + int32(j)
			if repeated.Has(g) {
				continue
			}
			l := &f.lines[j]
			if l.compaction() {
				r.Context.Compactions++
			}
			if l.sidechain() || l.agent != 0 {
				side = append(side, g)
				continue
			}
			byTime = append(byTime, timeKey{l.sec, l.nanos(), g})
			if r.Source == "" {
				r.Source = fs[i].Source
			}
		}
		if r.Source == "" && f.quiet {
			r.Source = fs[i].Source
		}
	}
	if r.Source == "" && len(fs) > 0 {
		r.Source = fs[0].Source
	}
	// In time order, equal times in file order.
	slices.SortFunc(byTime, cmpTimeKey)
	main := make([]int32, len(byTime))
	for i, k := range byTime {
		main[i] = k.g
	}
	byTime = nil

	for _, f := range fs {
		logOf(f).loadRecords(usesAndResults) // read back from the spill only now: see loadRecords
		if !checkTables(logOf(f).claude, usesAndResults) && logOf(f).recordSpill() != nil {
			logOf(f).recordSpill().Fail(recordspill.ErrCorrupt)
		}
	}

	// Subagent work: each sidechain agent's own calls and tokens; its type is
	// the subagent_type of the Task call whose result names the agent.
	taskType := map[reader.Digest]string{} // tool_use id → subagent_type
	for _, g := range main {
		e := s.entry(g)
		for _, u := range e.uses() {
			if u.subagent != 0 {
				taskType[u.id] = e.f.wordAt(u.subagent)
			}
		}
	}
	agentType := map[string]string{}
	for _, g := range main {
		e := s.entry(g)
		for _, res := range e.results() {
			if res.agentID != 0 && taskType[res.useID] != "" {
				agentType[e.f.wordAt(res.agentID)] = taskType[res.useID]
			}
		}
	}
	subs := map[string]*model.Subagent{}
	var subOrder []string
	for _, g := range side {
		e := s.entry(g)
		id := e.agentID()
		sub := subs[id]
		if sub == nil {
			sub = &model.Subagent{Type: cmp.Or(agentType[id], "subagent")}
			subs[id] = sub
			subOrder = append(subOrder, id)
		}
		sub.Calls += int64(e.nUses)
		if len(sideRequests) > 0 && sideRequests[0].g == g {
			q := sideRequests[0].req
			sub.Tokens += q.Tokens.Total()
			sub.Requests = append(sub.Requests, q)
			sideRequests = sideRequests[1:]
		}
	}
	slices.Sort(subOrder)
	for _, k := range subOrder {
		r.Context.Subagents = append(r.Context.Subagents, *subs[k])
	}

	calls := pairCalls(&s, main, r.Agent, w)
	for _, g := range main {
		if e := s.entry(g); e.prompt != 0 {
			r.Request = e.promptOf()
			break
		}
	}
	if len(main) > 0 {
		quiet = stretchSpan(&first, &last, quiet, s.entry(main[0]).at(), s.entry(main[len(main)-1]).at())
	}
	spanAndTitle(r, first, last, quiet, w)
	return r, calls
}

// sessionProject is the directory and branch of a session: the first its
// files name, in their order.
func sessionProject(files []*fileSession) (cwd, branch string) {
	for _, f := range files {
		cwd, branch = cmp.Or(cwd, f.cwd), cmp.Or(branch, f.branch)
	}
	return cwd, branch
}

// markLargest marks, for each id of keys (sorted by id, then by i), the
// copy whose total is largest, the first of equals; total is asked only
// for an id with several copies.
func markLargest(keys []idKey, total func(i int32) int64, mark func(i int32)) {
	for i := 0; i < len(keys); {
		best, end := keys[i].i, i+1
		for end < len(keys) && keys[end].id == keys[i].id {
			end++
		}
		if end-i > 1 {
			bestTotal := total(best)
			for _, k := range keys[i+1 : end] {
				if t := total(k.i); t > bestTotal {
					best, bestTotal = k.i, t
				}
			}
		}
		mark(best)
		i = end
	}
}

// spanAndTitle sets a joined session's span, if it has one (set), and its
// title: its request, clipped, else its id.
func spanAndTitle(r *model.Run, first, last time.Time, set bool, w jsonscan.Warner) {
	if set {
		r.Span = reader.SpanOf(first, last, w)
		r.Title = reader.ClipString(strings.TrimSpace(r.Request), 120)
	}
	if r.Title == "" {
		r.Title = r.ID
	}
}

// repeatedLines marks the lines (numbered from start[i] in fs[i]) whose
// uuid a line before them bore; a line without one is no repeat.
func repeatedLines(fs []*join.Fragment, start []int32) reader.Bitset {
	n := start[len(fs)]
	repeated := reader.NewBitset(n)
	byUUID := make([]idKey, n)
	for i, f := range fs {
		logOf(f).uuidKeys(start[i], byUUID[start[i]:start[i+1]])
	}
	sortIDKeys(byUUID)
	for i := 1; i < len(byUUID); i++ {
		if byUUID[i].id == byUUID[i-1].id && byUUID[i].id != (keyID{}) {
			repeated.Set(byUUID[i].i)
		}
	}
	return repeated
}

// stretchSpan takes [first, last] out to [lo, hi], or sets it there if
// it held nothing yet (set), and reports that it holds a span.
func stretchSpan(first, last *time.Time, set bool, lo, hi time.Time) bool {
	if !set || lo.Before(*first) {
		*first = lo
	}
	if !set || hi.After(*last) {
		*last = hi
	}
	return true
}

// pairCalls pairs the main chain's tool uses with their results by id, in
// chain order: a use whose id came before is the same call again, and a use
// takes the first result that names it. Both sides are sorted by id and
// walked together. The calls are made a part at a time, as they are taken.
func pairCalls(s *sessionLines, main []int32, agent string, w jsonscan.Warner) *model.CallParts {
	var uses, results []chainRef
	for pos, g := range main {
		e := s.entry(g)
		for k := range e.nUses {
			uses = append(uses, chainRef{int32(pos), k})
		}
		for k := range e.nResults {
			results = append(results, chainRef{int32(pos), k})
		}
	}
	if len(uses) == 0 {
		return &model.CallParts{}
	}
	useOf := func(c chainRef) *toolUse { return s.entry(main[c.pos]).use(c.k) }
	resultOf := func(c chainRef) *toolResult { return s.entry(main[c.pos]).result(c.k) }
	// Both sides by id, then in chain order.
	useIDs, resultIDs := make([]idKey, len(uses)), make([]idKey, len(results))
	for i, ref := range uses {
		useIDs[i] = idKey{keyOf(useOf(ref).id), int32(i)}
	}
	for i, ref := range results {
		resultIDs[i] = idKey{keyOf(resultOf(ref).useID), int32(i)}
	}
	paired := make([]int32, len(uses))
	kept := pairUses(useIDs, resultIDs, paired)
	useIDs, resultIDs = nil, nil

	return model.PartsOf(kept, len(uses), reader.CallPart, func(i int) (model.ToolCall, bool) {
		if paired[i] < 0 {
			return model.ToolCall{}, false
		}
		return callAt(s, main, uses[i], results, paired[i], agent, w), true
	})
}

// pairUses pairs uses (their ids, numbered in chain order) with results
// (the same): paired[i] is 1 + the number of use i's result, 0 for none, -1
// for a repeat. It sorts both, and returns how many uses are no repeat.
func pairUses(useIDs, resultIDs []idKey, paired []int32) int {
	sortIDKeys(useIDs)
	sortIDKeys(resultIDs)
	kept, j := 0, 0
	for i := 0; i < len(useIDs); {
		id := useIDs[i].id
		end := i + 1
		for end < len(useIDs) && useIDs[end].id == id {
			end++
		}
		for j < len(resultIDs) && cmpKeyID(&resultIDs[j].id, &id) < 0 {
			j++
		}
		res := int32(0)
		if j < len(resultIDs) && resultIDs[j].id == id {
			res = resultIDs[j].i + 1
		}
		for x := i; x < end; x++ {
			if x > i && id != (keyID{}) {
				paired[useIDs[x].i] = -1 // no id is no identity: those never repeat
				continue
			}
			paired[useIDs[x].i] = res
			kept++
		}
		i = end
	}
	return kept
}

// callAt is the call of the use at ref, paired with results[paired-1]
// (none for 0).
func callAt(s *sessionLines, main []int32, ref chainRef, results []chainRef, paired int32, agent string, w jsonscan.Warner) model.ToolCall {
	e := s.entry(main[ref.pos])
	if paired <= 0 {
		return callOf(e, ref.k, entry{}, 0, agent, w)
	}
	got := results[paired-1]
	return callOf(e, ref.k, s.entry(main[got.pos]), got.k, agent, w)
}

// callOf is the call of e's use k, paired with re's result rk (none
// if re has no line).
func callOf(e entry, k int32, re entry, rk int32, agent string, w jsonscan.Warner) model.ToolCall {
	call := model.ToolCall{Name: e.f.wordAt(e.use(k).name), Input: e.f.wordAt(e.use(k).input), Agent: agent, Span: model.Span{Started: e.at()}}
	if re.lineRecord != nil {
		res, text := re.result(rk), ""
		if res.text != 0 {
			text = re.f.wordAt(res.text)
		}
		call.Span = reader.SpanOf(e.at(), re.at(), w)
		if res.hasDuration {
			call.HasDuration = false
			reader.SetDuration(&call.Span, jsonscan.Num{V: res.durationMS, Set: true}, w)
		}
		switch {
		// The user saying no is no failure of the tool: cancelled, with why.
		case res.interrupted:
			call.Outcome, call.Error = model.OutcomeCancelled, "interrupted"
		case strings.HasPrefix(text, "User rejected"):
			call.Outcome, call.Error = model.OutcomeCancelled, "rejected by the user"
		case res.isError || strings.HasPrefix(text, "Error"):
			call.Outcome, call.Error = model.OutcomeError, text
		default:
			call.Outcome = model.OutcomeOK
		}
	}
	return call
}

package claudecode

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/agentstat/agentstat/internal/logsynth"
	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/join"
	"github.com/agentstat/agentstat/logformat/formattest"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/agentstat/agentstat/model"
)

// The sort-merge join must give what the plain hash-map join gives: the
// reference below is that join as it was, kept to test against.
func TestClaudeJoinSameAsMaps(t *testing.T) {
	sessions := map[string][]*join.Fragment{}
	add := func(name string, b []byte) {
		c := formattest.NewCollector()
		if err := readLines(bytes.NewReader(b), name, time.UTC, nil, c); err != nil {
			return
		}
		for _, f := range c.Frags {
			if f.Kind == join.FragmentClaude {
				f.Source = name
				sessions[f.Key] = append(sessions[f.Key], f)
			}
		}
	}
	for _, root := range []string{filepath.Join(formattest.Root(t), "testdata", "logs"), formattest.CorpusDir(t)} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
				if b, err := os.ReadFile(p); err == nil {
					add(p, b)
				}
			}
			return nil
		})
	}
	for seed := range 3 {
		b, err := logsynth.File("claudecode", uint64(seed))
		if err != nil {
			t.Fatal(err)
		}
		add(fmt.Sprint("synth", seed), b)
	}
	if len(sessions) < formattest.AtLeast(t, 5, 4) {
		t.Fatalf("only %d sessions read", len(sessions))
	}
	for id, fs := range sessions {
		checkJoin(t, id, fs)
	}
	// Made-up sessions with every kind of repeat: uuids, usage keys, tool-use
	// ids (zero ones too), equal times, several files.
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		checkJoin(t, fmt.Sprint("random", i), randomSession(rng, 1))
	}
	// Long ones: the join sorts their keys two at a time (both), and makes
	// their calls in parts, of one call to more than a session holds.
	defer func(n int) { reader.CallPart = n }(reader.CallPart)
	for i, part := range []int{1, 7, 4096} {
		reader.CallPart = part
		checkJoin(t, fmt.Sprint("long", i), randomSession(rng, 300))
	}
}

func checkJoin(t *testing.T, id string, fs []*join.Fragment) {
	t.Helper()
	w1, w2 := formattest.NewCollector(), formattest.NewCollector()
	got, calls := sessionRun(id, fs, w1)
	got.ToolCalls = calls.All()
	want := runByMaps(id, fs, w2)
	if !reflect.DeepEqual(got.Requests, want.Requests) {
		t.Fatalf("session %s: requests\n%+v\nwant\n%+v", id, got.Requests, want.Requests)
	}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(w1.Warnings, w2.Warnings) {
		t.Fatalf("session %s: sort-merge join\n%+v\n%v\nwant\n%+v\n%v", id, got, w1.Warnings, want, w2.Warnings)
	}
}

// scale multiplies the lines and the pools ids are drawn from.
func randomSession(rng *rand.Rand, scale int) []*join.Fragment {
	pick := func(n int) int { return rng.IntN(n) }
	id := func(pool int) reader.Digest {
		if pick(5) == 0 {
			return reader.Digest{}
		}
		return reader.DigestOf(fmt.Sprint(pick(pool)))
	}
	base := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	at := func() time.Time {
		if pick(20) == 0 {
			return time.Time{}
		}
		return base.Add(time.Duration(pick(12))*time.Second + time.Duration(pick(3))*time.Millisecond)
	}
	texts := []string{"", "Error: no such file", "User rejected the edit", "fine"}
	var frags []*join.Fragment
	for i := range 1 + pick(4) {
		f := &fileSession{loc: time.UTC}
		f.word("agent-a")
		f.word("agent-b")
		for range pick(40 * scale) {
			uuid := id(30 * scale)
			t := at()
			l := lineRecord{sec: t.Unix(), nsec: int32(t.Nanosecond()), usesLo: int32(len(f.uses)), resultsLo: int32(len(f.results))}
			if pick(6) == 0 {
				l.setSidechain()
			}
			if pick(6) == 0 {
				l.agent = int32(1 + pick(2))
			}
			if pick(2) == 0 {
				f.usages = append(f.usages, msgUsage{key: reader.DigestOf(fmt.Sprint(pick(8 * scale))), model: f.word([]string{"m1", "m2", ""}[pick(3)]),
					tokens: model.Tokens{Input: int64(pick(4)), Output: int64(pick(3))}})
				l.usage = int32(len(f.usages))
			}
			for range pick(3) {
				f.uses = append(f.uses, toolUse{id: id(10 * scale), name: f.word([]string{"Bash", "Task"}[pick(2)]), subagent: f.word([]string{"", "Explore"}[pick(2)])})
				l.nUses++
			}
			for range pick(3) {
				r := toolResult{useID: id(10 * scale), text: f.word(texts[pick(len(texts))]), agentID: f.word([]string{"", "agent-a"}[pick(2)]),
					isError: pick(5) == 0, interrupted: pick(9) == 0}
				if pick(2) == 0 {
					r.durationMS, r.hasDuration = float64(pick(5000)), true
				}
				f.results = append(f.results, r)
				l.nResults++
			}
			if pick(4) == 0 {
				f.prompts = append(f.prompts, fmt.Sprint(" prompt ", pick(3)))
				l.prompt = int32(len(f.prompts))
			}
			f.lines, f.uuids = append(f.lines, l), append(f.uuids, uuid)
		}
		if pick(3) == 0 {
			f.quiet, f.first, f.last = true, at(), at()
		}
		frags = append(frags, &join.Fragment{Kind: join.FragmentClaude, Key: "s", Records: &sessionLog{claude: f}, Source: fmt.Sprint("file", i)})
	}
	return frags
}

func runByMaps(id string, fs []*join.Fragment, w jsonscan.Warner) *model.Run {
	r := &model.Run{ID: id, Format: "claudecode", Agent: "claude-code", Status: model.StatusUnknown}
	// Sized once: a long session's join is its peak of memory, and a map
	// or slice that grows holds its old and new arrays together.
	nLines, nUsages, nResults := 0, 0, 0
	for _, f := range fs {
		nLines, nUsages, nResults = nLines+len(logOf(f).claude.lines), nUsages+len(logOf(f).claude.usages), nResults+len(logOf(f).claude.results)
	}
	seen := make(map[reader.Digest]struct{}, nLines)
	usage := make(map[reader.Digest]entry, nUsages)
	main := make([]entry, 0, nLines)
	var side []entry
	var first, last time.Time
	quiet := false
	for _, f := range fs {
		cf := logOf(f).claude
		if cf.quiet {
			if !quiet || cf.first.Before(first) {
				first = cf.first
			}
			if !quiet || cf.last.After(last) {
				last = cf.last
			}
			quiet = true
			if r.Source == "" {
				r.Source = f.Source
			}
		}
		for i := range cf.lines {
			e := entry{cf, &cf.lines[i]}
			if uuid := cf.uuids[i]; uuid != (reader.Digest{}) {
				if _, dup := seen[uuid]; dup {
					continue
				}
				seen[uuid] = struct{}{}
			}
			if e.compaction() {
				r.Context.Compactions++
			}
			if u := e.usageOf(); u != nil {
				if prev, ok := usage[u.key]; !ok || u.tokens.Total() > prev.usageOf().tokens.Total() {
					usage[u.key] = e
				}
			}
			if e.sidechain() || e.agent != 0 {
				side = append(side, e)
			} else {
				main = append(main, e)
				if r.Source == "" {
					r.Source = f.Source
				}
			}
		}
	}
	if r.Source == "" && len(fs) > 0 {
		r.Source = fs[0].Source
	}
	byTime := func(a, b entry) int { return a.at().Compare(b.at()) }
	slices.SortStableFunc(main, byTime)

	// Tokens: once per message, requests in line order; the model with most tokens names the run.
	perModel := map[string]int64{}
	for _, f := range fs {
		for i := range logOf(f).claude.lines {
			e := entry{logOf(f).claude, &logOf(f).claude.lines[i]}
			if u := e.usageOf(); u != nil && usage[u.key].lineRecord == e.lineRecord {
				r.AddRequest(model.Request{Model: e.f.wordAt(u.model), At: e.at(), Tokens: u.tokens})
				perModel[e.f.wordAt(u.model)] += u.tokens.Total()
			}
		}
	}
	r.Model = reader.TopModel(perModel)
	files := make([]*fileSession, len(fs))
	for i, f := range fs {
		files[i] = logOf(f).claude
	}
	r.Project, r.Branch = sessionProject(files)

	// Subagent work: each sidechain agent's own calls and tokens; its type is
	// the subagent_type of the Task call whose result names the agent.
	taskType := map[reader.Digest]string{} // tool_use id → subagent_type
	for _, e := range main {
		for _, u := range e.uses() {
			if u.subagent != 0 {
				taskType[u.id] = e.f.wordAt(u.subagent)
			}
		}
	}
	agentType := map[string]string{}
	for _, e := range main {
		for _, res := range e.results() {
			if res.agentID != 0 && taskType[res.useID] != "" {
				agentType[e.f.wordAt(res.agentID)] = taskType[res.useID]
			}
		}
	}
	subs := map[string]*model.Subagent{}
	var subOrder []string
	for _, e := range side {
		id := e.agentID()
		s := subs[id]
		if s == nil {
			s = &model.Subagent{Type: cmp.Or(agentType[id], "subagent")}
			subs[id] = s
			subOrder = append(subOrder, id)
		}
		s.Calls += int64(e.nUses)
		if u := e.usageOf(); u != nil && usage[u.key].lineRecord == e.lineRecord {
			s.Tokens += u.tokens.Total()
			s.Requests = append(s.Requests, model.Request{Model: e.f.wordAt(u.model), At: e.at(), Tokens: u.tokens})
		}
	}
	slices.Sort(subOrder)
	for _, k := range subOrder {
		r.Context.Subagents = append(r.Context.Subagents, *subs[k])
	}

	// Tool calls of the main chain, paired with their results by id.
	type resultAt struct {
		res  *toolResult
		line *lineRecord
		f    *fileSession
	}
	results := make(map[reader.Digest]resultAt, nResults)
	calls := 0
	for _, e := range main {
		rs := e.results()
		for i := range rs {
			if _, dup := results[rs[i].useID]; !dup {
				results[rs[i].useID] = resultAt{&rs[i], e.lineRecord, e.f}
			}
		}
		calls += int(e.nUses)
	}
	usedIDs := make(map[reader.Digest]struct{}, calls)
	if calls > 0 {
		r.ToolCalls = make([]model.ToolCall, 0, calls) // a long session's calls are most of its memory: no regrowth
	}
	for _, e := range main {
		if r.Request == "" && e.prompt != 0 {
			r.Request = e.promptOf()
		}
		for _, u := range e.uses() {
			if _, dup := usedIDs[u.id]; dup && u.id != (reader.Digest{}) {
				continue
			}
			usedIDs[u.id] = struct{}{}
			call := model.ToolCall{Name: e.f.wordAt(u.name), Input: e.f.wordAt(u.input), Agent: r.Agent, Span: model.Span{Started: e.at()}}
			if got, ok := results[u.id]; ok {
				call.Span = reader.SpanOf(e.at(), entry{got.f, got.line}.at(), w)
				if got.res.hasDuration {
					call.HasDuration = false
					reader.SetDuration(&call.Span, jsonscan.Num{V: got.res.durationMS, Set: true}, w)
				}
				text := got.f.wordAt(got.res.text)
				switch {
				case got.res.interrupted:
					call.Outcome, call.Error = model.OutcomeCancelled, "interrupted"
				case strings.HasPrefix(text, "User rejected"):
					call.Outcome, call.Error = model.OutcomeCancelled, "rejected by the user"
				case got.res.isError || strings.HasPrefix(text, "Error"):
					call.Outcome, call.Error = model.OutcomeError, text
				default:
					call.Outcome = model.OutcomeOK
				}
			}
			r.ToolCalls = append(r.ToolCalls, call)
		}
	}
	if len(main) > 0 {
		if !quiet || main[0].at().Before(first) {
			first = main[0].at()
		}
		if !quiet || main[len(main)-1].at().After(last) {
			last = main[len(main)-1].at()
		}
		quiet = true
	}
	if quiet {
		r.Span = reader.SpanOf(first, last, w)
		r.Title = reader.ClipString(strings.TrimSpace(r.Request), 120)
	}
	if r.Title == "" {
		r.Title = id
	}
	return r
}

// sortIDKeys gives a single sort's order (bytes, then number) however the
// ids fall on the two sides of its split and into its buckets: evenly, all
// on one side, all in one bucket or a few, with repeats, all one id.
func TestSortIDKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	random := func() byte { return byte(rng.Uint32()) }
	same := func(b byte) func() byte { return func() byte { return b } }
	for _, tc := range []struct {
		n             int
		first, second func() byte // the top bytes of each id
		ids           int         // how many distinct ids
		low           bool        // ids differ in their last eight bytes only (and the top two)
	}{
		{100, random, random, 50, false},
		{50000, random, random, 25000, false},
		{50000, random, random, 50000, false},
		{50000, same(0x7f), random, 25000, false},
		{50000, func() byte { return 0x80 | byte(rng.IntN(2)) }, random, 25000, false},
		{50000, func() byte { return byte(rng.IntN(2)) << 7 }, random, 25000, false},
		{50000, random, same(3), 25000, false},                                   // one second-byte bucket each
		{50000, same(9), func() byte { return byte(rng.IntN(3)) }, 25000, false}, // buckets too large for insertion
		{50000, random, random, 300, false},                                      // many repeats of each id
		{50000, random, random, 3000, true},
		{20000, same(0), same(0), 1, false}, // one id (tool uses without one)
	} {
		ids := make([]reader.Digest, tc.ids)
		for i := range ids {
			ids[i] = reader.DigestOf(fmt.Sprint(i))
			if tc.ids == 1 {
				ids[i] = reader.Digest{}
			}
			if tc.low {
				clear(ids[i][2:8])
			}
			ids[i][0], ids[i][1] = tc.first(), tc.second()
		}
		keys := make([]idKey, tc.n)
		for i := range keys {
			keys[i] = idKey{keyOf(ids[rng.IntN(len(ids))]), int32(i)}
		}
		rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		want := slices.Clone(keys)
		slices.SortFunc(want, func(a, b idKey) int { return cmp.Or(bytes.Compare(a.id[:], b.id[:]), cmp.Compare(a.i, b.i)) })
		sortIDKeys(keys)
		if !slices.Equal(keys, want) {
			t.Fatalf("%d keys, %d ids: not in a single sort's order", tc.n, tc.ids)
		}
	}
}

// cmpKeyID orders ids as their bytes do, the last four too.
func TestCmpKeyID(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 10000 {
		var a, b keyID
		for i := range a {
			a[i], b[i] = byte(rng.IntN(3)), byte(rng.IntN(3))
		}
		if i := rng.IntN(13); i < 12 {
			copy(b[:i], a[:i]) // a common prefix, as long as the whole or longer than eight bytes
		}
		if got, want := cmpKeyID(&a, &b), bytes.Compare(a[:], b[:]); got != want {
			t.Fatalf("cmpKeyID(%x, %x) = %d, want %d", a, b, got, want)
		}
	}
}

// A session read back from the spill, in two halves with its uuids and
// usages dropped along the way, joins as it does in memory: made-up
// sessions with every kind of repeat, over several files.
func TestClaudeJoinSpilled(t *testing.T) {
	spill := formattest.Spill(t)
	for seed := range uint64(300) {
		mem := randomSession(rand.New(rand.NewPCG(seed, 7)), 1+int(seed%4))
		spilled := randomSession(rand.New(rand.NewPCG(seed, 7)), 1+int(seed%4))
		for _, f := range spilled {
			putRecords(spill, logOf(f))
			if logOf(f).spill == nil {
				t.Fatal("not spilled")
			}
		}
		if got, want, same := joinsAlike(mem, spilled); spill.Err() != nil || !same {
			t.Fatalf("seed %d: the spilled session joins otherwise (%v)\n%+v\nwant\n%+v", seed, spill.Err(), got, want)
		}
	}
}

// A line takes 40 bytes (a long session's lines are the bulk of its join),
// and its sidechain mark leaves its nanoseconds as they are.
func TestClaudeLineSize(t *testing.T) {
	if n := unsafe.Sizeof(lineRecord{}); n != 40 {
		t.Errorf("a line takes %d bytes, want 40", n)
	}
	for _, ns := range []int32{0, 1, 999_999_999} {
		l := lineRecord{nsec: ns}
		if l.sidechain() || l.nanos() != ns {
			t.Errorf("%d: sidechain %v, nanos %d", ns, l.sidechain(), l.nanos())
		}
		l.setSidechain()
		if !l.sidechain() || l.nanos() != ns {
			t.Errorf("%d marked: sidechain %v, nanos %d", ns, l.sidechain(), l.nanos())
		}
	}
}

// A record read back with more or fewer lines than its reference counts
// fails the spill (the run cannot be trusted), and the join goes on
// without reading past its tables.
func TestClaudeJoinSpillMiscounted(t *testing.T) {
	{
		for _, miscount := range []func(n int32) int32{
			func(int32) int32 { return 0 },           // none: the lines after it numbered as if it held none
			func(n int32) int32 { return n/2 + 1 },   // fewer
			func(n int32) int32 { return 2*n + 100 }, // more
		} {
			// A session of several files, the first's miscounted, so that the
			// others' lines are numbered wrong too.
			var fs []*join.Fragment
			for seed := uint64(1); len(fs) < 3 || len(logOf(fs[0]).claude.lines) < 200; seed++ {
				fs = randomSession(rand.New(rand.NewPCG(seed, 6)), 40)
			}
			spill := formattest.Spill(t) // its error is this session's
			for _, f := range fs {
				putRecords(spill, logOf(f))
			}
			logOf(fs[0]).refs[0].Tables[0] = miscount(logOf(fs[0]).refs[0].Tables[0])
			if r, calls := sessionRun("s", fs, formattest.NewCollector()); r == nil || calls == nil {
				t.Fatal("no run")
			}
			if !errors.Is(spill.Err(), recordspill.ErrCorrupt) {
				t.Errorf("lines miscounted: spill error %v", spill.Err())
			}
		}
	}
}

// A session whose records were damaged on disk (counts that still agree,
// indexes that do not) joins without a panic, and what it reads outside its tables fails the spill.
func TestClaudeJoinDamaged(t *testing.T) {
	defer func(m int) { join.SegmentLines = m }(join.SegmentLines)
	join.SegmentLines = 16
	rng := rand.New(rand.NewPCG(3, 4))
	failed := 0
	for seed := range uint64(200) {
		spill, d := formattest.SpillOnDisk(t) // its error is this session's
		fs := randomSession(rand.New(rand.NewPCG(seed, 5)), 3)
		spillInSegments(spill, fs)
		// Damage one line's fixed fields (past its uuid and time): the
		// indexes into the record's tables and the words.
		ref := logOf(fs[0]).refs[0]
		if len(logOf(fs[0]).refs) < 2 || ref.Tables[0] == 0 { // the first record, with no header before its tables
			continue
		}
		var counts []byte
		for _, n := range ref.Tables {
			counts = binary.AppendUvarint(counts, uint64(n))
		}
		for range 4 {
			line := rng.Int64N(int64(ref.Tables[0]))
			at := ref.Off + int64(len(counts)) + line*int64(lineBytes) + int64(len(reader.Digest{})) + 12 + rng.Int64N(7)*4
			d.WriteAt(binary.LittleEndian.AppendUint32(nil, rng.Uint32()), at)
		}
		if n := int64(ref.Tables[2]); n > 0 { // a use's name or subagent type
			at := ref.Off + int64(len(counts)) + int64(ref.Tables[0])*int64(lineBytes) + int64(ref.Tables[1])*int64(usageBytes) +
				rng.Int64N(n)*int64(len(reader.Digest{})+8) + int64(len(reader.Digest{})) + rng.Int64N(2)*4
			d.WriteAt(binary.LittleEndian.AppendUint32(nil, rng.Uint32()), at)
		}
		r, calls := sessionRun("s", fs, formattest.NewCollector())
		calls.Drain()
		if r == nil {
			t.Fatal("no run")
		}
		if spill.Err() != nil {
			failed++
		}
	}
	if failed < 100 {
		t.Errorf("only %d damaged sessions failed the spill", failed)
	}
}

// spillInSegments writes each fragment's records to spill as reading
// would: a segment every SegmentLines lines, the rest with the header.
func spillInSegments(spill *recordspill.File, fs []*join.Fragment) {
	for _, frag := range fs {
		f := logOf(frag).claude
		out := &fileSession{spill: spill, loc: f.loc, words: f.words, quiet: f.quiet, first: f.first, last: f.last}
		for i, l := range f.lines {
			uses, results := f.uses[l.usesLo:l.usesLo+l.nUses], f.results[l.resultsLo:l.resultsLo+l.nResults]
			l.usesLo, l.resultsLo = out.base.uses+int32(len(out.uses)), out.base.results+int32(len(out.results))
			out.uses, out.results = append(out.uses, uses...), append(out.results, results...)
			if l.usage != 0 {
				out.usages = append(out.usages, f.usages[l.usage-1])
				l.usage = out.base.usages + int32(len(out.usages))
			}
			if l.prompt != 0 {
				out.prompts = append(out.prompts, f.prompts[l.prompt-1])
				l.prompt = out.base.prompts + int32(len(out.prompts))
			}
			out.lines, out.uuids = append(out.lines, l), append(out.uuids, f.uuids[i])
			if len(out.lines) >= join.SegmentLines {
				flushTables(spill, out)
			}
		}
		logOf(frag).claude = out
		putRecords(spill, logOf(frag))
	}
}

// joinsAlike joins a session as mem holds it and as other does, and
// reports whether the runs (with their calls) and the warnings agree.
func joinsAlike(mem, other []*join.Fragment) (got, want *model.Run, same bool) {
	w1, w2 := formattest.NewCollector(), formattest.NewCollector()
	want, wantCalls := sessionRun("s", mem, w1)
	want.ToolCalls = wantCalls.All()
	got, gotCalls := sessionRun("s", other, w2)
	got.ToolCalls = gotCalls.All()
	return got, want, reflect.DeepEqual(got, want) && reflect.DeepEqual(w1.Warnings, w2.Warnings)
}

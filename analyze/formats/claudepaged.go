package formats

import (
	"bufio"
	"encoding/binary"
	"slices"
	"sort"
	"time"

	"github.com/agentstat/agentstat/analyze/model"
)

// A long session is joined from its records on the spill, a record (a
// page) at a time, never with its tables in memory: only its sort keys
// and a few bytes a line (marks, the chain's order, the pairing) are held.
// Its join is otherwise the peak of memory, and grows with the session (a
// 500 MB transcript's tables are ~25 MB); this way it holds ~6 MB. Each
// step reads the records again: in file order on both cores to count
// tokens and order the chain, then in chain order through a few cached
// pages to pair the calls and to make them. It gives what claudeRun
// gives (TestClaudeJoinPaged).

// pagedJoinSize is the size of a session's records from which its join
// reads them a page at a time (a variable for tests).
var pagedJoinSize int64 = longSession

// pageable reports whether a session is joined a page at a time: every
// record of it on the spill, pagedJoinSize or more of them.
func pageable(fs []*Fragment) bool {
	var size int64
	for _, f := range fs {
		if f.spill == nil || f.claude != nil || len(f.refs) == 0 {
			return false
		}
		size += f.recordSize()
	}
	return size >= pagedJoinSize
}

// pageRec is one record of a paged session.
type pageRec struct {
	spill  *RecordSpill
	ref    spillRef
	file   int32      // index of its fragment
	g      int32      // the number of its first line
	base   claudeBase // what the file's records before it hold: a line's indexes count those
	header bool       // it holds its file's header first (the last record of a file)
}

// claudePages is a session's records, read back a page at a time.
type claudePages struct {
	recs  []pageRec
	files []*claudeFile // each fragment's header: words, zone, the span of its quiet lines
	n     int32         // lines in all
	cache [pageCache]claudePage
	last  int // the page of the last entry
	tick  uint64
}

// pageCache is how many pages the chain's walks keep: a use's and its
// result's are most often the same or next to each other.
const pageCache = 4

type claudePage struct {
	rec  int // the record it holds, -1 for none
	f    claudeFile
	used uint64
}

func newClaudePages(fs []*Fragment) *claudePages {
	p := &claudePages{files: make([]*claudeFile, len(fs))}
	for i, frag := range fs {
		var base claudeBase
		for j, ref := range frag.refs {
			p.recs = append(p.recs, pageRec{spill: frag.spill, ref: ref, file: int32(i), g: p.n, base: base, header: j == len(frag.refs)-1})
			p.n += ref.tables[0]
			base.usages += ref.tables[1]
			base.uses += ref.tables[2]
			base.results += ref.tables[3]
			base.prompts += ref.tables[4]
		}
		p.files[i] = frag.spill.header(frag.refs[len(frag.refs)-1])
	}
	for i := range p.cache {
		p.cache[i].rec = -1
	}
	return p
}

// header reads a file's header from the record that holds it (its last).
func (s *RecordSpill) header(ref spillRef) *claudeFile {
	r, f := s.reader(ref), &claudeFile{}
	decodeHeader(r, f, s.loc)
	if r.err != nil {
		s.fail(r.err)
	}
	r.release()
	return f
}

// load reads record i's tables of keep into cf, its indexes made its own.
func (p *claudePages) load(i int, cf *claudeFile, keep tableSet) {
	rec := &p.recs[i]
	clear(cf.prompts)
	cf.lines, cf.usages, cf.uses, cf.results, cf.prompts = cf.lines[:0], cf.usages[:0], cf.uses[:0], cf.results[:0], cf.prompts[:0]
	var header *claudeFile
	if rec.header {
		header = &claudeFile{} // read past: the file's is p.files'
	}
	rec.spill.readInto(rec.ref, header, cf, keep)
	file := p.files[rec.file]
	cf.words, cf.loc = file.words, file.loc
	if !rebase(rec, cf, keep) {
		rec.spill.fail(errSpillCorrupt)
	}
}

// rebase makes the indexes of a record's lines count its own tables alone,
// and holds it to the lines its reference counts. Whatever falls outside
// its tables is dropped (false): the spill has failed then, and the join
// must still stay in bounds.
func rebase(rec *pageRec, cf *claudeFile, keep tableSet) bool {
	ok := len(cf.lines) == int(rec.ref.tables[0])
	if n := int(rec.ref.tables[0]); len(cf.lines) > n {
		cf.lines = cf.lines[:n]
	} else {
		for len(cf.lines) < n {
			cf.lines = append(cf.lines, claudeLine{})
		}
	}
	b := rec.base
	for i := range cf.lines {
		l := &cf.lines[i]
		// The counts bound what the passes without uses and results add up.
		if !within(0, l.nUses, int(rec.ref.tables[2])) || !within(0, l.nResults, int(rec.ref.tables[3])) {
			*l = claudeLine{sec: l.sec, nsec: l.nsec}
			ok = false
		}
		switch {
		case keep&noUsages != 0:
			l.usage = 0 // not read
		case l.usage != 0:
			l.usage -= b.usages
		}
		if keep&usesAndResults != 0 {
			if l.prompt != 0 {
				l.prompt -= b.prompts
			}
			l.usesLo -= b.uses
			l.resultsLo -= b.results
		}
	}
	return checkTables(cf, keep) && ok
}

// checkTables holds the indexes of cf's tables of keep (read back from a
// spill) to those tables: one outside is dropped (a line keeps only its
// time), and false says the spill is damaged. Nothing else bounds them, and
// the join must not crash on a disk's fault.
func checkTables(cf *claudeFile, keep tableSet) bool {
	ok := true
	words := int32(len(cf.words))
	word := func(i *int32) bool {
		if *i != 0 && (*i < 0 || *i >= words) {
			*i = 0
			return false
		}
		return true
	}
	for i := range cf.lines {
		l := &cf.lines[i]
		good := word(&l.agent)
		if keep&linesAndUsages != 0 && l.usage != 0 {
			good = good && within(l.usage-1, 1, len(cf.usages))
		}
		if keep&usesAndResults != 0 {
			good = good && (l.prompt == 0 || within(l.prompt-1, 1, len(cf.prompts))) &&
				within(l.usesLo, l.nUses, len(cf.uses)) && within(l.resultsLo, l.nResults, len(cf.results))
		}
		if !good {
			*l = claudeLine{sec: l.sec, nsec: l.nsec}
			ok = false
		}
	}
	for i := range cf.usages {
		ok = word(&cf.usages[i].model) && ok
	}
	for i := range cf.uses {
		ok = word(&cf.uses[i].name) && word(&cf.uses[i].subagent) && word(&cf.uses[i].input) && ok
	}
	for i := range cf.results {
		ok = word(&cf.results[i].text) && word(&cf.results[i].agentID) && ok
	}
	return ok
}

// within reports whether [lo, lo+n) lies in a table of size entries.
func within(lo, n int32, size int) bool { return lo >= 0 && n >= 0 && int(lo)+int(n) <= size }

// lines is how many lines record i holds.
func (p *claudePages) lines(i int) int32 { return p.recs[i].ref.tables[0] }

// entry is line g, from the cached page that holds it, read if none does.
// It stays valid while the next pageCache-1 entries are taken.
func (p *claudePages) entry(g int32) claudeEntry {
	pg := &p.cache[p.last]
	if pg.rec < 0 || g < p.recs[pg.rec].g || g >= p.recs[pg.rec].g+p.lines(pg.rec) {
		pg = p.page(p.recOf(g))
	}
	p.tick++
	pg.used = p.tick
	return claudeEntry{&pg.f, &pg.f.lines[g-p.recs[pg.rec].g]}
}

// recOf is the index of the record that holds line g.
func (p *claudePages) recOf(g int32) int {
	return sort.Search(len(p.recs), func(i int) bool { return p.recs[i].g+p.lines(i) > g })
}

// page is the cached page of record i, read into the least recently used.
func (p *claudePages) page(i int) *claudePage {
	lru := 0
	for k := range p.cache {
		if p.cache[k].rec == i {
			p.last = k
			return &p.cache[k]
		}
		if p.cache[k].used < p.cache[lru].used {
			lru = k
		}
	}
	pg := &p.cache[lru]
	p.load(i, &pg.f, allTables|noUsages)
	pg.rec, p.last = i, lru
	return pg
}

// each runs f on every record of keep, in file order on both cores: half
// is 0 for the first half's records, 1 for the second's, so that each
// half keeps its own sums.
func (p *claudePages) each(keep tableSet, f func(half, rec int, cf *claudeFile)) {
	bothHalves(int(p.n), len(p.recs), func(lo, hi int) {
		half := 0
		if lo > 0 {
			half = 1
		}
		var cf claudeFile
		for i := lo; i < hi; i++ {
			p.load(i, &cf, keep)
			f(half, i, &cf)
		}
	})
}

// countedUsages marks the lines whose usage counts: once per message, the
// largest copy (the first of equals), among lines that are no repeat.
func (p *claudePages) countedUsages(repeated bitset) bitset {
	room := make([]int, len(p.recs)+1) // room[i]: the usages of the records before i
	for i, rec := range p.recs {
		room[i+1] = room[i] + int(rec.ref.tables[1])
	}
	keys, totals, lineOf := make([]idKey, room[len(p.recs)]), make([]int64, room[len(p.recs)]), make([]int32, room[len(p.recs)])
	got := make([]int, len(p.recs))
	p.each(linesAndUsages, func(_, i int, cf *claudeFile) {
		k := room[i]
		for j := range cf.lines {
			l, g := &cf.lines[j], p.recs[i].g+int32(j)
			if l.usage == 0 || repeated.has(g) {
				continue
			}
			if k == room[i+1] { // more than it holds: lines share a usage
				p.recs[i].spill.fail(errSpillCorrupt)
				break
			}
			u := &cf.usages[l.usage-1]
			keys[k], totals[k], lineOf[k] = idKey{id: keyOf(u.key)}, u.tokens.Total(), g
			k++
		}
		got[i] = k - room[i]
	})
	n := 0 // numbered in line order: the first of equals is the first key
	for i := range p.recs {
		for k := room[i]; k < room[i]+got[i]; k++ {
			keys[n], totals[n], lineOf[n] = idKey{keys[k].id, int32(n)}, totals[k], lineOf[k]
			n++
		}
	}
	keys = keys[:n]
	sortIDKeys(keys)
	counted := newBitset(p.n)
	markLargest(keys, func(k int32) int64 { return totals[k] }, func(k int32) { counted.set(lineOf[k]) })
	return counted
}

// pagedTally is what one half of a session's records count.
type pagedTally struct {
	compactions int64
	byModel     map[int32][]int64 // by file, then by index in its words
	seen        map[int32]bitset  // the models of byModel counted
	subs        map[string]*model.Subagent
	mainFile    int32 // the first file with a line of the main chain, len(files) for none
	uses        int   // the main chain's uses and results
	results     int
}

// tally counts the tokens of the counted usages, the subagents' calls and
// tokens, and keys the main chain's lines by time (byTime, in line order).
// Each counted usage becomes its request in requests, in line order: each
// record's requests have their place reserved (a long session has 100,000).
func (p *claudePages) tally(repeated, counted bitset, requests []model.Request) (t [2]pagedTally, byTime []timeKey) {
	reqAt := make([]int, len(p.recs)) // the place of each record's first request
	for i, n := 1, 0; i < len(p.recs); i++ {
		n += counted.count(p.recs[i-1].g, p.recs[i].g)
		reqAt[i] = n
	}
	byTime = make([]timeKey, p.n)
	got := make([]int32, len(p.recs))
	for h := range t {
		t[h] = pagedTally{byModel: map[int32][]int64{}, seen: map[int32]bitset{}, subs: map[string]*model.Subagent{}, mainFile: int32(len(p.files))}
	}
	p.each(linesAndUsages, func(half, i int, cf *claudeFile) {
		rec, tl := &p.recs[i], &t[half]
		k, q := rec.g, reqAt[i]
		for j := range cf.lines {
			l, g := &cf.lines[j], rec.g+int32(j)
			if repeated.has(g) {
				continue
			}
			side := l.sidechain() || l.agent != 0
			if l.compaction() {
				tl.compactions++
			}
			var tokens int64
			var req *model.Request // the request the line stands for, if it counts
			if counted.has(g) && l.usage != 0 {
				u := &cf.usages[l.usage-1]
				at := time.Unix(l.sec, int64(l.nanos())).In(p.files[rec.file].loc)
				requests[q] = model.Request{Model: cf.wordAt(u.model), At: at, Tokens: u.tokens}
				req = &requests[q]
				q++
				tokens = u.tokens.Total()
				byModel := tl.byModel[rec.file]
				if byModel == nil {
					byModel = make([]int64, max(len(cf.words), 1))
					tl.byModel[rec.file], tl.seen[rec.file] = byModel, newBitset(int32(len(byModel)))
				}
				byModel[u.model] += tokens
				tl.seen[rec.file].set(u.model)
			}
			if side {
				id := cf.wordAt(l.agent)
				sub := tl.subs[id]
				if sub == nil {
					sub = &model.Subagent{}
					tl.subs[id] = sub
				}
				sub.Calls += int64(l.nUses)
				sub.Tokens += tokens
				if req != nil {
					sub.Requests = append(sub.Requests, *req)
				}
				continue
			}
			byTime[k] = timeKey{l.sec, l.nanos(), g}
			k++
			tl.mainFile = min(tl.mainFile, rec.file)
			tl.uses += int(l.nUses)
			tl.results += int(l.nResults)
		}
		got[i] = k - rec.g
	})
	n := 0
	for i, rec := range p.recs {
		n += copy(byTime[n:], byTime[rec.g:rec.g+got[i]])
	}
	return t, byTime[:n]
}

// claudePagedRun is claudeRun for a session read a page at a time.
func claudePagedRun(id string, fs []*Fragment, w Warner) (*model.Run, *CallParts) {
	r := &model.Run{ID: id, Format: "claudecode", Agent: "claude-code", Status: model.StatusUnknown}
	p := newClaudePages(fs)
	start := make([]int32, len(fs)+1)
	for i, f := range fs {
		start[i+1] = start[i] + f.lineCount()
	}
	repeated := repeatedLines(fs, start)
	counted := p.countedUsages(repeated)
	if c := counted.count(0, p.n); c > 0 {
		r.Requests = make([]model.Request, c)
	}
	halves, byTime := p.tally(repeated, counted, r.Requests)
	for _, q := range r.Requests {
		r.Tokens.Add(q.Tokens)
	}

	perModel := map[string]int64{}
	subs := map[string]*model.Subagent{}
	mainFile, uses, results := int32(len(fs)), 0, 0
	for _, t := range halves {
		uses, results = uses+t.uses, results+t.results
		r.Context.Compactions += t.compactions
		for file, byModel := range t.byModel {
			for m, n := range byModel {
				if t.seen[file].has(int32(m)) {
					perModel[p.files[file].wordAt(int32(m))] += n
				}
			}
		}
		for agent, s := range t.subs {
			if sub := subs[agent]; sub != nil {
				sub.Calls += s.Calls
				sub.Tokens += s.Tokens
				sub.Requests = append(sub.Requests, s.Requests...)
			} else {
				subs[agent] = s
			}
		}
		mainFile = min(mainFile, t.mainFile)
	}
	r.Model = topModel(perModel)
	r.Project, r.Branch = sessionProject(p.files)

	var first, last time.Time
	quiet := false
	for i, cf := range p.files {
		if cf.quiet {
			quiet = stretchSpan(&first, &last, quiet, cf.first, cf.last)
			mainFile = min(mainFile, int32(i))
		}
	}
	r.Source = fs[0].Source
	if int(mainFile) < len(fs) {
		r.Source = fs[mainFile].Source
	}

	// In time order, equal times in file order.
	slices.SortFunc(byTime, cmpTimeKey)
	if p.scattered(byTime) {
		return claudeMemRun(id, fs, w)
	}
	main := make([]int32, len(byTime))
	for i, k := range byTime {
		main[i] = k.g
	}
	if len(byTime) > 0 {
		at := func(k timeKey) time.Time {
			return time.Unix(k.sec, int64(k.nsec)).In(p.files[p.recs[p.recOf(k.g)].file].loc)
		}
		quiet = stretchSpan(&first, &last, quiet, at(byTime[0]), at(byTime[len(byTime)-1]))
	}
	byTime = nil

	// The chain's uses and results, by id for the pairing; the subagents'
	// types (Task calls whose result names an agent); the first prompt.
	spill := p.recs[0].spill
	useIDs, resultIDs := &keyBlocks{spill: spill}, &keyBlocks{spill: spill}
	resultRefs := make([]claudeRef, 0, results)
	type agentResult struct {
		agent string
		useID digest
	}
	var agentResults []agentResult
	taskType := map[digest]string{} // tool_use id → subagent_type
	prompted := false
	for pos, g := range main {
		e := p.entry(g)
		for _, u := range e.uses() {
			useIDs.add(idKey{keyOf(u.id), int32(useIDs.n)})
			if u.subagent != 0 {
				taskType[u.id] = e.f.wordAt(u.subagent)
			}
		}
		for k, res := range e.results() {
			resultIDs.add(idKey{keyOf(res.useID), int32(resultIDs.n)})
			resultRefs = append(resultRefs, claudeRef{int32(pos), int32(k)})
			if res.agentID != 0 {
				agentResults = append(agentResults, agentResult{e.f.wordAt(res.agentID), res.useID})
			}
		}
		if !prompted && e.prompt != 0 {
			r.Request, prompted = e.promptOf(), true
		}
	}
	agentType := map[string]string{}
	for _, a := range agentResults {
		if t := taskType[a.useID]; t != "" {
			agentType[a.agent] = t
		}
	}
	subOrder := make([]string, 0, len(subs))
	for agent := range subs {
		subOrder = append(subOrder, agent)
	}
	slices.Sort(subOrder)
	for _, agent := range subOrder {
		sub := subs[agent]
		sub.Type = cmpOr(agentType[agent], "subagent")
		r.Context.Subagents = append(r.Context.Subagents, *sub)
	}

	spanAndTitle(r, first, last, quiet, w)
	if useIDs.n == 0 {
		return r, &CallParts{}
	}
	paired := make([]int32, useIDs.n)
	kept := 0
	for part := range keyParts { // ids of different parts never pair
		kept += pairUses(useIDs.part(part), resultIDs.part(part), paired)
	}
	useIDs, resultIDs = nil, nil

	// The calls in chain order, as they are taken (partsOf takes the uses
	// in order): pos and k are the next use's.
	pos, k := 0, int32(0)
	return r, partsOf(kept, len(paired), func(i int) (model.ToolCall, bool) {
		e := p.entry(main[pos])
		for k >= e.nUses {
			pos, k = pos+1, 0
			e = p.entry(main[pos])
		}
		k++
		if paired[i] < 0 {
			return model.ToolCall{}, false
		}
		if paired[i] == 0 {
			return claudeCallOf(e, k-1, claudeEntry{}, 0, r.Agent, w), true
		}
		got := resultRefs[paired[i]-1]
		return claudeCallOf(e, k-1, p.entry(main[got.pos]), got.k, r.Agent, w), true
	})
}

// scattered reports whether the chain, in time order, moves between records
// more than a few times per record: its lines' times interleave in file
// order (several writers, a resumed session, a clock set back). The walks
// in chain order would then read a page for almost every line (time
// quadratic in the session's size), so such a session is
// joined in memory, in time linear in its lines, its tables held whole
// (about a twentieth of its size).
func (p *claudePages) scattered(byTime []timeKey) bool {
	moves, last := 0, -1
	for _, k := range byTime {
		if last >= 0 && k.g >= p.recs[last].g && k.g < p.recs[last].g+p.lines(last) {
			continue
		}
		last = p.recOf(k.g)
		if moves++; moves > 4*len(p.recs)+16 {
			return true
		}
	}
	return false
}

// keyBlocks is the keys of a long session's uses, or of its results, as the
// chain's walk makes them, in four parts by id: each part is written to the
// spill a block at a time and read back alone, so that the pairing holds a
// quarter of the keys rather than all. Together they were the peak of the
// long session's join (4 MB for the 500 MB transcript).
type keyBlocks struct {
	spill *RecordSpill
	n     int
	parts [keyParts]keyPart
}

// keyPart is the keys of one part: full blocks, on the spill or in memory
// if they could not be written, and the block being filled.
type keyPart struct {
	n      int
	blocks []keyBlock
	last   []idKey
}

type keyBlock struct {
	ref  spillRef
	keys []idKey
}

const (
	keyParts      = 4
	keyBlockBytes = len(keyID{}) + 4
)

// keyBlockKeys is how many keys a block holds (a variable for tests).
var keyBlockKeys = 1024

// partOf is the part of k: the top two bits of its id.
func partOf(k *idKey) int { return int(k.id[0] >> 6) }

func (b *keyBlocks) add(k idKey) {
	p := &b.parts[partOf(&k)]
	if p.last == nil {
		p.last = make([]idKey, 0, keyBlockKeys)
	}
	p.last = append(p.last, k)
	p.n++
	b.n++
	if len(p.last) == keyBlockKeys {
		b.put(p)
	}
}

// put writes p's last block to the spill, or keeps it if that fails.
func (b *keyBlocks) put(p *keyPart) {
	ref, ok := b.spill.write(func(w *bufio.Writer) {
		var rec [keyBlockBytes]byte
		for _, k := range p.last {
			copy(rec[:], k.id[:])
			binary.LittleEndian.PutUint32(rec[len(keyID{}):], uint32(k.i))
			w.Write(rec[:])
		}
	})
	if !ok {
		p.blocks = append(p.blocks, keyBlock{keys: p.last})
		p.last = nil
		return
	}
	p.blocks = append(p.blocks, keyBlock{ref: ref})
	p.last = p.last[:0]
}

// part is the keys of part i, in the order they were added.
func (b *keyBlocks) part(i int) []idKey {
	p := &b.parts[i]
	keys := make([]idKey, 0, p.n)
	keep := func(k idKey) {
		if partOf(&k) != i || k.i < 0 || int(k.i) >= b.n || len(keys) == p.n {
			b.spill.fail(errSpillCorrupt) // the pairing stays in bounds
			return
		}
		keys = append(keys, k)
	}
	var buf []byte
	for _, blk := range p.blocks {
		if blk.keys != nil {
			for _, k := range blk.keys {
				keep(k)
			}
			continue
		}
		// Read directly, not through the spill's window: the other joins
		// read through it meanwhile.
		buf = slices.Grow(buf[:0], int(blk.ref.n))[:blk.ref.n]
		if n, _ := b.spill.f.ReadAt(buf, blk.ref.off); n < len(buf) || len(buf)%keyBlockBytes != 0 {
			b.spill.fail(errSpillCorrupt)
			continue
		}
		for rec := range slices.Chunk(buf, keyBlockBytes) {
			keep(idKey{keyID(rec[:len(keyID{})]), int32(binary.LittleEndian.Uint32(rec[len(keyID{}):]))})
		}
	}
	for _, k := range p.last {
		keep(k)
	}
	p.blocks, p.last = nil, nil
	return keys
}

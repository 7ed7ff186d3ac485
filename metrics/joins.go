package metrics

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/join"
	"github.com/agentstat/agentstat/logformat"
	"github.com/agentstat/agentstat/model"
)

// The cross-file joins, run once every file is read, their runs folded as
// they come.

// waiting is what waits for the cross-file joins: the fragments read, the
// files that yielded nothing else (whose fate the join decides), and the
// spill their records are on. A partial carries it, so that merge joins
// the records of every shard as one pass joins them.
type waiting struct {
	frags   []*join.Fragment
	pending []string
	records *recordspill.File
}

// Join resolves the records waiting for a cross-file join into runs and
// folds those the scope keeps (with their details, when kept): once every
// file is read, or once every partial is merged.
func (a *Accumulator) Join() error {
	w := a.waiting
	if w == nil {
		return nil
	}
	a.waiting = nil
	defer w.records.Close()
	slices.Sort(w.pending)
	w.pending = slices.Compact(w.pending) // each source once, in order
	if a.spill != nil {
		// Runs joined from fragments go to spill files of their own.
		dw, err := a.spill.writer()
		if err != nil {
			return err
		}
		a.details = dw
	}
	err := joinFragments(a, w.frags, w.pending, a.spill)
	if err == nil {
		if err = w.records.Err(); err != nil {
			err = fmt.Errorf("record spill: %w", err)
		}
	}
	if a.details != nil {
		if cerr := a.details.close(); cerr != nil && err == nil {
			err = fmt.Errorf("run details: %w", cerr)
		}
		a.details = nil
	}
	return err
}

// Close removes the run details and the records waiting for a join.
func (a *Accumulator) Close() error {
	var err error
	if a.waiting != nil {
		err = a.waiting.records.Close()
		a.waiting = nil
	}
	return errors.Join(err, a.spill.Close())
}

// joinFragments resolves records spread over files (planagent records,
// Claude Code transcript entries) into runs. A file that held only
// fragments counts as parsed when one fed or joined a kept run, as filtered
// when its runs all fell outside the window, else it is an orphan.
func joinFragments(acc *Accumulator, frags []*join.Fragment, pending []string, details *Details) error {
	if len(frags) == 0 {
		return nil
	}
	// Joined runs are folded as the join completes them, a chunk at a
	// time, rather than held to the end with all their calls (memory grew
	// with every session joined). The accumulator does not mind the order,
	// but the run details do: joined runs come after every file's runs, in
	// an order of their own (compareJoined), so that any split of the files
	// into shards spills them alike. Each chunk is sorted and spilled to a
	// file of its own, and the details' merge orders the chunks' runs.
	// What each file's joined runs came to is counted as they are folded,
	// rather than from the runs kept to the end for it (~500 bytes each).
	const filtered, parsed = 1, 2 // 0: an orphan
	type fate struct {
		fate    int
		formats []string // of the kept runs it fed
	}
	fates := map[string]fate{}
	folded := func(r *model.Run, from []*join.Fragment, kept bool) {
		for _, f := range from {
			x := fates[f.Source]
			x.fate = max(x.fate, filtered)
			if kept {
				x.fate = parsed
				if !slices.Contains(x.formats, r.Format) {
					x.formats = append(x.formats, r.Format)
				}
			}
			fates[f.Source] = x
		}
	}
	type joined struct {
		r    *model.Run
		from []*join.Fragment
	}
	var chunk []joined
	calls := 0
	written := false // acc.details holds runs: the next chunk goes to a file of its own
	var err error
	nextFile := func() {
		if !written || acc.details == nil || err != nil {
			return
		}
		written = false
		if err = acc.details.close(); err == nil {
			acc.details, err = details.writer()
		}
	}
	flush := func() {
		if len(chunk) == 0 || err != nil {
			return
		}
		nextFile()
		slices.SortStableFunc(chunk, func(a, b joined) int { return compareJoined(a.r, b.r) })
		for _, j := range chunk {
			kept := acc.scope.Keeps(j.r)
			folded(j.r, j.from, kept)
			if kept {
				acc.addKept(j.r, nil, false)
			} else {
				acc.RunsFiltered++
			}
			*j.r = model.Run{} // folded: what it holds goes now, though the join may still point at it
		}
		written = true
		clear(chunk)
		chunk, calls = chunk[:0], 0
	}
	add := func(r *model.Run, from []*join.Fragment) {
		// After every file's runs; each joined run has a source of its own, so Seq 0
		// keeps its page name stable, and its chunk's sort and the details' merge
		// put it in compareJoined order.
		r.FileOrd = joinedOrd
		chunk = append(chunk, joined{r, from})
		// Without details nothing needs the order: each run is folded at once.
		if calls += 1 + len(r.ToolCalls); calls >= joinedChunk || acc.details == nil {
			flush()
		}
	}
	// A session with a chunk's worth of calls or more (joinAside makes the
	// others' calls) is folded and spilled on its own, a part of its calls
	// at a time, in a file of its own: a long session's calls were the peak
	// of memory.
	addParts := func(r *model.Run, parts *model.CallParts, from []*join.Fragment) {
		r.FileOrd = joinedOrd
		if err != nil {
			return
		}
		kept := acc.scope.Keeps(r)
		folded(r, from, kept)
		if !kept {
			acc.RunsFiltered++
			return
		}
		nextFile()
		acc.addKept(r, parts, true) // the join waits for it: its core is free
		written = true
		*r = model.Run{}
	}
	joinAside(frags, acc, add, addParts)
	flush()
	if err != nil {
		return fmt.Errorf("run details: %w", err)
	}
	for _, src := range pending {
		switch fates[src].fate {
		case parsed:
			acc.FilesParsed++
			for _, format := range fates[src].formats {
				acc.FilesByFormat[format]++
			}
		case filtered:
			acc.FilesFiltered++
		default: // it fed no run
			acc.skip(src, logformat.ReasonOrphan, "no plan in the scanned tree names it")
		}
	}
	return nil
}

// joinAside runs the join on a goroutine of its own and hands its runs to
// add and addParts on this one, in the join's order: the fold of a run (and
// its details' spill) overlaps the join of the next, where the join's tail
// was one core's work. A session of fewer calls than a chunk holds comes
// with its calls made; a longer one comes in parts, which hold the join
// until they are folded, since they are made from records the join then
// drops. The join's warnings are counted apart and added at the end.
func joinAside(frags []*join.Fragment, acc *Accumulator, add func(*model.Run, []*join.Fragment), addParts func(*model.Run, *model.CallParts, []*join.Fragment)) {
	type joinedRun struct {
		r     *model.Run
		from  []*join.Fragment
		parts *model.CallParts
		taken chan struct{} // closed once the parts are folded
	}
	runs := make(chan joinedRun, 256)
	handed := newCallBudget() // bounds the calls handed over and not taken yet
	warns := &lockedWarnings{counts: map[string]int64{}}
	go func() {
		defer close(runs)
		emit := func(r *model.Run, from []*join.Fragment) {
			handed.take(1 + len(r.ToolCalls))
			runs <- joinedRun{r: r, from: from}
		}
		join.JoinEach(frags, warns, emit, func(r *model.Run, parts *model.CallParts, from []*join.Fragment) {
			if parts.N < joinedChunk {
				r.ToolCalls = parts.All()
				emit(r, from)
				return
			}
			taken := make(chan struct{})
			runs <- joinedRun{r, from, parts, taken}
			<-taken
		})
	}()
	for j := range runs {
		if j.parts != nil {
			addParts(j.r, j.parts, j.from)
			close(j.taken)
			continue
		}
		n := 1 + len(j.r.ToolCalls)
		add(j.r, j.from)
		handed.give(n)
	}
	addCounts(acc.Warnings, warns.counts)
}

// callBudget bounds how many calls a producer has handed over and the
// consumer not taken in yet to a chunk's worth (one larger run alone).
type callBudget struct {
	mu   sync.Mutex
	cond sync.Cond
	n    int
}

func newCallBudget() *callBudget {
	b := &callBudget{}
	b.cond.L = &b.mu
	return b
}

func (b *callBudget) take(n int) {
	b.mu.Lock()
	for b.n > 0 && b.n+n > joinedChunk {
		b.cond.Wait()
	}
	b.n += n
	b.mu.Unlock()
}

func (b *callBudget) give(n int) {
	b.mu.Lock()
	b.n -= n
	b.mu.Unlock()
	b.cond.Signal()
}

// lockedWarnings counts warnings raised on more than one goroutine.
type lockedWarnings struct {
	mu     sync.Mutex
	counts map[string]int64
}

func (w *lockedWarnings) Warn(kind string) {
	w.mu.Lock()
	w.counts[kind]++
	w.mu.Unlock()
}

// joinedChunk is how many joined runs and calls are folded and spilled
// together (a variable for tests): about a MB of calls. The chunk waiting
// to be spilled was the join's peak of memory at 32,768 (46 MiB of RSS
// for the workbook alone at 1 GB of logs, 40 at 8,192); each chunk is a
// spill file, a stream in each merge of the details (11 files at 1 GB).
var joinedChunk = 1 << 13

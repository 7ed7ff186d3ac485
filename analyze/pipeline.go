// Package analyze turns directories of agent logs into a Report: it
// discovers files, reads each with the reader of its format, folds the runs
// into mergeable accumulators (one per worker) and finalizes the figures of
// docs/metrics.md.
package analyze

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentstat/agentstat/discover"
	"github.com/agentstat/agentstat/logformat"
	"github.com/agentstat/agentstat/model"
	"github.com/agentstat/agentstat/pricing"
)

// DefaultMaxFileSize is the default --max-file-size: larger files (after
// decompression) are skipped as too large.
const DefaultMaxFileSize int64 = 1 << 30

// Options say what to read and how.
type Options struct {
	Roots            []string
	Include, Exclude []string       // doublestar globs on the relative path or the base name
	Since, Until     time.Time      // content-time window [Since, Until); zero = open
	Location         *time.Location // --tz: dates, and timestamps written without a zone
	Jobs             int            // parallel readers; 0 = GOMAXPROCS
	MaxFileSize      int64          // 0 = DefaultMaxFileSize
	Now              time.Time      // the report's generated_at
	Title            string
	KeepDetails      bool // spill every kept run for per-run pages (Report.Details)
	KeepSecrets      bool // do not redact values that look like credentials (--no-redact)
	NoText           bool // keep numbers and names only: no prompt, title, step name, task or error text (--no-text)
	NoIndex          bool // no per-run index (Report.Runs is nil): only HTML and the workbook list runs
	Shard            discover.Shard
	Project          string         // keep only the runs of this project (ProjectOf)
	Prices           *pricing.Table // nil: the built-in table
	Progress         *Progress      // counted into when set

	records *logformat.RecordSpill // Claude Code records until their join (set by Accumulate)
}

// ErrNoInput means nothing could be read: no log file under the roots.
var ErrNoInput = errors.New("no log files found")

func (o *Options) defaults() {
	if o.Location == nil {
		o.Location = time.UTC
	}
	if o.Jobs <= 0 {
		o.Jobs = runtime.GOMAXPROCS(0)
	}
	if o.MaxFileSize <= 0 {
		o.MaxFileSize = DefaultMaxFileSize
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
}

// Analyze reads every log file under the roots and returns the report.
func Analyze(ctx context.Context, opt Options) (*Report, error) {
	acc, err := Accumulate(ctx, opt)
	if err != nil {
		return nil, err
	}
	opt.defaults()
	return acc.Report(opt), nil
}

// Report finalizes the accumulated figures into a report.
func (a *Accumulator) Report(opt Options) *Report {
	opt.defaults()
	s := a.Summary()
	s.GeneratedAt = generatedAt(opt.Now, opt.Location)
	if !opt.Since.IsZero() || !opt.Until.IsZero() || opt.Project != "" {
		s.Window = &Window{Project: opt.Project}
		if !opt.Since.IsZero() {
			s.Window.Since = opt.Since.In(opt.Location).Format(time.RFC3339)
		}
		if !opt.Until.IsZero() {
			s.Window.Until = opt.Until.In(opt.Location).Format(time.RFC3339)
		}
	}
	return &Report{Summary: s, Runs: a.RunIndex(), Title: opt.Title, Location: opt.Location, Details: a.spill, Prices: a.prices,
		ToolDetails: a.toolDetails(s.Tools[:min(len(s.Tools), MaxToolPages)])}
}

// Accumulate reads every file with opt.Jobs workers, each folding into its
// own accumulator, and returns their merge with the cross-file joins applied.
func Accumulate(ctx context.Context, opt Options) (*Accumulator, error) {
	opt.defaults()
	var details *Details
	if opt.KeepDetails {
		details = new(Details)
	}
	// Without a writable temporary directory (a read-only sandbox) records stay in memory.
	records, _ := logformat.NewRecordSpill(opt.Location)
	defer records.Close()
	opt.records = records
	fail := func(err error) (*Accumulator, error) {
		details.Close()
		return nil, err
	}
	// Everything that can fail is set up before any goroutine starts.
	workers := make([]*worker, opt.Jobs)
	for i := range workers {
		w := &worker{opt: &opt, acc: NewAccumulator(opt.Location, opt.Prices)}
		w.acc.keepSecrets, w.acc.noIndex, w.acc.noText = opt.KeepSecrets, opt.NoIndex, opt.NoText
		if details != nil {
			dw, err := details.writer()
			if err != nil {
				return fail(err)
			}
			w.acc.details = dw
		}
		workers[i] = w
	}

	files := make(chan discover.File, 256)
	discovered := make(chan discovery, 1) // discovery's verdict, received only once it is final
	go func() {
		do := discover.Options{Roots: opt.Roots, Include: opt.Include, Exclude: opt.Exclude, Shard: opt.Shard}
		if opt.Progress != nil {
			do.Found = &opt.Progress.Found
		}
		n, err := discover.Walk(ctx, do, files)
		discovered <- discovery{n, err}
	}()
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range files {
				if ctx.Err() != nil {
					continue // drain so that discovery can finish
				}
				w.file(c)
			}
		}()
	}
	wg.Wait()
	found := <-discovered
	discoverErr := found.err
	for _, w := range workers {
		if w.acc.details != nil {
			if err := w.acc.details.close(); err != nil {
				return fail(fmt.Errorf("run details: %w", err))
			}
		}
	}
	if discoverErr != nil {
		return fail(discoverErr)
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}

	total := NewAccumulator(opt.Location, opt.Prices)
	total.keepSecrets, total.noIndex, total.noText = opt.KeepSecrets, opt.NoIndex, opt.NoText
	if details != nil {
		// Runs joined from fragments (planagent, transcripts, traces) go to one more spill file.
		dw, err := details.writer()
		if err != nil {
			return fail(err)
		}
		total.details = dw
	}
	var frags []*logformat.Fragment
	var pending []string
	for _, w := range workers {
		total.Merge(w.acc)
		frags = append(frags, w.frags...)
		pending = append(pending, w.pending...)
	}
	slices.Sort(pending)
	pending = slices.Compact(pending) // each source once, in order
	if err := joinFragments(total, frags, pending, &opt, details); err != nil {
		return fail(err)
	}
	if err := records.Err(); err != nil {
		return fail(fmt.Errorf("record spill: %w", err))
	}
	if total.details != nil {
		if err := total.details.close(); err != nil {
			return fail(fmt.Errorf("run details: %w", err))
		}
		total.details = nil
	}
	total.spill = details
	if total.filesSeen == 0 && (opt.Shard.Count <= 1 || found.files == 0) {
		return fail(ErrNoInput) // a shard may be empty; a tree may not
	}
	return total, nil
}

// discovery is what discovery found: files in every shard, or why it stopped.
type discovery struct {
	files int
	err   error
}

// joinFragments resolves records spread over files (planagent records,
// Claude Code transcript entries) into runs. A file that held only
// fragments counts as parsed when one fed or joined a kept run, as filtered
// when its runs all fell outside the window, else it is an orphan.
func joinFragments(acc *Accumulator, frags []*logformat.Fragment, pending []string, opt *Options, details *Details) error {
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
	folded := func(r *model.Run, from []*logformat.Fragment, kept bool) {
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
		from []*logformat.Fragment
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
			kept := inWindow(j.r, opt)
			folded(j.r, j.from, kept)
			if kept {
				acc.addKept(j.r, nil, false)
			} else {
				acc.runsFiltered++
			}
			*j.r = model.Run{} // folded: what it holds goes now, though the join may still point at it
		}
		written = true
		clear(chunk)
		chunk, calls = chunk[:0], 0
	}
	add := func(r *model.Run, from []*logformat.Fragment) {
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
	addParts := func(r *model.Run, parts *logformat.CallParts, from []*logformat.Fragment) {
		r.FileOrd = joinedOrd
		if err != nil {
			return
		}
		kept := inWindow(r, opt)
		folded(r, from, kept)
		if !kept {
			acc.runsFiltered++
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
			acc.filesParsed++
			for _, format := range fates[src].formats {
				acc.filesByFormat[format]++
			}
		case filtered:
			acc.filesFiltered++
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
func joinAside(frags []*logformat.Fragment, acc *Accumulator, add func(*model.Run, []*logformat.Fragment), addParts func(*model.Run, *logformat.CallParts, []*logformat.Fragment)) {
	type joinedRun struct {
		r     *model.Run
		from  []*logformat.Fragment
		parts *logformat.CallParts
		taken chan struct{} // closed once the parts are folded
	}
	runs := make(chan joinedRun, 256)
	handed := newCallBudget() // bounds the calls handed over and not taken yet
	warns := &lockedWarnings{counts: map[string]int64{}}
	go func() {
		defer close(runs)
		emit := func(r *model.Run, from []*logformat.Fragment) {
			handed.take(1 + len(r.ToolCalls))
			runs <- joinedRun{r: r, from: from}
		}
		logformat.JoinEach(frags, warns, emit, func(r *model.Run, parts *logformat.CallParts, from []*logformat.Fragment) {
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
	addCounts(acc.warnings, warns.counts)
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

// inWindow reports whether r is kept: started inside --since/--until, and
// of the --project, when given.
func inWindow(r *model.Run, opt *Options) bool {
	if opt.Project != "" && !sameProject(ProjectOf(r), opt.Project) {
		return false
	}
	if opt.Since.IsZero() && opt.Until.IsZero() {
		return true
	}
	if r.Started.IsZero() {
		return false
	}
	if !opt.Since.IsZero() && r.Started.Before(opt.Since) {
		return false
	}
	if !opt.Until.IsZero() && !r.Started.Before(opt.Until) {
		return false
	}
	return true
}

// worker reads files one at a time into its own accumulator.
type worker struct {
	opt     *Options
	acc     *Accumulator
	frags   []*logformat.Fragment
	pending []string // sources whose only yield is fragments, each once (a file is read once)
}

// fileEmitter collects one file's runs and fragments; they are committed
// only once the whole file was read, so a file either counts whole or is
// skipped whole.
type fileEmitter struct {
	w      *worker
	source string
	runs   heldRuns
	frags  []*logformat.Fragment
}

func (e *fileEmitter) Warn(kind string)               { e.w.acc.warnIn(kind, e.source) }
func (e *fileEmitter) Run(r *model.Run)               { e.RunParts(r, nil) }
func (e *fileEmitter) Fragment(f *logformat.Fragment) { e.frags = append(e.frags, f) }

func (e *fileEmitter) RunParts(r *model.Run, parts *logformat.CallParts) { e.runs.add(r, parts) }

func (w *worker) file(c discover.File) {
	if p := w.opt.Progress; p != nil {
		defer func() { p.Done.Add(1); p.Bytes.Add(c.Size) }()
	}
	a := w.acc
	a.filesSeen++
	if c.Err != nil {
		a.skip(c.Source, logformat.ReasonUnreadable, errText(c.Err))
		return
	}
	if c.DupOf != "" {
		a.skip(c.Source, logformat.ReasonDuplicate, "the same file as "+c.DupOf)
		return
	}
	if c.Size > w.opt.MaxFileSize {
		a.skip(c.Source, logformat.ReasonTooLarge, fmt.Sprintf("%d bytes, over --max-file-size %d", c.Size, w.opt.MaxFileSize))
		return
	}
	em := &fileEmitter{w: w, source: c.Source}
	err := readFile(c, w.opt, em)
	defer em.runs.drain()
	var skip *logformat.SkipError
	switch {
	case errors.As(err, &skip):
		a.skip(c.Source, skip.Reason, skip.Detail)
		return
	case err != nil:
		a.skip(c.Source, logformat.ReasonUnreadable, errText(err))
		return
	}
	fed, folded := map[string]bool{}, false
	if err := em.runs.each(func(i int, r *model.Run, parts *logformat.CallParts) {
		folded = true
		r.Seq, r.FileOrd = i, c.Ord
		if !inWindow(r, w.opt) {
			a.runsFiltered++
			return
		}
		fed[r.Format] = true
		a.addKept(r, parts, false)
	}); err != nil {
		if !folded { // none counts: the file is skipped whole
			a.skip(c.Source, logformat.ReasonUnreadable, "its runs could not be held until it was read: "+errText(err))
			return
		}
		a.warnIn(logformat.WarnRunsLost, c.Source) // the disk failed reading back what it had written: the runs after are lost
	}
	w.frags = append(w.frags, em.frags...)
	switch {
	case len(fed) > 0:
		a.filesParsed++
		for f := range fed {
			a.filesByFormat[f]++
		}
	case len(em.frags) > 0:
		w.pending = append(w.pending, c.Source)
	case em.runs.len() > 0:
		a.filesFiltered++
	default:
		a.skip(c.Source, logformat.ReasonNoRuns, "")
	}
}

// parallelLinesFrom is the size past which a JSONL file's lines are decoded
// by several goroutines: one long transcript would otherwise hold one core.
const parallelLinesFrom = 16 << 20

// rawDocumentsFrom is the size past which a document is first read by the
// raw path, which reads a debug bundle's events faster and may give up
// (logformat.Options.Reread): smaller ones are not worth a second read.
var rawDocumentsFrom int64 = 1 << 20 // a variable for tests

// errTooLarge is returned by capReader past the size limit.
var errTooLarge = errors.New("too large")

// capReader fails once more than n bytes were read: it bounds what a
// compressed file may expand to (gzip bombs) and files that grow while read.
// It keeps the first read error, so that a decoder wrapping it cannot turn an
// I/O failure into a "bad JSON" verdict.
type capReader struct {
	r   io.Reader
	n   int64
	err error
}

func (c *capReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n -= int64(n)
	if c.n < 0 {
		err = errTooLarge
	}
	if err != nil && err != io.EOF && c.err == nil {
		c.err = err
	}
	return n, err
}

func readFile(c discover.File, opt *Options, em logformat.Emitter) error {
	// O_NONBLOCK: a FIFO put where a log was does not block the open; the
	// runtime's poller then waits for its writer, as for a pipe (/dev/stdin).
	f, err := os.OpenFile(c.Path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(strings.ToLower(c.Path), ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return &logformat.SkipError{Reason: logformat.ReasonUnreadable, Detail: "gzip: " + err.Error()}
		}
		defer gz.Close()
		r = gz
	}
	cr := &capReader{r: r, n: opt.MaxFileSize}
	fo := logformat.Options{Location: opt.Location, Spill: opt.records}
	if c.Size > parallelLinesFrom {
		fo.LineWorkers = opt.Jobs
	}
	if r == f && c.Size > rawDocumentsFrom {
		fo.Reread = func() (io.Reader, error) {
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return nil, err
			}
			cr = &capReader{r: f, n: opt.MaxFileSize}
			return cr, nil
		}
	}
	err = logformat.Read(cr, c.Source, fo, em)
	switch {
	case cr.err == errTooLarge:
		return &logformat.SkipError{Reason: logformat.ReasonTooLarge, Detail: fmt.Sprintf("over --max-file-size %d bytes once decompressed", opt.MaxFileSize)}
	case errors.Is(cr.err, io.ErrUnexpectedEOF) && err == nil:
		return nil // JSON Lines cut short: the reader kept the lines before the cut, with a warning
	case errors.Is(cr.err, io.ErrUnexpectedEOF):
		return &logformat.SkipError{Reason: logformat.ReasonTruncated, Detail: "the compressed stream ends early"}
	case cr.err != nil:
		return &logformat.SkipError{Reason: logformat.ReasonUnreadable, Detail: errText(cr.err)}
	}
	return err
}

// errText is an error's text without the path, which the report shows beside it.
func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

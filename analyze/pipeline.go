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
	DeferJoin        bool           // leave the records joined across files waiting, for a partial: merge joins them

	records *logformat.RecordSpill // records waiting for a cross-file join (set by Accumulate)
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
	handed := false // to the accumulator, which closes it
	defer func() {
		if !handed {
			records.Close()
		}
	}()
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
	var frags []*logformat.Fragment
	var pending []string
	for _, w := range workers {
		total.Merge(w.acc)
		frags = append(frags, w.frags...)
		pending = append(pending, w.pending...)
	}
	if err := records.Err(); err != nil {
		return fail(fmt.Errorf("record spill: %w", err))
	}
	total.spill = details
	total.waiting, handed = &waiting{frags: frags, pending: pending, records: records}, true
	if !opt.DeferJoin {
		if err := total.Join(opt); err != nil {
			return fail(err)
		}
	}
	if total.filesSeen == 0 && (opt.Shard.Count <= 1 || found.files == 0) {
		total.Close()
		return nil, ErrNoInput // a shard may be empty; a tree may not
	}
	return total, nil
}

// discovery is what discovery found: files in every shard, or why it stopped.
type discovery struct {
	files int
	err   error
}

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

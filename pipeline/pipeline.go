// Package pipeline wires the stages: it discovers the files under the
// roots, reads each with logformat on one of several workers, folds what
// each file gives into that worker's metrics.Accumulator, merges the
// workers' accumulators and runs the cross-file joins.
package pipeline

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
	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/logformat"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/agentstat/agentstat/metrics"
)

// DefaultMaxFileSize is the default --max-file-size: larger files (after
// decompression) are skipped as too large.
const DefaultMaxFileSize int64 = 1 << 30

// Options say what to read, how, and how the runs are folded.
type Options struct {
	metrics.Settings
	Roots            []string
	Include, Exclude []string // doublestar globs on the relative path or the base name
	Shard            discover.Shard
	Jobs             int       // parallel readers; 0 = GOMAXPROCS
	MaxFileSize      int64     // 0 = DefaultMaxFileSize
	Progress         *Progress // counted into when set
	DeferJoin        bool      // leave the records joined across files waiting, for a partial: merge joins them
	Now              time.Time // the report's generated_at (Report); zero is now
	Title            string    // the report's title (Report)
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

// Report reads every log file under the roots and returns the report.
func Report(ctx context.Context, opt Options) (*metrics.Report, error) {
	acc, err := Run(ctx, opt)
	if err != nil {
		return nil, err
	}
	opt.defaults()
	return acc.Report(opt.Now, opt.Title), nil
}

// Run reads every file with opt.Jobs workers, each folding into its own
// accumulator, and returns their merge with the cross-file joins applied
// (unless opt.DeferJoin). Close the result when done.
func Run(ctx context.Context, opt Options) (*metrics.Accumulator, error) {
	opt.defaults()
	total := metrics.NewAccumulator(opt.Settings)
	// Without a writable temporary directory (a read-only sandbox) records stay in memory.
	records, _ := recordspill.New(opt.Location)
	total.WaitOn(records)
	fail := func(err error) (*metrics.Accumulator, error) {
		total.Close()
		return nil, err
	}
	// Everything that can fail is set up before any goroutine starts.
	workers := make([]*worker, opt.Jobs)
	for i := range workers {
		acc, err := total.Worker()
		if err != nil {
			return fail(err)
		}
		workers[i] = &worker{opt: &opt, acc: acc, records: records}
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
		wg.Go(func() {
			for c := range files {
				if ctx.Err() != nil {
					continue // drain so that discovery can finish
				}
				w.file(c)
			}
		})
	}
	wg.Wait()
	found := <-discovered
	seen := 0
	for _, w := range workers {
		if err := total.MergeWorker(w.acc); err != nil {
			return fail(fmt.Errorf("run details: %w", err))
		}
		seen += w.seen
	}
	if found.err != nil {
		return fail(found.err)
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	if err := records.Err(); err != nil {
		return fail(fmt.Errorf("record spill: %w", err))
	}
	if !opt.DeferJoin {
		if err := total.Join(); err != nil {
			return fail(err)
		}
	}
	if seen == 0 && (opt.Shard.Count <= 1 || found.files == 0) {
		return fail(ErrNoInput) // a shard may be empty; a tree may not
	}
	return total, nil
}

// discovery is what discovery found: files in every shard, or why it stopped.
type discovery struct {
	files int
	err   error
}

// worker reads files one at a time into its own accumulator.
type worker struct {
	opt     *Options
	acc     *metrics.Accumulator
	records *recordspill.File
	seen    int // files handed to it
}

func (w *worker) file(c discover.File) {
	if p := w.opt.Progress; p != nil {
		defer func() { p.Done.Add(1); p.Bytes.Add(c.Size) }()
	}
	w.seen++
	w.acc.AddFile(c.Source, c.Ord, func(em reader.PartsEmitter) error {
		switch {
		case c.Err != nil:
			return c.Err
		case c.DupOf != "":
			return &logformat.SkipError{Reason: logformat.ReasonDuplicate, Detail: "the same file as " + c.DupOf}
		case c.Size > w.opt.MaxFileSize:
			return &logformat.SkipError{Reason: logformat.ReasonTooLarge, Detail: fmt.Sprintf("%d bytes, over --max-file-size %d", c.Size, w.opt.MaxFileSize)}
		}
		return w.read(c, em)
	})
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

// read opens, decompresses and reads one file into em.
func (w *worker) read(c discover.File, em reader.PartsEmitter) error {
	opt := w.opt
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
	fo := logformat.Options{Location: opt.Location, Spill: w.records}
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
		return cr.err // unreadable
	}
	return err
}

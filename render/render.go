// Package render writes a Report in each output format. A renderer is a
// function of the report; adding a format touches one file and one entry of
// the Formats table.
package render

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentstat/agentstat/discover"
	"github.com/agentstat/agentstat/internal/flock"
	"github.com/agentstat/agentstat/metrics"
)

// Dir is where a renderer writes its files: a temporary directory that
// becomes the output directory only once every renderer succeeded.
type Dir struct {
	ctx  context.Context
	root string
	mu   sync.Mutex
	made map[string]bool // directories already created
}

// Create creates a file (and its parent directories) inside the directory.
// name is '/'-separated and must stay inside the directory.
func (d *Dir) Create(name string) (*os.File, error) {
	if d.ctx != nil {
		if err := d.ctx.Err(); err != nil {
			return nil, err // interrupted: stop writing, the report is abandoned
		}
	}
	clean := filepath.Clean(filepath.FromSlash(name))
	if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("output name %q leaves the output directory", name)
	}
	p := filepath.Join(d.root, clean)
	dir := filepath.Dir(p)
	d.mu.Lock()
	if !d.made[dir] {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			d.mu.Unlock()
			return nil, err
		}
		if d.made == nil {
			d.made = map[string]bool{}
		}
		d.made[dir] = true
	}
	d.mu.Unlock()
	return os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
}

// WriteFile writes one file through a buffer, checking every error including Close's.
func (d *Dir) WriteFile(name string, write func(w io.Writer) error) (err error) {
	f, err := d.Create(name)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	bw := fileWriters.Get().(*bufio.Writer)
	bw.Reset(f)
	defer func() {
		bw.Reset(nil) // holds on to no file
		fileWriters.Put(bw)
	}()
	if err := write(bw); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return bw.Flush()
}

// fileWriters are WriteFile's buffers, reused: a full report writes 7,000
// run pages at 1 GB, and a fresh 16 KB buffer for each is 117 MB to
// allocate and zero.
var fileWriters = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 16<<10) }}

// Options tune the outputs.
type Options struct {
	Force      bool   // replace an output directory that is not an agentstat report
	SingleFile bool   // html: one self-contained index.html, no run pages
	BaseURL    string // html: canonical links under this URL
	runPages   bool   // the run pages are written beside the other outputs (Write sets it)
}

// Format is one output format.
type Format struct {
	Name  string // the -f value
	Files string // what it writes, for --help
	Write func(d *Dir, r *metrics.Report, o Options) error
}

// Formats is every output format, in the order they are written.
var Formats = []Format{
	{Name: "html", Files: "index.html, runs.html, runs/, assets/", Write: HTML},
	{Name: "md", Files: "report.md", Write: func(d *Dir, r *metrics.Report, o Options) error {
		return d.WriteFile("report.md", func(w io.Writer) error { return Markdown(w, r, o) })
	}},
	{Name: "xlsx", Files: "report.xlsx", Write: func(d *Dir, r *metrics.Report, o Options) error {
		return d.WriteFile("report.xlsx", func(w io.Writer) error { return xlsxOf(w, r, o.runPages, d.root) })
	}},
	{Name: "json", Files: "summary.json", Write: func(d *Dir, r *metrics.Report, _ Options) error {
		return d.WriteFile("summary.json", func(w io.Writer) error { return JSON(w, r) })
	}},
}

// FormatNames lists the -f values.
func FormatNames() []string {
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = f.Name
	}
	return names
}

// marker names the file that marks a directory as an agentstat report, so
// that -o never replaces a directory it did not write without --force.
const marker = ".agentstat-report"

// ErrNotReport means -o names a non-empty directory agentstat did not write.
var ErrNotReport = errors.New("output directory is not empty and is not an agentstat report (use --force to replace it)")

// Write renders the chosen formats into out. Everything is written to a
// temporary directory beside out and swapped into place at the end, so a
// failed or interrupted run leaves the previous report whole.
//
// Cancelling ctx (SIGINT, SIGTERM) abandons the new report: the temporary
// directory is removed and the previous report stays in place.
func Write(ctx context.Context, out string, names []string, r *metrics.Report, o Options) error {
	o.runPages = slices.Contains(names, "html") && !o.SingleFile && r.Details != nil
	return writeDir(ctx, out, o.Force, metrics.SchemaVersion, func(d *Dir) error {
		// Formats write files of their own from a report none of them changes,
		// so they run at once: the workbook, on one core, fills the gaps the
		// run pages leave.
		errs := make([]error, len(Formats))
		var wg sync.WaitGroup
		for i, f := range Formats {
			if !slices.Contains(names, f.Name) {
				continue
			}
			wg.Go(func() {
				if err := ctx.Err(); err != nil {
					errs[i] = err
				} else if err := f.Write(d, r, o); err != nil {
					errs[i] = fmt.Errorf("%s output: %w", f.Name, err)
				}
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
		if len(r.History) > 0 {
			if err := d.WriteFile("history.jsonl", func(w io.Writer) error { return metrics.WriteHistory(w, r.History) }); err != nil {
				return err
			}
		}
		if slices.Contains(names, "html") {
			// GitHub Pages serves the directory as it is, without Jekyll.
			if err := os.WriteFile(filepath.Join(d.root, ".nojekyll"), nil, 0o644); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeDir fills a temporary directory beside out, marks it as written by
// agentstat (schema names what it holds), and swaps it into place.
// StaleAge is how old a temporary output must be before a run removes it
// as one a killed run left, if no process holds its lock (flock.RemoveStale).
const StaleAge = time.Hour

func writeDir(ctx context.Context, out string, force bool, schema string, fill func(d *Dir) error) (err error) {
	if err := checkReplaceable(out, force); err != nil {
		return err
	}
	if abs, err := filepath.Abs(out); err == nil {
		out = abs
	}
	out = ThroughLinks(out) // a link to the report stays a link, to the new report
	parent := filepath.Dir(out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	// A directory that cannot be renamed (a mount point: a container
	// volume, a tmpfs) is filled in place, from a temporary directory
	// inside it, on its own file system; so is the working directory, which
	// a swap would leave the user's shell standing in once removed.
	inPlace := mountPoint(out) || isWorkingDir(out)
	if inPlace {
		parent = out
	}
	flock.RemoveStale(parent, discover.TempPrefix+"tmp-", StaleAge)
	tmp, err := os.MkdirTemp(parent, discover.TempPrefix+"tmp-")
	if err != nil {
		return err
	}
	// Locked while this run has it, under its name or after the swap under
	// out's: another run removes only what no one holds (a killed run's).
	unlock, _ := flock.Lock(ctx, tmp)
	defer unlock()
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err := fill(&Dir{root: tmp, ctx: ctx}); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, marker), []byte(schema+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if inPlace {
		return replaceContents(tmp, out)
	}
	return swapInto(ctx, tmp, out)
}

// ThroughLinks is path with the links it names followed, also to a target
// not made yet, so that an output written there leaves the links in place.
func ThroughLinks(path string) string {
	for range 40 { // the kernel's own limit on links in a row
		info, err := os.Lstat(path)
		if err != nil || info.Mode()&os.ModeSymlink == 0 {
			break
		}
		to, err := os.Readlink(path)
		if err != nil {
			break
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(path), to)
		}
		path = to
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		return filepath.Join(dir, filepath.Base(path))
	}
	return path
}

// isWorkingDir reports whether dir is the process's working directory.
func isWorkingDir(dir string) bool {
	wd, err := os.Getwd()
	if err != nil {
		return false
	}
	if real, err := filepath.EvalSymlinks(wd); err == nil {
		wd = real
	}
	return wd == dir
}

// replaceContents empties out, but for the temporary directories of runs,
// and moves tmp's entries into it: not atomic, for a directory that cannot
// be swapped whole.
func replaceContents(tmp, out string) error {
	entries, err := os.ReadDir(out)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), discover.TempPrefix+"tmp-") {
			if err := os.RemoveAll(filepath.Join(out, e.Name())); err != nil {
				return err
			}
		}
	}
	made, err := os.ReadDir(tmp)
	if err != nil {
		return err
	}
	for _, e := range made {
		if err := os.Rename(filepath.Join(tmp, e.Name()), filepath.Join(out, e.Name())); err != nil {
			return err
		}
	}
	return os.Remove(tmp)
}

func checkReplaceable(out string, force bool) error {
	entries, err := os.ReadDir(out)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("output %s: %w", out, err)
	}
	if len(entries) == 0 || force {
		return nil
	}
	if _, err := os.Stat(filepath.Join(out, marker)); err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", out, ErrNotReport)
}

// swapInto puts the finished directory tmp at out, replacing what was there.
func swapInto(ctx context.Context, tmp, out string) error {
	if _, err := os.Lstat(out); errors.Is(err, os.ErrNotExist) {
		return os.Rename(tmp, out)
	}
	// The previous report is moved under a temporary name to be removed:
	// locked, so that no other run removes it at the same time.
	unlock, ok := flock.Lock(ctx, out)
	defer unlock()
	if !ok && ctx.Err() != nil {
		return ctx.Err()
	}
	if err := exchange(tmp, out); err == nil {
		return os.RemoveAll(tmp) // tmp now holds the previous report
	}
	// No atomic exchange here: move the old report aside, then the new one in.
	old := tmp + "-old"
	if err := os.Rename(out, old); err != nil {
		return err
	}
	if err := os.Rename(tmp, out); err != nil {
		os.Rename(old, out)
		return err
	}
	return os.RemoveAll(old)
}

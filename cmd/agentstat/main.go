// Command agentstat turns a directory of AI-agent logs into reports: an HTML
// dashboard, a Markdown report, a workbook and summary.json.
package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dustin/go-humanize"
	flag "github.com/spf13/pflag"

	"github.com/agentstat/agentstat/discover"
	"github.com/agentstat/agentstat/internal/flock"
	"github.com/agentstat/agentstat/logformat"
	"github.com/agentstat/agentstat/metrics"
	"github.com/agentstat/agentstat/pipeline"
	"github.com/agentstat/agentstat/pricing"
	"github.com/agentstat/agentstat/render"
)

// Exit codes (README, "Exit codes").
const (
	exitOK        = 0
	exitViolation = 1 // a threshold was violated, or --strict found skipped files or warnings
	exitUsage     = 2
	exitNoInput   = 3 // nothing could be read, or an output could not be written
)

func main() {
	go endOnSignal(2 * time.Second)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// endOnSignal ends the process grace after SIGINT or SIGTERM if run has not
// returned by then. run stops at its next check of its context and removes
// what it was writing; a stage that cannot be interrupted (a read from a
// pipe that waits for its writer, a long join) is ended here, which is safe:
// scratch files are unlinked as they are made, outputs are swapped in whole,
// and a temporary output left behind is no one's lock and is removed later.
func endOnSignal(grace time.Duration) {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	<-signals
	time.Sleep(grace)
	fmt.Fprintln(os.Stderr, "agentstat: interrupted")
	os.Exit(exitNoInput)
}

// config is what the flags say.
type config struct {
	cmd        string
	out        string
	formats    []string
	tz         string
	since      string
	until      string
	include    []string
	exclude    []string
	title      string
	jobs       int
	quiet      bool
	force      bool
	strict     bool
	singleFile bool
	baseURL    string
	noRedact   bool
	history    string
	histLimit  int
	maxSize    string
	partial    string
	tables     string // merge --tables: the Parquet tables instead of the report set
	shard      string
	pricing    []string
	project    string
	noText     bool
	thresholds map[string]*[]string
	stdout     io.Writer // where GitHub Actions reads workflow commands
	outSet     bool      // --out given: check writes a report only then
	json       bool      // summary: summary.json instead of Markdown
}

func run(args []string, stdout, stderr io.Writer) int {
	cmd := "report"
	if len(args) > 0 {
		if _, ok := commandNamed(args[0]); ok {
			cmd, args = args[0], args[1:]
		} else {
			switch args[0] {
			case "help", "-h", "--help":
				if len(args) == 2 { // help COMMAND is COMMAND --help
					if c, ok := commandNamed(args[1]); ok {
						return run([]string{c.name, "--help"}, stdout, stderr)
					}
				}
				printUsage(stdout)
				return exitOK
			}
			if meant, ok := misspelledCommand(args[0]); ok {
				fmt.Fprintf(stderr, "agentstat: unknown command %q (did you mean %s?); see agentstat --help\n", args[0], meant)
				return exitUsage
			}
		}
	}
	c0, _ := commandNamed(cmd)
	switch cmd {
	case "diff":
		return runDiff(args, stdout, stderr)
	case "version", "formats":
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
			printCommandHelp(stdout, c0, nil)
			return exitOK
		}
		if len(args) > 0 {
			fmt.Fprintf(stderr, "agentstat %s: takes no arguments, got %q\n", cmd, args[0])
			return exitUsage
		}
		if cmd == "version" {
			fmt.Fprintln(stdout, "agentstat", version())
		} else {
			printFormats(stdout)
		}
		return exitOK
	}

	c := config{cmd: cmd, thresholds: map[string]*[]string{}, stdout: stdout}
	fs := flag.NewFlagSet("agentstat "+cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // help and errors are printed below
	fs.Usage = func() {}
	defaultOut := "agentstat-report"
	if cmd == "export" {
		defaultOut = "agentstat-tables"
	}
	fs.StringVarP(&c.out, "out", "o", defaultOut, "output `DIR`")
	fs.StringSliceVarP(&c.formats, "format", "f", render.FormatNames(), "`OUTPUTS` to write, of "+strings.Join(render.FormatNames(), ","))
	fs.StringVar(&c.tz, "tz", "UTC", "time `ZONE` of every date shown, and of timestamps written without one (IANA name, e.g. Europe/Berlin)")
	fs.StringVar(&c.since, "since", "", "only runs started at or after `TIME` (RFC 3339, a date, or an age such as 24h or 7d)")
	fs.StringVar(&c.until, "until", "", "only runs started before `TIME` (same forms as --since)")
	fs.StringSliceVar(&c.include, "include", nil, "read only files whose relative path or name matches `GLOB` (** allowed; repeatable)")
	fs.StringSliceVar(&c.exclude, "exclude", nil, "skip files and directories whose relative path or name matches `GLOB` (repeatable)")
	fs.StringVar(&c.title, "title", "", "report `TITLE`")
	fs.IntVarP(&c.jobs, "jobs", "j", 0, "`N` files read in parallel (default GOMAXPROCS)")
	fs.BoolVarP(&c.quiet, "quiet", "q", false, "print nothing but errors")
	fs.BoolVar(&c.force, "force", false, "replace an output directory that is not an agentstat report")
	fs.BoolVar(&c.strict, "strict", false, "exit 1 when any file was skipped or any warning counted")
	fs.BoolVar(&c.singleFile, "single-file", false, "html: write one self-contained index.html (scripts and styles inlined, no run pages)")
	fs.StringVar(&c.baseURL, "base-url", "", "html: the `URL` the report is published at, for canonical links")
	fs.BoolVar(&c.noRedact, "no-redact", false, "show values that look like credentials instead of redacting them")
	fs.BoolVar(&c.noText, "no-text", false, "keep numbers and names only: no prompt, title, step name, task or error text from the logs in any output")
	fs.BoolVar(&c.json, "json", false, "print summary.json instead of the Markdown report")
	fs.StringVar(&c.history, "history", "", "history `FILE`: report extends it with this run (default: history.jsonl of the previous report in -o); summary shows the change since its last entry")
	fs.IntVar(&c.histLimit, "history-limit", metrics.DefaultHistoryLimit, "report runs (`N`) the history keeps")
	fs.StringVar(&c.partial, "partial", "", "write the aggregate state to `FILE` instead of the report set, for agentstat merge")
	fs.StringVar(&c.tables, "tables", "", "write the Parquet tables (docs/tables.md) into `DIR` instead of the report set")
	fs.StringVar(&c.project, "project", "", "keep only the runs of project `DIR` (the directory the agent worked in, as summary.json's projects[] names it)")
	fs.StringArrayVar(&c.pricing, "pricing", nil, "price `FILE` in LiteLLM's model_prices_and_context_window.json format: adds models and overrides built-in prices key by key (repeatable)")
	fs.StringVar(&c.shard, "shard", "", "read only shard `I/N` of the files (e.g. 2/8): N tasks cover the tree exactly once")
	fs.StringVar(&c.maxSize, "max-file-size", humanize.IBytes(uint64(pipeline.DefaultMaxFileSize)), "skip files larger than `SIZE` (after decompression) as too large")
	for _, f := range metrics.ThresholdFlags {
		v := new([]string)
		c.thresholds[f.Flag] = v
		fs.StringArrayVar(v, f.Flag, nil, f.Help)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printCommandHelp(stdout, c0, fs)
			return exitOK
		}
		fmt.Fprintf(stderr, "agentstat %s: %s (see agentstat %s --help)\n", cmd, flagError(err, c0), cmd)
		return exitUsage
	}
	roots := fs.Args()
	c.outSet = fs.Changed("out")
	if len(roots) == 0 {
		what := "log directory"
		if cmd == "merge" {
			what = "partial file"
		}
		fmt.Fprintf(stderr, "agentstat %s: name at least one %s\n", cmd, what)
		return exitUsage
	}
	if cmd == "merge" {
		for _, f := range []string{"tz", "since", "until", "include", "exclude", "shard", "jobs", "max-file-size", "no-redact", "project", "no-text"} {
			if fs.Changed(f) {
				fmt.Fprintf(stderr, "agentstat merge: --%s is set when the partials are made (agentstat report --partial), not when they are merged\n", f)
				return exitUsage
			}
		}
	}
	if cmd == "export" && fs.Changed("shard") {
		fmt.Fprintf(stderr, "agentstat export: --shard: a shard's runs may need records other shards read; write a partial of each shard (report --shard I/N --partial FILE), then the tables from them (merge --tables DIR)\n")
		return exitUsage
	}
	if name := foreignFlag(c0, fs); name != "" {
		fmt.Fprintf(stderr, "agentstat %s: --%s is not a flag of %s (see agentstat %s --help)\n", cmd, name, cmd, cmd)
		return exitUsage
	}
	opt, thresholds, err := c.options(roots)
	if err != nil {
		fmt.Fprintf(stderr, "agentstat %s: %v\n", cmd, err)
		return exitUsage
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var stopProgress func()
	opt.Progress, stopProgress = startProgress(stderr, c.quiet)
	if cmd == "export" {
		return runExport(ctx, &c, opt, stderr, stopProgress)
	}
	var acc *metrics.Accumulator
	covered := opt.Shard.String() // the shards a partial written now covers
	if cmd == "merge" {
		stopProgress() // partials are read in a moment; there is nothing to show
		m, err := metrics.MergePartials(roots, opt.KeepDetails, opt.Prices)
		if err != nil {
			fmt.Fprintf(stderr, "agentstat merge: %v\n", err)
			return exitNoInput
		}
		acc, covered = m.Acc, m.Covered
		opt.Settings = acc.Settings()
		if c.partial == "" {
			// The records that wait for a join are joined once every shard's are here.
			if err := acc.Join(); err != nil {
				acc.Close()
				fmt.Fprintf(stderr, "agentstat merge: %v\n", err)
				return exitNoInput
			}
		}
		if c.tables != "" {
			return writeTables(ctx, &c, c.tables, acc, opt, stderr)
		}
	} else {
		acc, err = pipeline.Run(ctx, opt)
		stopProgress()
		if err != nil {
			fmt.Fprintf(stderr, "agentstat %s: %v\n", cmd, err)
			return exitNoInput
		}
	}
	if c.partial != "" {
		defer acc.Close()
		err := writeFileAtomic(c.partial, func(w io.Writer) error {
			return acc.WritePartial(w, metrics.PartialInfo{Agentstat: version(), Shard: covered})
		})
		if err != nil {
			fmt.Fprintf(stderr, "agentstat %s: partial: %v\n", cmd, err)
			return exitNoInput
		}
		if !c.quiet {
			fmt.Fprintf(stderr, "agentstat: partial state → %s\n", c.partial)
		}
		return exitOK
	}
	rep := acc.Report(opt.Now, opt.Title)
	defer rep.Details.Close()
	if in := rep.Summary.Inputs; cmd != "merge" && in.FilesParsed == 0 && in.FilesFiltered == 0 {
		fmt.Fprintf(stderr, "agentstat %s: no log file among the %s files seen (%s)\n", cmd, render.Count(in.FilesSeen), skipReasons(in.SkippedBy))
		return exitNoInput
	}
	if s := &rep.Summary; s.Runs.Total == 0 && s.Inputs.RunsFiltered > 0 && !c.quiet {
		fmt.Fprintf(stderr, "agentstat %s: --since/--until left out every run read (%s)\n", cmd, render.Count(s.Inputs.RunsFiltered))
	}
	code := exitOK
	if len(thresholds) > 0 {
		rep.Summary.Check = metrics.Check(&rep.Summary, thresholds)
		if !rep.Summary.Check.Passed {
			code = exitViolation
		}
	}
	if c.strict && (rep.Summary.Inputs.FilesSkipped > 0 || len(rep.Summary.Inputs.Warnings) > 0) {
		code = exitViolation
	}

	switch cmd {
	case "summary":
		if c.history != "" {
			// The change row against the last report, the history left as it is.
			prev, _, err := metrics.ReadHistory(c.history)
			if err != nil {
				fmt.Fprintf(stderr, "agentstat summary: %v\n", err)
				return exitNoInput
			}
			rep.History = metrics.AppendHistory(prev, metrics.EntryOf(&rep.Summary), c.histLimit)
		}
		write := func(w io.Writer) error { return render.Markdown(w, rep, render.Options{}) }
		if c.json {
			write = func(w io.Writer) error { return render.JSON(w, rep) }
		}
		if err := write(stdout); err != nil {
			fmt.Fprintf(stderr, "agentstat summary: %v\n", err)
			return exitNoInput
		}
	case "check":
		printCheck(stdout, rep.Summary.Check)
		if c.outSet {
			if err := writeReport(ctx, &c, rep, stderr); err != nil {
				return exitNoInput
			}
		}
	default:
		if err := writeReport(ctx, &c, rep, stderr); err != nil {
			return exitNoInput
		}
		if !c.quiet {
			s := &rep.Summary
			fmt.Fprintf(stderr, "agentstat: %s runs from %s files (%s skipped) → %s\n", render.Count(s.Runs.Total), render.Count(s.Inputs.FilesParsed), render.Count(s.Inputs.FilesSkipped), c.out)
			if s.Check != nil {
				printCheck(stderr, s.Check)
			}
		}
	}
	if cmd != "summary" {
		githubActions(rep, stdout, c.baseURL)
	}
	if c.strict && code == exitViolation && !c.quiet && (rep.Summary.Check == nil || rep.Summary.Check.Passed) {
		fmt.Fprintf(stderr, "agentstat: --strict: %d files skipped, %d kinds of warning\n", rep.Summary.Inputs.FilesSkipped, len(rep.Summary.Inputs.Warnings))
	}
	return code
}

func writeReport(ctx context.Context, c *config, rep *metrics.Report, stderr io.Writer) error {
	// History: the previous report's history.jsonl (or --history), plus this run.
	src := c.history
	if src == "" {
		src = filepath.Join(c.out, "history.jsonl")
	}
	// From reading the history to writing it, one run at a time: the lock is
	// on the directory the history is written in (for the default, the one
	// holding the output directory, which is replaced whole).
	lockAt := filepath.Dir(c.history)
	if c.history == "" {
		lockAt = filepath.Dir(filepath.Clean(c.out))
	}
	// Without flock (another system, some network file systems) runs go on unlocked.
	unlock, ok := flock.Lock(ctx, lockAt)
	defer unlock()
	if !ok && ctx.Err() != nil {
		return ctx.Err()
	}
	prev, skipped, err := metrics.ReadHistory(src)
	if err != nil {
		fmt.Fprintf(stderr, "agentstat %s: %v\n", c.cmd, err)
		return err
	}
	if c.history != "" && len(prev) == 0 && skipped > 0 {
		// Rewriting it would replace whatever the file is with one line.
		err := fmt.Errorf("%s is not an agentstat history (%d lines, none a history entry): name another --history", src, skipped)
		fmt.Fprintf(stderr, "agentstat %s: %v\n", c.cmd, err)
		return err
	}
	if skipped > 0 {
		fmt.Fprintf(stderr, "agentstat %s: warning: %d corrupt lines in %s skipped\n", c.cmd, skipped, src)
		annotate(c.stdout, "warning", fmt.Sprintf("%d corrupt lines in %s skipped", skipped, src))
	}
	rep.History = metrics.AppendHistory(prev, metrics.EntryOf(&rep.Summary), c.histLimit)
	if err := render.Write(ctx, c.out, c.formats, rep, render.Options{Force: c.force, SingleFile: c.singleFile, BaseURL: c.baseURL}); err != nil {
		fmt.Fprintf(stderr, "agentstat %s: %v\n", c.cmd, err)
		return err
	}
	if c.history != "" {
		if err := writeFileAtomic(c.history, func(w io.Writer) error { return metrics.WriteHistory(w, rep.History) }); err != nil {
			fmt.Fprintf(stderr, "agentstat %s: history: %v\n", c.cmd, err)
			return err
		}
	}
	return nil
}

// options turns the flags into analysis options and thresholds.
func (c *config) options(roots []string) (pipeline.Options, []metrics.Threshold, error) {
	opt := pipeline.Options{Roots: roots, Include: c.include, Exclude: c.exclude, Jobs: c.jobs, Title: c.title}
	opt.KeepSecrets, opt.Scope.Project, opt.NoText = c.noRedact, c.project, c.noText
	loc, err := time.LoadLocation(c.tz)
	if err != nil {
		return opt, nil, fmt.Errorf("--tz %q: %v", c.tz, err)
	}
	opt.Location = loc
	if opt.Prices, err = loadPrices(c.pricing); err != nil {
		return opt, nil, err
	}
	opt.Now = time.Now()
	if epoch := os.Getenv("SOURCE_DATE_EPOCH"); epoch != "" {
		sec, err := strconv.ParseInt(epoch, 10, 64)
		if err != nil {
			return opt, nil, fmt.Errorf("SOURCE_DATE_EPOCH %q is not a number of seconds", epoch)
		}
		opt.Now = time.Unix(sec, 0)
	}
	if opt.Scope.Since, err = parseWhen(c.since, loc, time.Now()); err != nil {
		return opt, nil, fmt.Errorf("--since: %v", err)
	}
	if opt.Scope.Until, err = parseWhen(c.until, loc, time.Now()); err != nil {
		return opt, nil, fmt.Errorf("--until: %v", err)
	}
	if sc := opt.Scope; !sc.Since.IsZero() && !sc.Until.IsZero() && !sc.Since.Before(sc.Until) {
		return opt, nil, fmt.Errorf("--since must be before --until")
	}
	if err := discover.ValidateGlobs(append(slices.Clone(c.include), c.exclude...)); err != nil {
		return opt, nil, err
	}
	size, err := humanize.ParseBytes(c.maxSize)
	if err != nil || size == 0 {
		return opt, nil, fmt.Errorf("--max-file-size %q: use bytes or a size such as 512MB", c.maxSize)
	}
	opt.MaxFileSize = int64(min(size, 1<<62))
	if c.jobs < 0 || c.jobs > maxJobs {
		return opt, nil, fmt.Errorf("-j %d: files read in parallel are between 1 and %d (0 for GOMAXPROCS)", c.jobs, maxJobs)
	}
	if len(c.formats) == 0 {
		return opt, nil, fmt.Errorf("-f: name at least one output (%s)", strings.Join(render.FormatNames(), ", "))
	}
	for _, f := range c.formats {
		if !slices.Contains(render.FormatNames(), f) {
			return opt, nil, fmt.Errorf("unknown output format %q (have %s)", f, strings.Join(render.FormatNames(), ", "))
		}
	}
	if c.partial != "" && c.tables != "" {
		return opt, nil, fmt.Errorf("--partial and --tables: write one or the other")
	}
	writes := (c.cmd == "report" || c.cmd == "merge" || c.cmd == "check" && c.outSet) && c.tables == "" // a report, to --out
	for _, f := range []struct {
		flag, path string
		isDir, use bool
	}{
		{"-o", c.out, true, (writes || c.cmd == "export") && c.partial == ""},
		{"--tables", c.tables, true, c.tables != ""},
		{"--partial", c.partial, false, c.partial != ""},
		{"--history", c.history, false, c.history != ""},
	} {
		if !f.use {
			continue
		}
		if err := writable(f.flag, f.path, f.isDir); err != nil {
			return opt, nil, err
		}
		if err := apart(f.flag, f.path, roots, f.isDir); err != nil {
			return opt, nil, err
		}
	}
	// Run details feed the run pages and the workbook; only the dashboard,
	// the workbook and a partial (merged into either later) list runs.
	pages := slices.Contains(c.formats, "html") && !c.singleFile
	lists := slices.Contains(c.formats, "html") || slices.Contains(c.formats, "xlsx")
	opt.KeepDetails = writes && (pages || slices.Contains(c.formats, "xlsx")) || c.partial != "" || c.cmd == "export" || c.tables != ""
	opt.NoIndex = !(writes && lists || c.partial != "")
	opt.DeferJoin = c.partial != "" // merge joins what waits, with every shard's records
	if c.shard != "" {
		if opt.Shard, err = discover.ParseShard(c.shard); err != nil {
			return opt, nil, err
		}
	}
	var thresholds []metrics.Threshold
	for _, f := range metrics.ThresholdFlags {
		for _, v := range *c.thresholds[f.Flag] {
			t, err := metrics.ParseThreshold(f, v)
			if err != nil {
				return opt, nil, err
			}
			thresholds = append(thresholds, t)
		}
	}
	if c.partial != "" && len(thresholds) > 0 {
		return opt, nil, fmt.Errorf("thresholds are checked on the whole tree: give them to merge, not to --partial")
	}
	if c.cmd == "check" && len(thresholds) == 0 {
		return opt, nil, fmt.Errorf("give at least one threshold (--max-error-rate, --min-success-rate, --min-completion-rate, --min-quality, --max-p95, --max-run-p95)")
	}
	return opt, thresholds, nil
}

// loadPrices is the built-in price table with each --pricing file over it, in order.
func loadPrices(files []string) (*pricing.Table, error) {
	t := pricing.Builtin()
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("--pricing: %v", err)
		}
		t, err = t.With(f, name)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("--pricing %v", err)
		}
	}
	return t, nil
}

// parseWhen reads an RFC 3339 time, a date or date-time in loc, or an age
// before now (a Go duration such as 36h, or a number of days such as 7d).
func parseWhen(s string, loc *time.Location, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if strings.HasSuffix(s, "d") {
		if days, err := strconv.ParseFloat(strings.TrimSuffix(s, "d"), 64); err == nil && days >= 0 {
			return now.Add(-time.Duration(days * 24 * float64(time.Hour))), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time (use 2026-11-01, 2026-11-01T08:00:00Z, 24h or 7d)", s)
}

func printFormats(w io.Writer) {
	fmt.Fprintln(w, "Input formats, in detection precedence (a file's format is read from its content, never its name):")
	for _, f := range logformat.All() {
		fmt.Fprintf(w, "\n  %s\n    %s\n    recognised by: %s\n", f.Name, f.Title, f.Signature)
	}
	fmt.Fprintln(w, "\nFiles seen: every regular file named *.json or *.jsonl (optionally .gz) under the roots; links are not followed.")
}

// runExport writes the normalized model as Parquet tables (docs/tables.md).
func runExport(ctx context.Context, c *config, opt pipeline.Options, stderr io.Writer, stopProgress func()) int {
	acc, err := pipeline.Run(ctx, opt)
	stopProgress()
	if err != nil {
		fmt.Fprintf(stderr, "agentstat export: %v\n", err)
		return exitNoInput
	}
	return writeTables(ctx, c, c.out, acc, opt, stderr)
}

// writeTables writes acc's runs as Parquet tables into dir.
func writeTables(ctx context.Context, c *config, dir string, acc *metrics.Accumulator, opt pipeline.Options, stderr io.Writer) int {
	defer acc.Close()
	if err := render.Tables(ctx, dir, acc.Details(), opt.Location, render.TablesOptions{Force: c.force, Prices: opt.Prices}); err != nil {
		fmt.Fprintf(stderr, "agentstat %s: %v\n", c.cmd, err)
		return exitNoInput
	}
	if !c.quiet {
		s := acc.Report(opt.Now, opt.Title).Summary
		fmt.Fprintf(stderr, "agentstat: %s runs from %s files (%s skipped) → Parquet tables in %s\n", render.Count(s.Runs.Total), render.Count(s.Inputs.FilesParsed), render.Count(s.Inputs.FilesSkipped), dir)
	}
	return exitOK
}

// skipReasons counts skipped files by reason, the commonest first.
func skipReasons(by map[string]int64) string {
	reasons := slices.Collect(maps.Keys(by))
	slices.SortFunc(reasons, func(a, b string) int { return cmp.Or(cmp.Compare(by[b], by[a]), cmp.Compare(a, b)) })
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		parts[i] = render.Count(by[r]) + " " + r
	}
	return strings.Join(parts, ", ")
}

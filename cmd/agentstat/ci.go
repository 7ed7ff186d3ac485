// What CI reads: check verdicts, diffs, GitHub Actions annotations and job summaries.

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"

	flag "github.com/spf13/pflag"

	"github.com/agentstat/agentstat/metrics"
	"github.com/agentstat/agentstat/render"
)

func printCheck(w io.Writer, c *metrics.CheckResult) {
	if c == nil {
		return
	}
	for _, t := range c.Thresholds {
		name := t.Metric
		if sc := t.Scope(); sc != "" {
			name += "[" + sc + "]"
		}
		switch {
		case t.Violated:
			fmt.Fprintf(w, "VIOLATED %s: %s, limit %s %s\n", name, render.ThresholdValue(t.Kind, t.Actual), t.Op, render.ThresholdValue(t.Kind, &t.Limit))
		case t.Actual == nil:
			fmt.Fprintf(w, "no data  %s: n/a, limit %s %s\n", name, t.Op, render.ThresholdValue(t.Kind, &t.Limit))
		default:
			fmt.Fprintf(w, "ok       %s: %s, limit %s %s\n", name, render.ThresholdValue(t.Kind, t.Actual), t.Op, render.ThresholdValue(t.Kind, &t.Limit))
		}
	}
	if c.Passed {
		fmt.Fprintf(w, "check passed: %d thresholds hold\n", len(c.Thresholds)-c.NoData)
	} else {
		fmt.Fprintf(w, "check failed: %d of %d thresholds violated\n", c.Violations, len(c.Thresholds))
	}
}

// githubActions, when run as a GitHub Actions step, appends the Markdown
// report to the job summary and prints annotations for violated thresholds
// and skipped files.
func githubActions(rep *metrics.Report, out io.Writer, baseURL string) {
	if os.Getenv("GITHUB_ACTIONS") != "true" {
		return
	}
	s := &rep.Summary
	if c := s.Check; c != nil {
		for _, t := range c.Thresholds {
			if t.Violated {
				name := t.Metric
				if sc := t.Scope(); sc != "" {
					name += "[" + sc + "]"
				}
				annotate(out, "error", fmt.Sprintf("agentstat threshold violated: %s is %s, limit %s %s", name,
					render.ThresholdValue(t.Kind, t.Actual), t.Op, render.ThresholdValue(t.Kind, &t.Limit)))
			}
		}
	}
	const maxFileAnnotations = 10 // GitHub shows ten annotations of a kind per step
	for i, f := range s.Inputs.Skipped {
		if i == maxFileAnnotations {
			annotate(out, "warning", fmt.Sprintf("agentstat: %d more files skipped (see the report's data quality section)", len(s.Inputs.Skipped)-i))
			break
		}
		annotate(out, "warning", fmt.Sprintf("agentstat skipped %s: %s", f.Path, f.Reason))
	}
	path := os.Getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return
	}
	var b strings.Builder
	if err := render.Markdown(&b, rep, render.Options{BaseURL: baseURL}); err != nil {
		return
	}
	md := b.String()
	const limit = 1000 << 10 // GitHub accepts 1 MiB per step summary
	if len(md) > limit {
		cut := strings.LastIndex(md[:limit], "\n## ")
		md = md[:max(cut, 0)] + "\n\n…the rest is in the published report.\n"
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		annotate(out, "warning", "agentstat: cannot write the job summary: "+err.Error())
		return
	}
	defer f.Close()
	io.WriteString(f, md+"\n")
}

// annotate prints a workflow command; its text is escaped as GitHub requires
// so a file name from a log cannot end the command or start another.
func annotate(out io.Writer, level, msg string) {
	if os.Getenv("GITHUB_ACTIONS") != "true" {
		return
	}
	msg = strings.Map(func(r rune) rune {
		if r != '\n' && r != '\r' && (unicode.IsControl(r) || r == '\u2028' || r == '\u2029') {
			return ' ' // ESC, BEL and the like would reach the log reader's terminal
		}
		return r
	}, strings.ToValidUTF8(msg, "\uFFFD"))
	msg = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(msg)
	fmt.Fprintf(out, "::%s::%s\n", level, msg)
}

// runDiff compares two summary.json files: Markdown on stdout, exit 1 when a
// --fail-on-regression limit is exceeded.
func runDiff(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("agentstat diff", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // help and errors are printed below
	var limits []string
	var all bool
	fs.BoolVar(&all, "all", false, "show the figures and tools that did not change too")
	fs.StringArrayVar(&limits, "fail-on-regression", nil, "`NAME=LIMIT`: exit 1 when NEW is worse by more (names: "+
		strings.Join(metrics.RegressionKeys(), ", ")+"; rates in points, e.g. 0.02 or 2%; p95 as a relative rise, e.g. 20%; quality in score points)")
	fs.Usage = func() {}
	c, _ := commandNamed("diff")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printCommandHelp(stdout, c, fs)
			return exitOK
		}
		fmt.Fprintf(stderr, "agentstat diff: %s (see agentstat diff --help)\n", flagError(err, c))
		return exitUsage
	}
	if fs.NArg() != 2 {
		fmt.Fprintln(stderr, "agentstat diff: name two summary.json files, OLD and NEW")
		return exitUsage
	}
	var parsed []metrics.RegressionLimit
	for _, l := range limits {
		r, err := metrics.ParseRegressionLimit(l)
		if err != nil {
			fmt.Fprintf(stderr, "agentstat diff: %v\n", err)
			return exitUsage
		}
		parsed = append(parsed, r)
	}
	var sums [2]*metrics.Summary
	for i, p := range fs.Args() {
		s, err := metrics.LoadSummary(p)
		if err != nil {
			fmt.Fprintf(stderr, "agentstat diff: %v\n", err)
			return exitNoInput
		}
		sums[i] = s
	}
	d := metrics.Compare(sums[0], sums[1])
	violations := d.Violations(parsed)
	if err := render.DiffMarkdown(stdout, d, violations, all); err != nil {
		fmt.Fprintf(stderr, "agentstat diff: %v\n", err)
		return exitNoInput
	}
	for _, v := range violations {
		annotate(stdout, "error", "agentstat regression: "+render.ViolationText(v))
	}
	if len(violations) > 0 {
		return exitViolation
	}
	return exitOK
}

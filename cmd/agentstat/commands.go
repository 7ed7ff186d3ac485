// The commands, their help and which flags each takes.

package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	flag "github.com/spf13/pflag"

	"github.com/agentstat/agentstat/metrics"
)

// command is one of agentstat's commands.
type command struct {
	name, args, short, what, example string
	flags                            []string // the flags it takes, by long name
}

// Flags by what they serve.
var (
	readFlags   = []string{"tz", "since", "until", "include", "exclude", "jobs", "max-file-size", "no-redact", "no-text", "shard", "project", "pricing", "title", "quiet", "strict"}
	reportFlags = []string{"out", "format", "single-file", "base-url", "force", "history", "history-limit"}
)

func thresholdFlags() []string {
	var names []string
	for _, f := range metrics.ThresholdFlags {
		names = append(names, f.Flag)
	}
	return names
}

var commands = []command{
	{"report", "[flags] DIR...", "write the report set into -o DIR (the default command)", "Write the report set (dashboard, Markdown, workbook, summary.json) into -o DIR. The default command.",
		"agentstat report ~/.claude/projects -o site --since 7d",
		slices.Concat(readFlags, reportFlags, []string{"partial"}, thresholdFlags())},
	{"summary", "[flags] DIR...", "print the Markdown report on stdout", "Print the Markdown report on stdout (the /report command of a coding agent).",
		"agentstat summary . --since 24h --history agentstat-report/history.jsonl",
		slices.Concat(readFlags, []string{"json", "history"}, thresholdFlags())},
	{"check", "[flags] DIR...", "evaluate thresholds; exit 1 when one is violated", "Evaluate thresholds and exit 1 when one is violated; with -o, write the report set too.",
		"agentstat check logs/ --max-error-rate 5% --max-p95 Bash=30s",
		slices.Concat(readFlags, reportFlags, thresholdFlags())},
	{"diff", "[flags] OLD NEW", "compare two summary.json files: Markdown on stdout", "Compare two summary.json files: Markdown on stdout, worst regressions first.",
		"agentstat diff base/summary.json head/summary.json --fail-on-regression error_rate=2%",
		[]string{"fail-on-regression", "all"}},
	{"merge", "[flags] PARTIAL...", "write the report set (or a partial) from partial files", "Write the report set from the partials of report --partial, joining the records of runs\nthat span shards; with --partial, a partial instead; with --tables, the Parquet tables.",
		"agentstat merge p1.agentstat p2.agentstat p3.agentstat -o site",
		slices.Concat([]string{"title", "quiet", "strict", "partial", "tables", "pricing"}, reportFlags, thresholdFlags())},
	{"export", "[flags] DIR...", "write the normalized model as Parquet tables", "Write the normalized model as Parquet tables into -o DIR (docs/tables.md).",
		"agentstat export logs/ -o tables --tz Europe/Berlin",
		slices.Concat(slices.DeleteFunc(slices.Clone(readFlags), func(f string) bool { return f == "shard" }), []string{"out", "force"})},
	{"formats", "", "list the input formats and how each is recognised", "List the input formats and how each is recognised.", "agentstat formats", nil},
	{"version", "", "print the version", "Print agentstat's version, and the revision it was built from.", "agentstat version", nil},
}

func commandNamed(name string) (command, bool) {
	i := slices.IndexFunc(commands, func(c command) bool { return c.name == name })
	if i < 0 {
		return command{}, false
	}
	return commands[i], true
}

// printUsage writes the overview `agentstat --help` prints.
func printUsage(w io.Writer) {
	fmt.Fprint(w, "agentstat turns a directory of AI-agent logs into reports.\n\nUsage:\n")
	for _, c := range commands {
		line := strings.TrimSpace("agentstat " + c.name + " " + c.args)
		fmt.Fprintf(w, "  %-36s %s\n", line, c.short)
	}
	fmt.Fprint(w, `
Run 'agentstat COMMAND --help' for a command's flags and an example.

Exit codes: 0 success; 1 a threshold was violated (or --strict saw a skipped
file or a warning); 2 usage error; 3 nothing could be read or an output could
not be written.
`)
}

// printCommandHelp writes a command's usage, an example and its flags.
func printCommandHelp(w io.Writer, c command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: %s\n\n%s\n\nExample:\n  %s\n", strings.TrimSpace("agentstat "+c.name+" "+c.args), c.what, c.example)
	if fs == nil {
		return
	}
	fs.VisitAll(func(f *flag.Flag) {
		if !slices.Contains(c.flags, f.Name) {
			f.Hidden = true
		}
	})
	fmt.Fprintf(w, "\nFlags:\n%s", fs.FlagUsages())
}

// foreignFlag is the first flag given that c does not take.
func foreignFlag(c command, fs *flag.FlagSet) string {
	name := ""
	fs.Visit(func(f *flag.Flag) {
		if name == "" && !slices.Contains(c.flags, f.Name) {
			name = f.Name
		}
	})
	return name
}

// nearest is the candidate closest to s, when it is close enough to be
// what was meant (two edits at most, fewer for short words).
func nearest(s string, candidates []string) (string, bool) {
	best, bestD := "", len(s)
	for _, c := range candidates {
		if d := editDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best, best != "" && bestD <= min(2, max(1, len(s)/3))
}

// editDistance is the Levenshtein distance between a and b, adjacent
// transpositions counted as one edit.
func editDistance(a, b string) int {
	prev2, prev, cur := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// misspelledCommand reports a first argument that names no path and is
// close to a command's name: agentstat reprot logs.
func misspelledCommand(arg string) (string, bool) {
	if arg == "" || strings.HasPrefix(arg, "-") {
		return "", false
	}
	if _, err := os.Lstat(arg); err == nil {
		return "", false
	}
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return nearest(arg, names)
}

// flagError is a flag parse error, with the flag meant when an unknown
// one is close to a flag of the command.
func flagError(err error, c command) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		if meant, ok := nearest(name, c.flags); ok {
			msg += fmt.Sprintf(" (did you mean --%s?)", meant)
		}
	}
	return msg
}

// version is the module version and the revision agentstat was built from.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, at, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	if rev != "" {
		v += fmt.Sprintf(" (%.12s %s%s)", rev, at, modified)
	}
	return v
}

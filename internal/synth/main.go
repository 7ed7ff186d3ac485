// Command synth writes a synthetic corpus of agent logs for benchmarks:
//
//	go run ./internal/synth -o DIR -size 1GB [-seed N]
//
// It prints what it wrote, per format. The same size and seed give the same bytes.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"

	"github.com/dustin/go-humanize"

	"github.com/agentstat/agentstat/internal/logsynth"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("synth", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "directory to write the corpus into (must not exist)")
	size := fs.String("size", "100MB", "about how many bytes to write")
	seed := fs.Uint64("seed", 1, "random seed: the same seed and size give the same corpus")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	n, err := humanize.ParseBytes(*size)
	if *out == "" || err != nil || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: synth -o DIR [-size 1GB] [-seed N]")
		return 2
	}
	if _, err := os.Stat(*out); err == nil {
		fmt.Fprintf(stderr, "synth: %s exists; remove it or pick another directory\n", *out)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	st, err := logsynth.Generate(ctx, *out, logsynth.Options{Size: int64(n), Seed: *seed})
	if err != nil {
		fmt.Fprintln(stderr, "synth:", err)
		return 3
	}
	names := make([]string, 0, len(st.ByFormat))
	for f := range st.ByFormat {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		fmt.Fprintf(stdout, "%-12s %7d files %10s\n", f, st.ByFormat[f].Files, humanize.IBytes(uint64(st.ByFormat[f].Bytes)))
	}
	fmt.Fprintf(stdout, "%-12s %7d files %10s (logsynth v%d, seed %d)\n", "total", st.Files, humanize.IBytes(uint64(st.Bytes)), logsynth.Version, *seed)
	return 0
}

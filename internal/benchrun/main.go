//go:build unix

// Command benchrun is `make bench`: it builds agentstat, generates synthetic
// corpora once (cached outside the repository), and measures side by side,
// as medians of several runs: cat of every file (the hardware floor), a
// plain parallel Go read, and agentstat's report in several output sets.
// It prints MB/s, files/s, each case's ratio to cat, and peak RSS; then the
// largest file alone, and summary on a 10 MB project.
//
//	go run ./internal/benchrun [-sizes 100MB,1GB] [-runs 5] [-cache DIR]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/agentstat/agentstat/internal/logsynth"
)

func main() {
	if len(os.Args) == 3 && os.Args[1] == "-read" {
		if err := readAll(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchrun:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	fl := flag.NewFlagSet("benchrun", flag.ContinueOnError)
	sizes := fl.String("sizes", "100MB,1GB", "corpus sizes to measure")
	runs := fl.Int("runs", 5, "runs per case; the median is reported")
	cacheDir := fl.String("cache", "", "where corpora and binaries are kept (default: the user cache directory)")
	settle := fl.Duration("settle", 6*time.Second, "pause after sync before each run, untimed (see prepare)")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *cacheDir == "" {
		d, err := os.UserCacheDir()
		if err != nil {
			return err
		}
		*cacheDir = filepath.Join(d, "agentstat-bench")
	}
	if err := os.MkdirAll(*cacheDir, 0o755); err != nil {
		return err
	}
	bin := filepath.Join(*cacheDir, "bin")
	for _, b := range []struct{ name, pkg string }{{"agentstat", "./cmd/agentstat"}, {"benchrun", "./internal/benchrun"}} {
		if o, err := exec.Command("go", "build", "-o", filepath.Join(bin, b.name), b.pkg).CombinedOutput(); err != nil {
			return fmt.Errorf("build %s: %v\n%s", b.pkg, err, o)
		}
	}
	agentstat, self := filepath.Join(bin, "agentstat"), filepath.Join(bin, "benchrun")
	fmt.Fprintf(out, "machine: %s, %d CPUs (GOMAXPROCS %d), %s/%s, %s\n", cpuModel(), runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, runtime.Version())
	fmt.Fprintf(out, "medians of %d runs; before each: sync, a %s pause and a read of the corpus (untimed)\n\n", *runs, *settle)
	fmt.Fprintln(out, "| corpus | case | time | MB/s | files/s | × cat | peak RSS |")
	fmt.Fprintln(out, "|---|---|---:|---:|---:|---:|---:|")
	var largest string // the largest corpus measured
	for _, s := range strings.Split(*sizes, ",") {
		size, err := humanize.ParseBytes(s)
		if err != nil {
			return err
		}
		dir, files, bytes, err := corpus(*cacheDir, int64(size))
		if err != nil {
			return err
		}
		largest = dir
		outDir := filepath.Join(*cacheDir, "out")
		report := func(args ...string) func(int) []string {
			cmd := append([]string{agentstat, "report", "-q", "--force"}, args...)
			return func(int) []string { return append(slices.Clip(cmd), "-o", outDir, dir) }
		}
		cases := []struct {
			name string
			cmd  func(run int) []string
		}{
			{"cat", same(catAll(dir))},
			{"Go read, parallel", same([]string{self, "-read", dir})},
			{"report -f json", report("-f", "json")},
			{"report -f md", report("-f", "md")},
			// Each run into a directory of its own, none removed until the
			// case is done: see prepare.
			{"report (full set)", func(run int) []string {
				return []string{agentstat, "report", "-q", "-o", filepath.Join(outDir+"-fresh", strconv.Itoa(run)), dir}
			}},
			{"report (full set), replacing the last", report()},
		}
		warm := catAll(dir)
		var floor time.Duration
		for _, c := range cases {
			m, err := median(c.cmd, *runs, func() error { return prepare(warm, *settle) })
			os.RemoveAll(outDir + "-fresh")
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			if floor == 0 {
				floor = m.wall
			}
			secs := m.wall.Seconds()
			fmt.Fprintf(out, "| %s | %s | %.2f s | %.0f | %.0f | %.1f | %d MiB |\n", s, c.name, secs,
				float64(bytes)/1e6/secs, float64(files)/secs, float64(m.wall)/float64(floor), m.rss>>20)
		}
		os.RemoveAll(outDir)
	}
	// The largest file alone (the 1 GB corpus's 500 MB transcript): its
	// memory is what one long session costs, whatever else is read.
	if largest != "" {
		file, size, err := largestFile(largest)
		if err != nil {
			return err
		}
		warm := []string{"cat", file}
		m, err := median(same([]string{agentstat, "report", "-q", "--force", "-f", "json", "-o", filepath.Join(*cacheDir, "out"), file}), *runs,
			func() error { return prepare(warm, *settle) })
		os.RemoveAll(filepath.Join(*cacheDir, "out"))
		if err != nil {
			return err
		}
		name, _ := filepath.Rel(largest, file)
		fmt.Fprintf(out, "\n`agentstat report -f json` on the largest file alone (%s, %.0f MB): %.2f s, peak RSS %d MiB\n",
			name, float64(size)/1e6, m.wall.Seconds(), m.rss>>20)
	}
	// The /report case: Markdown on stdout for a typical project.
	dir, _, _, err := corpus(*cacheDir, 10e6)
	if err != nil {
		return err
	}
	warm := catAll(dir)
	m, err := median(same([]string{agentstat, "summary", dir}), *runs, func() error { return prepare(warm, *settle) })
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\n`agentstat summary` on a 10 MB project: %.2f s, peak RSS %d MiB\n", m.wall.Seconds(), m.rss>>20)
	return nil
}

// largestFile is the largest regular file under dir.
func largestFile(dir string) (path string, size int64, err error) {
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err == nil && info.Size() > size {
			path, size = p, info.Size()
		}
		return err
	})
	if err == nil && path == "" {
		err = fmt.Errorf("no file under %s", dir)
	}
	return path, size, err
}

// same is a case that runs the same command every time.
func same(cmd []string) func(int) []string { return func(int) []string { return cmd } }

// catAll reads every file under dir to /dev/null: the floor, and the warm-up.
func catAll(dir string) []string {
	return []string{"sh", "-c", `find "$1" -type f -print0 | xargs -0 cat > /dev/null`, "sh", dir}
}

type measurement struct {
	wall time.Duration
	rss  int64 // bytes
}

// prepare puts the machine in the same state before every run: the disk
// settled and the corpus in the page cache. On this kind of VM both drift:
// a proactive reclaimer (kdamond) pages out file pages left unread for 30 s.
//
// Creating files is the other drift, and no pause removes it: on ext4
// without a journal (this VM's root), the inode allocator passes over every
// inode freed in the last 60 s (360 s while its inode table block is dirty),
// each at the cost of a buffer lookup (recently_deleted in fs/ext4/ialloc.c).
// 7,300 files created 2 s after as many were removed took 3.1 s instead of
// 0.23 s. So the full set is measured into fresh directories, as a nightly
// job on a new clone writes it, and separately replacing the last report.
func prepare(warm []string, settle time.Duration) error {
	syscall.Sync()
	time.Sleep(settle)
	_, err := measure(warm)
	return err
}

// median runs cmd n times, each after before, and returns the median wall
// time and the largest peak RSS.
func median(cmd func(run int) []string, n int, before func() error) (measurement, error) {
	var walls []time.Duration
	var rss int64
	for run := range n {
		if err := before(); err != nil {
			return measurement{}, err
		}
		m, err := measure(cmd(run))
		if err != nil {
			return m, err
		}
		walls, rss = append(walls, m.wall), max(rss, m.rss)
	}
	slices.Sort(walls)
	return measurement{wall: walls[len(walls)/2], rss: rss}, nil
}

// measure runs cmd once; its peak RSS comes from the kernel's rusage of the
// child (the largest of its process tree for the cat pipeline).
func measure(cmd []string) (measurement, error) {
	c := exec.Command(cmd[0], cmd[1:]...)
	c.Stdout, c.Stderr = io.Discard, os.Stderr
	start := time.Now()
	if err := c.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 0 {
			return measurement{}, fmt.Errorf("%s: %w", strings.Join(cmd, " "), err)
		}
	}
	m := measurement{wall: time.Since(start)}
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.rss = ru.Maxrss << 10 // Linux reports kilobytes
	}
	return m, nil
}

// corpus returns the cached corpus of the size, generating it the first time.
func corpus(cache string, size int64) (dir string, files int, bytes int64, err error) {
	dir = filepath.Join(cache, fmt.Sprintf("corpus-%s-v%d", strings.ReplaceAll(humanize.Bytes(uint64(size)), " ", ""), logsynth.Version))
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		tmp := dir + ".tmp"
		os.RemoveAll(tmp)
		fmt.Fprintf(os.Stderr, "generating %s …\n", dir)
		if _, err := logsynth.Generate(context.Background(), tmp, logsynth.Options{Size: size, Seed: 1}); err != nil {
			return "", 0, 0, err
		}
		if err := os.Rename(tmp, dir); err != nil {
			return "", 0, 0, err
		}
	}
	err = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			files, bytes = files+1, bytes+info.Size()
		}
		return err
	})
	return dir, files, bytes, err
}

// readAll reads every file under dir with GOMAXPROCS goroutines: the most a
// Go program could do before decoding anything.
func readAll(dir string) error {
	paths := make(chan string, 256)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			buf := make([]byte, 256<<10)
			for p := range paths {
				f, err := os.Open(p)
				if err == nil {
					_, err = io.CopyBuffer(io.Discard, struct{ io.Reader }{f}, buf)
					f.Close()
				}
				if err != nil {
					mu.Lock()
					firstErr = cmp(firstErr, err)
					mu.Unlock()
				}
			}
		})
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			paths <- p
		}
		return err
	})
	close(paths)
	wg.Wait()
	return errors.Join(err, firstErr)
}

func cmp(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

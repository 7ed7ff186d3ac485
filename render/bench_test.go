package render

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/agentstat/agentstat/internal/logsynth"
)

// BenchmarkWrite measures each output format on its own, from the report of
// a generated 20 MB corpus with its run details, in MB/s of the logs it
// reports on: the run pages and the workbook's tool-call sheet are most of
// a full report's time once the logs are read. Output goes to tmpfs where
// there is one, else each run writes a directory of its own, removed only
// at the end: on a journal-less ext4, files created within a minute of
// others' removal cost many times more (see internal/benchrun's prepare),
// which made one build's numbers depend on what the run before it removed.
func BenchmarkWrite(b *testing.B) {
	logs := b.TempDir()
	st, err := logsynth.Generate(context.Background(), logs, logsynth.Options{Size: 20e6, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	rep, err := reportWithDetails(logs)
	if err != nil {
		b.Fatal(err)
	}
	defer rep.Details.Close()
	for _, f := range Formats {
		b.Run(f.Name, func(b *testing.B) {
			out, tmpfs := benchOutDir(b)
			b.SetBytes(st.Bytes)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				dir := filepath.Join(out, strconv.Itoa(i))
				if err := Write(context.Background(), dir, []string{f.Name}, rep, Options{}); err != nil {
					b.Fatal(err)
				}
				if tmpfs { // memory: a /dev/shm of 64 MB (Docker's) holds a few runs only
					b.StopTimer()
					os.RemoveAll(dir)
					b.StartTimer()
				}
			}
		})
	}
}

// benchOutDir is a new directory on /dev/shm (tmpfs) if it can make one
// there, else the test's temporary directory; it is removed when the
// benchmark ends.
func benchOutDir(b *testing.B) (dir string, tmpfs bool) {
	dir, err := os.MkdirTemp("/dev/shm", "agentstat-bench-")
	if err != nil {
		return b.TempDir(), false
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	return dir, true
}

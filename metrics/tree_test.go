package metrics

import (
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentstat/agentstat/discover"
	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/logformat"
	"github.com/agentstat/agentstat/logformat/reader"
)

const testdataLogs = "../testdata/logs"

// readTree reads the files under roots (of one shard, when shard is set)
// one at a time, in discovery order, into an accumulator of settings s,
// leaving what waits for a join unjoined: the pipeline's work without its
// workers, for tests of what the accumulator, its joins and its partials
// make of a tree.
func readTree(t testing.TB, s Settings, shard discover.Shard, roots ...string) *Accumulator {
	t.Helper()
	acc := NewAccumulator(s)
	records, err := recordspill.New(s.Location)
	if err != nil {
		t.Fatal(err)
	}
	acc.WaitOn(records)
	w, err := acc.Worker()
	if err != nil {
		t.Fatal(err)
	}
	files := make(chan discover.File)
	go discover.Walk(context.Background(), discover.Options{Roots: roots, Shard: shard}, files)
	for c := range files {
		w.AddFile(c.Source, c.Ord, func(em reader.PartsEmitter) error {
			if c.Err != nil {
				return c.Err
			}
			f, err := os.Open(c.Path)
			if err != nil {
				return err
			}
			defer f.Close()
			var r io.Reader = f
			if strings.HasSuffix(c.Path, ".gz") {
				if r, err = gzip.NewReader(f); err != nil {
					return err
				}
			}
			return logformat.Read(r, c.Source, logformat.Options{Location: s.Location, Spill: records}, em)
		})
	}
	if err := acc.MergeWorker(w); err != nil {
		t.Fatal(err)
	}
	return acc
}

// joinTree is readTree's accumulator with the joins done.
func joinTree(t testing.TB, s Settings, roots ...string) *Accumulator {
	t.Helper()
	acc := readTree(t, s, discover.Shard{}, roots...)
	if err := acc.Join(); err != nil {
		t.Fatal(err)
	}
	return acc
}

// reportOf is the report of the tree under roots, made at the epoch.
func reportOf(t testing.TB, s Settings, roots ...string) *Report {
	t.Helper()
	r := joinTree(t, s, roots...).Report(time.Unix(0, 0), "")
	in := r.Summary.Inputs
	if in.FilesSeen != in.FilesParsed+in.FilesSkipped+in.FilesFiltered {
		t.Errorf("files seen %d != parsed %d + skipped %d + filtered %d", in.FilesSeen, in.FilesParsed, in.FilesSkipped, in.FilesFiltered)
	}
	return r
}

// corpusDir is ../shared/corpus; the test skips without it.
func corpusDir(t *testing.T) string {
	dir := filepath.Join("..", "..", "shared", "corpus")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no corpus at %s: %v", dir, err)
	}
	return dir
}

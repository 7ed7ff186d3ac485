package logsynth_test

import (
	"context"
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentstat/agentstat/internal/logsynth"
	"github.com/agentstat/agentstat/logformat"
	"github.com/agentstat/agentstat/pipeline"
)

func tree(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = sha256.Sum256(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A corpus is a function of its seed and size, and agentstat reads every
// file of it cleanly: no skip, no warning, every format present.
func TestCorpus(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	opt := logsynth.Options{Size: 3e6, Seed: 5}
	st, err := logsynth.Generate(context.Background(), a, opt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := logsynth.Generate(context.Background(), b, opt); err != nil {
		t.Fatal(err)
	}
	ta, tb := tree(t, a), tree(t, b)
	if len(ta) != st.Files || len(ta) != len(tb) {
		t.Fatalf("%d and %d files, stats say %d", len(ta), len(tb), st.Files)
	}
	for name, h := range ta {
		if tb[name] != h {
			t.Errorf("%s differs between two runs with one seed", name)
		}
	}
	if st.Bytes < opt.Size || st.Bytes > opt.Size*11/10 {
		t.Errorf("%d bytes for a size of %d", st.Bytes, opt.Size)
	}
	rep, err := pipeline.Report(context.Background(), pipeline.Options{Roots: []string{a}, Now: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	in := rep.Summary.Inputs
	if in.FilesSkipped != 0 || len(in.Warnings) != 0 || in.FilesParsed != int64(st.Files) {
		t.Errorf("parsed %d of %d files, skipped %d (%v), warnings %v", in.FilesParsed, st.Files, in.FilesSkipped, in.Skipped, in.Warnings)
	}
	for _, f := range logformat.All() {
		if in.ByFormat[f.Name] == 0 || st.ByFormat[f.Name].Files == 0 {
			t.Errorf("no %s files", f.Name)
		}
	}
}

// Output paths: checked before anything is read, written atomically.

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentstat/agentstat/discover"
	"github.com/agentstat/agentstat/internal/flock"
	"github.com/agentstat/agentstat/render"
)

// writeFileAtomic writes a file through a temporary file beside it, locked
// while it is written so that no other run takes it for one a killed run left.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	path = render.ThroughLinks(path) // a link to the file stays a link, to the new file
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	flock.RemoveStale(dir, discover.TempPrefix+"tmp-", render.StaleAge)
	f, err := os.CreateTemp(dir, discover.TempPrefix+"tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	unlock, _ := flock.Lock(context.Background(), f.Name()) // new: never waits
	defer unlock()
	if err := f.Chmod(0o644); err != nil { // CreateTemp makes 0600; this is an ordinary output file
		f.Close()
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// maxJobs bounds -j: each reader holds its buffers and an accumulator.
const maxJobs = 1024

// writable refuses an output path that cannot be what it must be: empty, a
// directory where a file is written or the reverse, or below a file.
func writable(flag, path string, isDir bool) error {
	if path == "" {
		return fmt.Errorf("%s: name a path", flag)
	}
	if info, err := os.Stat(path); err == nil {
		switch {
		case isDir && !info.IsDir():
			return fmt.Errorf("%s %s is a file, not a directory", flag, path)
		case !isDir && info.IsDir():
			return fmt.Errorf("%s %s is a directory, not a file", flag, path)
		}
		return nil
	}
	for dir := filepath.Dir(filepath.Clean(path)); ; dir = filepath.Dir(dir) {
		if info, err := os.Stat(dir); err == nil {
			if !info.IsDir() {
				return fmt.Errorf("%s %s: %s is a file, not a directory", flag, path, dir)
			}
			return nil
		}
		if filepath.Dir(dir) == dir {
			return nil
		}
	}
}

// apart refuses an output that would replace or write into an input: one
// that is an input root or lies inside one, or, for a directory (which is
// replaced whole), one that holds a root.
func apart(flag, out string, roots []string, isDir bool) error {
	o := resolved(out)
	for _, root := range roots {
		r := resolved(root)
		switch {
		case o == r:
			return fmt.Errorf("%s %s is the input %s: name an output outside the inputs", flag, out, root)
		case within(o, r):
			return fmt.Errorf("%s %s lies inside the input %s: name an output outside the inputs", flag, out, root)
		case isDir && within(r, o):
			return fmt.Errorf("%s %s holds the input %s, and would be replaced with it: name an output outside the inputs", flag, out, root)
		}
	}
	return nil
}

// within reports whether path lies strictly below dir.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// resolved is p made absolute, the links it names followed as an output is
// written through them (render.ThroughLinks, even to a target not made yet),
// and the links of its longest existing ancestor followed, so that two names
// of one place compare equal.
func resolved(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	abs = render.ThroughLinks(abs)
	rest := ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if filepath.Dir(dir) == dir {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

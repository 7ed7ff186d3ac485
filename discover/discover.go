// Package discover finds the log files under the roots, in a stable order,
// and picks a shard's share of them.
package discover

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/bmatcuk/doublestar/v4"
)

// TempPrefix starts the name of the temporary directories outputs are
// written into; discovery never descends into them.
const TempPrefix = ".agentstat-"

// File is a file discovery found: where it is, and the name reports use.
type File struct {
	Path   string // on disk
	Source string // relative to its root, '/'-separated, prefixed by the root when there are several
	Size   int64
	Ord    int    // discovery order
	Err    error  // set when the entry could not even be listed (a directory we may not read)
	DupOf  string // the source of the same file, found earlier (a hard link, roots that overlap)
}

// Options are what to walk and what to keep.
type Options struct {
	Roots            []string
	Include, Exclude []string // doublestar globs on the relative path or the base name
	Shard            Shard
	Found            *atomic.Int64 // counted into, when set, for each file sent
}

// isLogName reports whether a file name is one agentstat reads: .json or
// .jsonl, optionally gzipped.
func isLogName(name string) bool {
	n := strings.ToLower(name)
	n = strings.TrimSuffix(n, ".gz")
	return strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".jsonl")
}

// ValidateGlobs reports the first malformed include/exclude pattern.
func ValidateGlobs(patterns []string) error {
	for _, p := range patterns {
		if !doublestar.ValidatePattern(p) {
			return fmt.Errorf("bad glob %q", p)
		}
	}
	return nil
}

// matchAny tests a '/'-separated relative path, and its base name, against patterns.
func matchAny(patterns []string, rel string) bool {
	base := rel[strings.LastIndexByte(rel, '/')+1:]
	for _, p := range patterns {
		if ok, _ := doublestar.Match(p, rel); ok {
			return true
		}
		if ok, _ := doublestar.Match(p, base); ok {
			return true
		}
	}
	return false
}

// Walk walks the roots in order and sends every log file it finds, in a
// stable (lexical) order, then closes out; it returns how many files the
// walk numbered (every shard's). Links are not followed, so a link loop or
// a link out of a root cannot be walked; FIFOs and devices are never opened.
func Walk(ctx context.Context, opt Options, out chan<- File) (found int, err error) {
	defer close(out)
	ord := 0
	seen := map[[2]uint64]string{} // file identity → the source it was first found as
	identify := func(c *File, info fs.FileInfo) {
		if key, ok := fileKey(info); ok {
			if first, dup := seen[key]; dup {
				c.DupOf = first
			} else {
				seen[key] = c.Source
			}
		}
	}
	// Every shard numbers files alike (ord counts them all), so that runs
	// keep their single-pass order when shards are merged.
	send := func(c File) error {
		c.Ord = ord
		ord++
		if !opt.Shard.has(c.Source) {
			return nil
		}
		if opt.Found != nil {
			opt.Found.Add(1)
		}
		select {
		case out <- c:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for _, root := range opt.Roots {
		prefix := ""
		if len(opt.Roots) > 1 {
			prefix = strings.TrimSuffix(filepath.ToSlash(filepath.Clean(root)), "/") + "/"
		}
		info, err := os.Stat(root)
		if err != nil {
			return ord, fmt.Errorf("root %s: %w", root, err)
		}
		if !info.IsDir() { // a file named on the command line is read whatever its name
			c := File{Path: root, Source: filepath.ToSlash(root), Size: info.Size()}
			identify(&c, info)
			if err := send(c); err != nil {
				return ord, err
			}
			continue
		}
		// A root named on the command line is followed if it is a link (as
		// find -H does); links met while walking never are.
		walkRoot := root
		if li, err := os.Lstat(root); err == nil && li.Mode()&fs.ModeSymlink != 0 {
			walkRoot = root + string(filepath.Separator)
		}
		err = filepath.WalkDir(walkRoot, func(p string, d fs.DirEntry, err error) error {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return ctxErr
			}
			rel, _ := filepath.Rel(walkRoot, p)
			rel = filepath.ToSlash(rel)
			if err != nil {
				if p == walkRoot {
					return err
				}
				// A directory (or file) we may not read is accounted for, not fatal.
				if err := send(File{Path: p, Source: prefix + rel, Err: err}); err != nil {
					return err
				}
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				if p == walkRoot {
					return nil
				}
				if strings.HasPrefix(d.Name(), TempPrefix) {
					return fs.SkipDir
				}
				if len(opt.Exclude) > 0 && matchAny(opt.Exclude, rel) {
					return fs.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() || !isLogName(d.Name()) {
				return nil
			}
			if len(opt.Include) > 0 && !matchAny(opt.Include, rel) {
				return nil
			}
			if len(opt.Exclude) > 0 && matchAny(opt.Exclude, rel) {
				return nil
			}
			// A copy: filepath.Rel's result is a slice of p, and a source
			// outlives its path (the join's fragments, every file's fate).
			c := File{Path: p, Source: strings.Clone(prefix + rel)}
			if info, err := d.Info(); err == nil {
				c.Size = info.Size()
				identify(&c, info)
			} else {
				c.Err = err
			}
			return send(c)
		})
		if err != nil && !errors.Is(err, context.Canceled) {
			return ord, fmt.Errorf("walk %s: %w", root, err)
		}
		if err != nil {
			return ord, err
		}
	}
	return ord, nil
}

// Package flock holds advisory locks (flock) on files and directories, and
// with them tells a temporary output a running process is still writing
// from one a killed process left behind.
package flock

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Lock takes an exclusive lock on path, waiting for it; unlock releases it.
// ok is false where it cannot be taken (the path cannot be opened, or the
// system or file system has no flock): the caller goes on unlocked.
func Lock(path string) (unlock func(), ok bool) { return lock(path, true) }

// TryLock takes the lock only if no one holds it.
func TryLock(path string) (unlock func(), ok bool) { return lock(path, false) }

// RemoveStale removes what a killed process left in dir: the entries named
// prefix… (files or directories, never symbolic links) that were last
// changed before minAge ago and on which no process holds a lock. Their
// makers lock them right after making them, so the age only spares an
// entry in that instant, and one on a file system where a lock held
// elsewhere may not show. Where locks cannot be taken nothing is removed.
func RemoveStale(dir, prefix string, minAge time.Duration) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) || e.Type()&os.ModeSymlink != 0 {
			continue
		}
		info, err := e.Info()
		if err != nil || time.Since(info.ModTime()) < minAge {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if unlock, ok := TryLock(p); ok {
			os.RemoveAll(p)
			unlock()
		}
	}
}

// Package flock holds advisory locks (flock) on files and directories, and
// with them tells a temporary output a running process is still writing
// from one a killed process left behind.
package flock

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// held is this process's locks by file identity: flock excludes open files,
// not processes, so a second Lock of a path this process already holds
// (through another name, such as "." and its absolute path) would otherwise
// wait for itself forever.
var (
	heldMu sync.Mutex
	held   = map[fileID]*hold{}
)

// hold is one lock of this process: the file that carries it, and how many
// holders share it.
type hold struct {
	f *os.File
	n int
}

// Lock takes an exclusive lock on path, waiting for it until ctx is done;
// unlock releases it. A path this process holds already is granted again at
// once. ok is false where it cannot be taken (the path cannot be opened, the
// system or file system has no flock, or ctx ended): the caller goes on
// unlocked, or stops if ctx ended.
func Lock(ctx context.Context, path string) (unlock func(), ok bool) {
	return lock(ctx, path, true)
}

// TryLock takes the lock only if no one holds it, this process included.
func TryLock(path string) (unlock func(), ok bool) {
	return lock(context.Background(), path, false)
}

func lock(ctx context.Context, path string, wait bool) (unlock func(), ok bool) {
	// O_NONBLOCK: opening a FIFO would otherwise wait for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|nonblock, 0)
	if err != nil {
		return func() {}, false
	}
	id, err := identity(f)
	if err != nil {
		f.Close()
		return func() {}, false
	}
	heldMu.Lock()
	if h := held[id]; h != nil {
		if wait {
			h.n++
		}
		heldMu.Unlock()
		f.Close()
		if !wait {
			return func() {}, false
		}
		return release(id), true
	}
	heldMu.Unlock()
	for delay := time.Millisecond; ; delay = min(2*delay, 100*time.Millisecond) {
		taken, err := tryFlock(f)
		if taken {
			break
		}
		if err != nil || !wait {
			f.Close()
			return func() {}, false
		}
		select {
		case <-ctx.Done():
			f.Close()
			return func() {}, false
		case <-time.After(delay):
		}
	}
	heldMu.Lock()
	held[id] = &hold{f: f, n: 1}
	heldMu.Unlock()
	return release(id), true
}

// release drops one hold of id; the last closes its file, which releases the lock.
func release(id fileID) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			heldMu.Lock()
			defer heldMu.Unlock()
			h := held[id]
			if h.n--; h.n == 0 {
				delete(held, id)
				h.f.Close()
			}
		})
	}
}

// RemoveStale removes what a killed process left in dir: the entries named
// prefix… (files or directories, never symbolic links, FIFOs or devices)
// that were last changed before minAge ago and on which no process holds a
// lock. Their makers lock them right after making them, so the age only
// spares an entry in that instant, and one on a file system where a lock
// held elsewhere may not show. Where locks cannot be taken nothing is removed.
func RemoveStale(dir, prefix string, minAge time.Duration) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) || !e.Type().IsRegular() && !e.IsDir() {
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

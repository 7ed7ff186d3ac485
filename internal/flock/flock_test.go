//go:build unix

package flock

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// RemoveStale removes an old, unlocked entry with the prefix, file or
// directory, and keeps one that is locked, one that is new, one without the
// prefix and a symbolic link.
func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	target := t.TempDir()
	old := time.Now().Add(-2 * time.Hour)
	mk := func(name string, isDir bool, mtime time.Time) string {
		p := filepath.Join(dir, name)
		if isDir {
			if err := os.MkdirAll(filepath.Join(p, "runs"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(p, "runs", "a.html"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return p
	}
	staleDir := mk(".tmp-dead", true, old)
	staleFile := mk(".tmp-dead-file", false, old)
	held := mk(".tmp-held", true, old)
	fresh := mk(".tmp-fresh", true, time.Now())
	other := mk("report", true, old)
	link := filepath.Join(dir, ".tmp-link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	unlock, ok := Lock(context.Background(), held)
	if !ok {
		t.Fatal("cannot lock", held)
	}
	defer unlock()

	RemoveStale(dir, ".tmp-", time.Hour)
	for _, p := range []string{staleDir, staleFile} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s: still there (%v)", filepath.Base(p), err)
		}
	}
	for _, p := range []string{held, fresh, other, link, target} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s: removed (%v)", filepath.Base(p), err)
		}
	}
}

// A lock is exclusive between open files, also within one process, and is
// free again once released.
func TestTryLock(t *testing.T) {
	p := t.TempDir()
	unlock, ok := Lock(context.Background(), p)
	if !ok {
		t.Fatal("cannot lock")
	}
	if _, ok := TryLock(p); ok {
		t.Fatal("a held lock was taken again")
	}
	unlock()
	again, ok := TryLock(p)
	if !ok {
		t.Fatal("a released lock could not be taken")
	}
	again()
	if _, ok := TryLock(filepath.Join(p, "missing")); ok {
		t.Fatal("locked a missing path")
	}
}

// A path this process holds is granted again at once under any of its
// names, and stays locked for others until every hold is released.
func TestLockReentrant(t *testing.T) {
	p := t.TempDir()
	t.Chdir(p)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	first, ok := Lock(ctx, p)
	if !ok {
		t.Fatal("cannot lock")
	}
	second, ok := Lock(ctx, ".")
	if !ok {
		t.Fatal("the same directory, named again, was not granted")
	}
	first()
	first() // releasing twice is releasing once
	if _, ok := TryLock(p); ok {
		t.Fatal("released while a second hold remains")
	}
	second()
	again, ok := TryLock(p)
	if !ok {
		t.Fatal("not free after every hold was released")
	}
	again()
}

// A wait for a lock held by another open file ends when the context does.
func TestLockCancelled(t *testing.T) {
	p := t.TempDir()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if taken, err := tryFlock(f); !taken || err != nil {
		t.Fatal("cannot lock", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, ok := Lock(ctx, p); ok {
		t.Fatal("a lock held elsewhere was taken")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("the wait went on %v after its context ended", d)
	}
}

// A FIFO with the prefix is left alone, and opening it does not block.
func TestRemoveStaleFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, ".tmp-fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(fifo, old, old); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		RemoveStale(dir, ".tmp-", time.Hour)
		TryLock(fifo)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("blocked on a FIFO")
	}
	if _, err := os.Lstat(fifo); err != nil {
		t.Error("FIFO removed:", err)
	}
}

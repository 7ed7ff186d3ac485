//go:build unix

package flock

import (
	"os"
	"path/filepath"
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
	unlock, ok := Lock(held)
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
	unlock, ok := Lock(p)
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

//go:build unix

package rawfile

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO put where a log was does not hang the reader: the open returns at
// once and a read with no writer ends.
func TestFIFODoesNotBlock(t *testing.T) {
	name := filepath.Join(t.TempDir(), "fifo.json")
	if err := syscall.Mkfifo(name, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		f, err := Open(name)
		if err == nil {
			_, err = f.Read(make([]byte, 8))
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != io.EOF {
			t.Errorf("Read of a FIFO with no writer = %v; want EOF", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Open of a FIFO blocked")
	}
}

// umask is the process's file mode creation mask.
func umask() fs.FileMode {
	old := syscall.Umask(0)
	syscall.Umask(old)
	return fs.FileMode(old)
}

// checkMode checks that Create gave name mode perm, less the umask.
func checkMode(t *testing.T, name string, perm fs.FileMode) {
	t.Helper()
	old := syscall.Umask(0)
	syscall.Umask(old)
	if info, err := os.Stat(name); err != nil || info.Mode().Perm() != perm&^fs.FileMode(old) {
		t.Fatalf("Stat = %v, %v; want mode %v", info.Mode(), err, perm&^fs.FileMode(old))
	}
}

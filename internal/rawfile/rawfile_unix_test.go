//go:build unix

package rawfile

import (
	"fmt"
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

// A pipe whose writer is slow to write is read to its end, not given up on
// as "resource temporarily unavailable" (agentstat summary /dev/stdin).
func TestPipeWaitsForWriter(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f, err := Open(fmt.Sprintf("/dev/fd/%d", r.Fd()))
	if err != nil {
		t.Skipf("no /dev/fd here: %v", err)
	}
	defer f.Close()
	go func() {
		time.Sleep(200 * time.Millisecond)
		w.Write([]byte(`{"a":1}`))
		w.Close()
	}()
	b, err := io.ReadAll(f)
	if err != nil || string(b) != `{"a":1}` {
		t.Errorf("read %q, %v", b, err)
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

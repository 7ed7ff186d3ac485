package tempfile

import (
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
)

// A scratch file has no name in the directory while it is open (on Unix),
// reads back what was written through independent sections, and is gone
// after Close everywhere.
func TestNew(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	t.Setenv("TMP", dir) // Windows
	f, err := New("agentstat-test-*")
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if runtime.GOOS != "windows" && len(entries) != 0 {
		t.Errorf("open scratch file left a name: %v", entries)
	}
	if _, err := f.WriteString("hello, world"); err != nil {
		t.Fatal(err)
	}
	a, b := f.Section(), f.Section()
	head := make([]byte, 5)
	if _, err := io.ReadFull(a, head); err != nil || string(head) != "hello" {
		t.Fatalf("first section read %q, %v", head, err)
	}
	if all, err := io.ReadAll(b); err != nil || string(all) != "hello, world" {
		t.Fatalf("second section read %q, %v", all, err)
	}
	if rest, _ := io.ReadAll(a); string(rest) != ", world" {
		t.Fatalf("first section went on with %q", rest)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("closed scratch file left %v", entries)
	}
}

// Where the file system can (Linux, O_TMPFILE), a scratch file never has a
// name: no instant exists in which a killed run leaves it behind.
func TestNewUnnamed(t *testing.T) {
	dir := t.TempDir()
	if f, err := openUnnamed(dir, "probe"); err != nil {
		t.Skip("no unnamed files here:", err)
	} else {
		f.Close()
	}
	t.Setenv("TMPDIR", dir)
	f, err := New("agentstat-test-*")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !f.unlinked || !strings.HasSuffix(f.Name(), "(unnamed)") {
		t.Errorf("scratch file %q made by name, not unnamed", f.Name())
	}
	if _, err := f.WriteAt([]byte("abc"), 0); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 3)
	if _, err := f.ReadAt(got, 0); err != nil || string(got) != "abc" {
		t.Errorf("read back %q, %v", got, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("unnamed scratch file shows as %v", entries)
	}
}

package tempfile

import (
	"io"
	"os"
	"runtime"
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

package rawfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// A file written through Create reads back through Open as os writes and
// reads it: the same bytes, io.EOF at the end, a seek back to the start.
func TestWriteReadSeek(t *testing.T) {
	name := filepath.Join(t.TempDir(), "a.json")
	w, err := Create(name, 0o640)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte(`{"a":1}` + "\n")
	if n, err := w.Write(want); n != len(want) || err != nil {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	checkMode(t, name, 0o640)
	r, err := Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for pass := range 2 {
		got, err := io.ReadAll(r)
		if err != nil || string(got) != string(want) {
			t.Fatalf("pass %d: ReadAll = %q, %v; want %q", pass, got, err, want)
		}
		if n, err := r.Read(make([]byte, 8)); n != 0 || err != io.EOF {
			t.Fatalf("pass %d: Read at the end = %d, %v; want 0, EOF", pass, n, err)
		}
		if off, err := r.Seek(0, io.SeekStart); off != 0 || err != nil {
			t.Fatalf("Seek = %d, %v", off, err)
		}
	}
	if n, err := r.Read(nil); n != 0 || err != nil {
		t.Fatalf("Read(nil) = %d, %v; want 0, nil", n, err)
	}
}

// Errors are *fs.PathErrors naming the operation and the file, as os gives
// them (the data-quality section shows their Op and Err).
func TestErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.json")
	_, err := Open(missing)
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Op != "open" || pe.Path != missing || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Open(missing) = %#v; want an open PathError for %s, ErrNotExist", err, missing)
	}
	if _, osErr := os.Open(missing); err.Error() != osErr.Error() {
		t.Errorf("Open(missing) says %q, os.Open %q", err, osErr)
	}
	name := filepath.Join(dir, "once.json")
	f, err := Create(name, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Create(name, 0o644); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Create over an existing file = %v; want ErrExist", err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("second Close = %v; want ErrClosed", err)
	}
	if _, err := f.Write([]byte("x")); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Write after Close = %v; want ErrClosed", err)
	}
	if _, err := f.Read(make([]byte, 1)); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Read after Close = %v; want ErrClosed", err)
	}
	d, err := Open(dir)
	if err != nil {
		t.Skipf("opening a directory: %v", err)
	}
	defer d.Close()
	_, err = d.Read(make([]byte, 8))
	if !errors.As(err, &pe) || pe.Op != "read" || pe.Path != dir {
		t.Errorf("Read of a directory = %#v; want a read PathError", err)
	}
}

// BenchmarkOpenRead opens, reads and closes small files as the pipeline
// does, through os.Open and through Open: the difference is the system
// calls os makes to try each file in the network poller.
func BenchmarkOpenRead(b *testing.B) {
	dir := b.TempDir()
	names := make([]string, 64)
	for i := range names {
		names[i] = filepath.Join(dir, "log-"+string(rune('a'+i%26))+string(rune('a'+i/26))+".json")
		if err := os.WriteFile(names[i], make([]byte, 4096), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	buf := make([]byte, 32<<10)
	read := func(b *testing.B, open func(string) (io.ReadCloser, error)) {
		for i := 0; b.Loop(); i++ {
			f, err := open(names[i%len(names)])
			if err != nil {
				b.Fatal(err)
			}
			for {
				if _, err := f.Read(buf); err == io.EOF {
					break
				} else if err != nil {
					b.Fatal(err)
				}
			}
			f.Close()
		}
	}
	b.Run("os", func(b *testing.B) { read(b, func(n string) (io.ReadCloser, error) { return os.Open(n) }) })
	b.Run("rawfile", func(b *testing.B) { read(b, func(n string) (io.ReadCloser, error) { return Open(n) }) })
}

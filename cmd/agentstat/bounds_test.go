//go:build linux

package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Lines cost memory by what they hold: a file of a few documents and a
// million empty or tiny lines is read in a bounded heap (each such line
// once cost a decoded document of about 2 KB: 2 GB for a 1 MB file).
func TestShortLinesBounded(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	doc := `{"session_id":"s","status":"success","tool_calls":[]}` + "\n"
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("blank.jsonl", []byte(doc+strings.Repeat("\n", 1_000_000)+strings.Repeat(" \t\r\n", 200_000)))
	write("tiny.jsonl", []byte(doc+strings.Repeat("1\n", 500_000)))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(doc))
	chunk := bytes.Repeat([]byte{'\n'}, 1<<20)
	for range 10 {
		zw.Write(chunk)
	}
	zw.Close()
	write("blank.jsonl.gz", gz.Bytes())

	cmd := exec.Command(bin, "summary", "-q", dir)
	cmd.Env = append(os.Environ(), "GOMEMLIMIT=100MiB")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%.2000s", err, out)
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
	if rss > 150<<20 {
		t.Errorf("peak RSS %d MiB reading %d MB of short lines", rss>>20, (1_000_000+800_000+1_000_000+10<<20)/1_000_000)
	}
}

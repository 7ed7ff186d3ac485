package formats

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentstat/agentstat/internal/logsynth"
)

// readBoth reads data as JSONL line by line and with the parallel reader,
// and returns what each emitted (runs joined) and returned.
func readBoth(t *testing.T, name string, data []byte) (serial, parallel string) {
	t.Helper()
	out := func(workers int) string {
		c := newCollector()
		err := Read(bytes.NewReader(data), name, Options{LineWorkers: workers}, c)
		runs, _ := Join(c.frags, c)
		runs = append(c.runs, runs...)
		var b strings.Builder
		fmt.Fprintf(&b, "err=%v warnings=%v runs=%d\n", err, c.warnings, len(runs))
		for _, r := range runs {
			fmt.Fprintf(&b, "%#v\n", *r)
		}
		return b.String()
	}
	return out(1), out(3)
}

// The parallel line reader gives exactly what reading line by line gives,
// on every JSONL file of testdata and the corpus, and on awkward layouts,
// with chunks small enough that every file spans many.
func TestParallelLinesSameAsSerial(t *testing.T) {
	oldChunk, oldLine := chunkBytes, maxChunkLine
	chunkBytes, maxChunkLine = 300, 2000
	defer func() { chunkBytes, maxChunkLine = oldChunk, oldLine }()

	inputs := map[string][]byte{}
	for _, root := range []string{filepath.Join("..", "..", "testdata", "logs"), filepath.Join("..", "..", "..", "shared", "corpus")} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
				b, err := os.ReadFile(p)
				if err == nil {
					inputs[p] = b
				}
			}
			return nil
		})
	}
	if len(inputs) < 5 {
		t.Fatalf("only %d JSONL files found", len(inputs))
	}
	for _, f := range []string{"claudecode", "codex", "otel"} {
		b, err := logsynth.File(f, 9)
		if err != nil {
			t.Fatal(err)
		}
		inputs["synth-"+f+".jsonl"] = b
	}
	claude, _ := logsynth.File("claudecode", 4)
	lines := bytes.SplitAfter(claude, []byte("\n"))
	long := `{"type":"user","sessionId":"s-long","uuid":"long","timestamp":"2026-03-05T10:00:00Z","message":{"role":"user","content":"` + strings.Repeat("long line ", 900) + `"}}`
	inputs["awkward.jsonl"] = bytes.Join([][]byte{
		lines[0], []byte("\n   \n"), []byte("{not json}\n"), lines[1], []byte(long + "\n"),
		[]byte(`{"a":1} {"b":2}` + "\n"), lines[2], []byte("\r\n"), []byte(long + "\r\n"), lines[3], bytes.TrimSuffix(lines[4], []byte("\n")),
	}, nil)
	inputs["only-broken.jsonl"] = []byte("{broken\n{\"x\":\n")
	inputs["blank.jsonl"] = []byte("{}\n\n\n")
	inputs["long-last.jsonl"] = []byte(long)
	for name, data := range inputs {
		serial, parallel := readBoth(t, filepath.Base(name), data)
		if serial != parallel {
			t.Errorf("%s: parallel read differs\nserial:   %.400s\nparallel: %.400s", name, serial, parallel)
		}
	}
}

func FuzzParallelLines(f *testing.F) {
	for _, dir := range []string{"broken", "claudecode/proj", "codex", "otel"} {
		paths, _ := filepath.Glob(filepath.Join(logPath(dir), "*.jsonl"))
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		oldChunk, oldLine := chunkBytes, maxChunkLine
		chunkBytes, maxChunkLine = 64, 256
		defer func() { chunkBytes, maxChunkLine = oldChunk, oldLine }()
		if serial, parallel := readBoth(t, "f.jsonl", data); serial != parallel {
			t.Fatalf("parallel read differs\nserial:   %.400s\nparallel: %.400s", serial, parallel)
		}
	})
}

package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// buildBinary builds agentstat once per test binary run.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "agentstat")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func session(id, title string, extra string) string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	return fmt.Sprintf(`{"session_id": %s, "task_title": %s, "status": "success", "created_at": "2026-01-01T00:00:00Z",
 "tool_calls": [{"call_id": "1", "tool_name": "Read", "duration_ms": 5, "output": {"status": "success"}}]%s}`, q(id), q(title), extra)
}

func treeHash(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	sums := map[string][32]byte{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		sums[rel] = sha256.Sum256(b)
		return nil
	})
	return sums
}

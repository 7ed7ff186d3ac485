//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Runs that extend the same history at once each add their entry: none is
// lost to another's read-modify-write.
func TestConcurrentHistory(t *testing.T) {
	bin := buildBinary(t)
	logs := filepath.Join("..", "..", "testdata", "logs")
	hist := filepath.Join(t.TempDir(), "history.jsonl")
	const n = 4
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			cmd := exec.Command(bin, "report", logs, "-q", "-f", "json", "-o", filepath.Join(t.TempDir(), fmt.Sprint("o", i)), "--history", hist)
			cmd.Env = append(os.Environ(), fmt.Sprintf("SOURCE_DATE_EPOCH=%d", 1767225600+86400*i))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("%v: %s", err, out)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(hist)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(b), "\n"); got != n {
		t.Errorf("%d history entries after %d concurrent runs, want every one:\n%s", got, n, b)
	}
}

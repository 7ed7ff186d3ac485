package metrics

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// The duplicate check counts what a map of every format and id counted:
// each run past the first of its format and id.
func TestDuplicateRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 50 {
		n := rng.IntN(2000)
		var ids []runID
		counts := map[string]int64{}
		for range n {
			format := []string{"claudecode", "codex", "session"}[rng.IntN(3)]
			id := fmt.Sprintf("run-%d", rng.IntN(1+n/2))
			if rng.IntN(20) == 0 {
				id = ""
			}
			ids = append(ids, runIDOf(format, id))
			counts[format+"\x00"+id]++
		}
		var want int64
		for _, c := range counts {
			want += c - 1
		}
		if got := duplicateRuns(ids); got != want {
			t.Fatalf("round %d: %d duplicates, want %d", round, got, want)
		}
	}
	if runIDOf("codex", "a") == runIDOf("claudecode", "a") || runIDOf("a", "bc") == runIDOf("ab", "c") {
		t.Error("a format and id share a digest with another")
	}
}

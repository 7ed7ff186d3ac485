package metrics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/agentstat/agentstat/logformat/reader"
)

// Joined runs are folded and spilled in chunks as the join completes them:
// however small the chunks, the summary, the run index and the run details
// (runs, calls and their order) are those of one chunk for the whole join,
// and without details (each run folded at once) the same summary and index.
func TestJoinedChunks(t *testing.T) {
	roots := []string{testdataLogs}
	if _, err := os.Stat(filepath.Join("..", "..", "shared", "corpus")); err == nil {
		roots = append(roots, filepath.Join("..", "..", "shared", "corpus"))
	}
	defer func(n int) { joinedChunk = n }(joinedChunk)
	var first []byte
	for _, size := range []int{1 << 30, 1, 40} {
		joinedChunk = size
		r := reportOf(t, Settings{KeepDetails: true}, roots...)
		var b bytes.Buffer
		enc := jsonEncoder(&b)
		enc.Encode(r.Summary)
		enc.Encode(r.Runs.Rows())
		// Without details, every run is folded as soon as it is joined.
		var lean bytes.Buffer
		nr := reportOf(t, Settings{}, roots...)
		jsonEncoder(&lean).Encode(nr.Summary)
		jsonEncoder(&lean).Encode(nr.Runs.Rows())
		if !bytes.Equal(lean.Bytes(), b.Bytes()) {
			t.Fatalf("chunks of %d: other results without details", size)
		}
		n := 0
		for run, err := range r.Details.All() {
			if err != nil {
				t.Fatal(err)
			}
			enc.Encode(run)
			n++
		}
		files := len(r.Details.files)
		r.Details.Close()
		if int64(n) != r.Summary.Runs.Total || (size == 1 && files < 2) {
			t.Fatalf("chunks of %d: %d details for %d runs, in %d files", size, n, r.Summary.Runs.Total, files)
		}
		if first == nil {
			first = b.Bytes()
		} else if !bytes.Equal(first, b.Bytes()) {
			t.Fatalf("chunks of %d give other results", size)
		}
	}
}

func jsonEncoder(b *bytes.Buffer) *json.Encoder { return json.NewEncoder(b) }

// A session long enough to be folded a part of its calls at a time has
// its calls' texts redacted all the same, and its calls in order: with
// chunks of 1 its parts (two: more calls than a part holds) are made on a
// goroutine of their own while the one before is folded (partsAhead; -race
// sees a part overwritten while it is folded).
func TestLongSessionRedacted(t *testing.T) {
	const secret = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
	const n = 4100
	var b strings.Builder
	line := func(uuid string, at int, msg, extra string) {
		fmt.Fprintf(&b, `{"sessionId":"s-long","type":"x","uuid":%q,"timestamp":"2026-03-05T%02d:%02d:%02dZ","message":%s%s}`+"\n", uuid, 10+at/3600, at/60%60, at%60, msg, extra)
	}
	line("u0", 0, `{"role":"user","content":"go"}`, "")
	for i := range n {
		line(fmt.Sprint("a", i), 1+2*i, fmt.Sprintf(`{"role":"assistant","content":[{"type":"tool_use","id":"t%d","name":"Bash","input":{}}]}`, i), "")
		line(fmt.Sprint("r", i), 2+2*i, fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","is_error":true,"content":"x"}]}`, i),
			fmt.Sprintf(`,"toolUseResult":"Error: token `+secret+` rejected in call %d"`, i))
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s-long.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func(n int) { joinedChunk = n }(joinedChunk)
	for _, size := range []int{1 << 30, 1} {
		joinedChunk = size
		r := reportOf(t, Settings{KeepDetails: true}, dir)
		if got := r.Summary.Inputs.Redacted; got != n {
			t.Errorf("chunks of %d: %d values redacted, want %d", size, got, n)
		}
		calls := 0
		for run, err := range r.Details.All() {
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range run.ToolCalls {
				if strings.Contains(c.Error, secret) || !strings.Contains(c.Error, "[redacted]") || !strings.HasSuffix(c.Error, fmt.Sprint(" call ", calls)) {
					t.Fatalf("chunks of %d: call %d error %q", size, calls, c.Error)
				}
				calls++
			}
		}
		r.Details.Close()
		if calls != n {
			t.Errorf("chunks of %d: %d calls in the details, want %d", size, calls, n)
		}
		if got := reportOf(t, Settings{}, dir).Summary.Inputs.Redacted; got != n {
			t.Errorf("chunks of %d, no details: %d values redacted, want %d", size, got, n)
		}
	}
}

// Warnings the join raises (here a call whose result is stamped before its
// use) reach the summary, whether the session's calls come whole or in
// parts, with details or without: the join counts them on a goroutine of
// its own.
func TestJoinWarnings(t *testing.T) {
	var b strings.Builder
	line := func(uuid, at, msg string) {
		fmt.Fprintf(&b, `{"sessionId":"s-warn","type":"x","uuid":%q,"timestamp":"2026-03-05T10:00:%sZ","message":%s}`+"\n", uuid, at, msg)
	}
	line("u0", "00", `{"role":"user","content":"go"}`)
	line("r0", "01", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t0","content":"ok"}]}`)
	line("a0", "05", `{"role":"assistant","content":[{"type":"tool_use","id":"t0","name":"Bash","input":{}}]}`)
	line("a1", "06", `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}]}`)
	line("r1", "07", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}`)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s-warn.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func(n int) { joinedChunk = n }(joinedChunk)
	for _, size := range []int{1 << 30, 1} {
		joinedChunk = size
		for _, details := range []bool{true, false} {
			r := reportOf(t, Settings{KeepDetails: details}, dir)
			if got := r.Summary.Inputs.Warnings[reader.WarnNegativeDuration]; got != 1 {
				t.Errorf("chunks of %d, details %v: %d %s warnings, want 1", size, details, got, reader.WarnNegativeDuration)
			}
			if r.Summary.Runs.Total != 1 || r.Summary.ToolCalls.Total != 2 {
				t.Errorf("chunks of %d, details %v: %d runs, %d calls; want 1, 2", size, details, r.Summary.Runs.Total, r.Summary.ToolCalls.Total)
			}
			if r.Details != nil {
				r.Details.Close()
			}
		}
	}
}

// The join hands over no more calls than a chunk holds before the fold
// takes them in, but a run larger than that alone.
func TestCallBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newCallBudget()
		b.take(joinedChunk - 1)
		took := make(chan struct{})
		go func() {
			b.take(5)
			close(took)
		}()
		synctest.Wait()
		select {
		case <-took:
			t.Fatal("took past the bound")
		default:
		}
		b.give(joinedChunk - 1)
		synctest.Wait()
		select {
		case <-took:
		default:
			t.Fatal("not woken when the calls were taken in")
		}
		b.give(5)
		b.take(3 * joinedChunk) // alone: nothing else is out
		b.give(3 * joinedChunk)
	})
}

// A file's runs past the first heldInMemory wait on a scratch file until
// the file ends: whatever the bound, the summary, the run index and the
// run details (runs, calls and their order) are the same. A file of many
// sessions, one a line, holds most of its runs there.
func TestHeldRunsOnFile(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, `{"session_id":"s%03d","status":"completed","created_at":"2026-03-01T10:%02d:00Z","tool_calls":[{"call_id":"1","tool_name":"T%d","duration_ms":%d,"output":{"status":"success"}}]}`+"\n", i, i%60, i%7, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "many.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	outcome := func() []byte {
		r := reportOf(t, Settings{KeepDetails: true}, testdataLogs, dir)
		defer r.Details.Close()
		var out bytes.Buffer
		enc := jsonEncoder(&out)
		enc.Encode(r.Summary)
		enc.Encode(r.Runs.Rows())
		for run, err := range r.Details.All() {
			if err != nil {
				t.Fatal(err)
			}
			enc.Encode(run)
		}
		return out.Bytes()
	}
	want := outcome()
	defer func(n int) { heldInMemory = n }(heldInMemory)
	for _, n := range []int{0, 1, 7} {
		heldInMemory = n
		if got := outcome(); !bytes.Equal(got, want) {
			t.Fatalf("with %d runs of a file in memory, other outputs", n)
		}
	}
}

//go:build linux

package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentstat/agentstat/metrics"
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

// TestManyToolNamesBounded: every distinct tool name is counted, but the
// outputs list the most called (summary.json the first metrics.MaxTools, the
// dashboard and its tool pages the first metrics.MaxToolPages): 300,000
// names would otherwise make a dashboard and a summary.json of over 100 MB.
func TestManyToolNamesBounded(t *testing.T) {
	bin := buildBinary(t)
	dir, out := t.TempDir(), filepath.Join(t.TempDir(), "site")
	n := metrics.MaxTools + 7
	var b strings.Builder
	b.WriteString(`{"session_id":"many","status":"success","created_at":"2026-03-01T10:00:00Z","tool_calls":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		calls := 1
		if i < 3 {
			calls = 3 - i // three tools called more often than the rest come first
		}
		for k := range calls {
			if k > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"call_id":"%d-%d","tool_name":"tool-%05d","duration_ms":5,"output":{"status":"success"}}`, i, k, i)
		}
	}
	b.WriteString("]}")
	if err := os.WriteFile(filepath.Join(dir, "s.json"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if o, err := exec.Command(bin, "report", "-q", "-o", out, dir).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, o)
	}
	var s metrics.Summary
	raw, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err == nil {
		err = json.Unmarshal(raw, &s)
	}
	if err != nil {
		t.Fatal(err)
	}
	if s.ToolCalls.ToolNames != int64(n) || len(s.Tools) != metrics.MaxTools || s.Tools[0].Name != "tool-00000" || s.Tools[0].Calls != 3 ||
		s.ToolCalls.Total != int64(n+3) {
		t.Errorf("%d tool names, %d listed, first %+v; %d calls", s.ToolCalls.ToolNames, len(s.Tools), s.Tools[0], s.ToolCalls.Total)
	}
	pages, _ := os.ReadDir(filepath.Join(out, "tools"))
	index, _ := os.ReadFile(filepath.Join(out, "index.html"))
	if len(pages) != metrics.MaxToolPages || bytes.Count(index, []byte(`href="tools/`)) != metrics.MaxToolPages || len(index) > 2<<20 {
		t.Errorf("%d tool pages, %d linked from a dashboard of %d bytes", len(pages), bytes.Count(index, []byte(`href="tools/`)), len(index))
	}
}

// A file's runs wait for its end on a scratch file, not in memory: a JSONL
// of 200,000 small sessions is read in a bounded heap (held in memory, its
// runs take some 300 MB).
func TestManyRunsOneFileBounded(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "many.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := range 200_000 {
		fmt.Fprintf(w, `{"session_id":"s%d","status":"completed","created_at":"2026-03-01T10:00:00Z","tool_calls":[{"call_id":"1","tool_name":"Read","duration_ms":5,"output":{"status":"success"}}]}`+"\n", i)
	}
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		t.Fatal(err)
	}
	s, rss := summaryUnderLimit(t, bin, dir)
	if s.Runs.Total != 200_000 || s.ToolCalls.Total != 200_000 {
		t.Fatalf("%d runs, %d calls", s.Runs.Total, s.ToolCalls.Total)
	}
	if rss > 150<<20 {
		t.Errorf("peak RSS %d MiB reading 200,000 runs of one file", rss>>20)
	}
}

// summaryUnderLimit runs summary --json on dir with GOMEMLIMIT=100MiB: the
// summary, and the peak RSS in bytes.
func summaryUnderLimit(t *testing.T, bin, dir string) (metrics.Summary, int64) {
	t.Helper()
	cmd := exec.Command(bin, "summary", "--json", "-q", dir)
	cmd.Env = append(os.Environ(), "GOMEMLIMIT=100MiB")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%.2000s", err, out)
	}
	var s metrics.Summary
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatal(err)
	}
	return s, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
}

// One session document of 300,000 calls (37 MB) is read with its calls on
// the record spill, not in memory: its entries held as decoded, then as
// calls, took some 450 MB.
func TestOneLongDocumentBounded(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "long.json"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString(`{"session_id":"long","status":"completed","created_at":"2026-03-01T10:00:00Z","tool_calls":[`)
	const n = 300_000
	for i := range n {
		if i > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, `{"call_id":"c%d","tool_name":"T%d","started_at":"2026-03-01T10:%02d:%02d","duration_ms":%d,"output":{"status":"%s"}}`,
			i, i%7, i/60%60, i%60, i%900, map[bool]string{true: "error", false: "success"}[i%10 == 0])
	}
	w.WriteString(`],"summary":{"tool_calls_count":300000,"errors":30000}}`)
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		t.Fatal(err)
	}
	s, rss := summaryUnderLimit(t, bin, dir)
	if s.Runs.Total != 1 || s.ToolCalls.Total != n || s.ToolCalls.Errors != n/10 || len(s.Inputs.Warnings) != 0 {
		t.Fatalf("%d runs, %d calls, %d errors, warnings %v", s.Runs.Total, s.ToolCalls.Total, s.ToolCalls.Errors, s.Inputs.Warnings)
	}
	if rss > 150<<20 {
		t.Errorf("peak RSS %d MiB reading one document of %d calls", rss>>20, n)
	}
}

// One Gemini CLI session document of 60,000 messages (15 MB) keeps each
// message as what its reader reads of it: held as documents, they took
// some 280 MB.
func TestOneLongGeminiSessionBounded(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "session-g.json"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString(`{"sessionId":"g","projectHash":"p","startTime":"2026-03-07T08:00:00Z","lastUpdated":"2026-03-08T08:00:00Z","messages":[`)
	const n = 60_000
	for i := range n {
		if i > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, `{"id":"m%d","timestamp":"2026-03-07T09:00:00Z","type":"gemini","model":"gemini-2.5-pro","content":"","tokens":{"input":10,"output":5},"toolCalls":[{"id":"a%d","name":"run_shell_command","args":{"command":"make"},"status":"success"}]}`, i, i)
	}
	w.WriteString(`]}`)
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		t.Fatal(err)
	}
	s, rss := summaryUnderLimit(t, bin, dir)
	if s.Runs.Total != 1 || s.ToolCalls.Total != n || s.Context.Tokens.Total != 15*n {
		t.Fatalf("%d runs, %d calls, %d tokens", s.Runs.Total, s.ToolCalls.Total, s.Context.Tokens.Total)
	}
	if rss > 150<<20 {
		t.Errorf("peak RSS %d MiB reading one Gemini session of %d messages", rss>>20, n)
	}
}

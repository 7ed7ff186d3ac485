package claudecode

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/agentstat/agentstat/internal/logsynth"
	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/join"
	"github.com/agentstat/agentstat/logformat/formattest"
)

// Claude Code records come back from the spill exactly as they went in,
// in any zone, and the join gives the same runs from them.
func TestRecordSpillRoundTrip(t *testing.T) {
	synth, err := logsynth.File("claudecode", 3)
	if err != nil {
		t.Fatal(err)
	}
	zones := `{"type":"user","sessionId":"z","uuid":"1","timestamp":"2026-03-05T10:00:00+08:00","message":{"role":"user","content":"offset"}}
{"type":"assistant","sessionId":"z","uuid":"2","timestamp":"2026-03-05T10:00:01","message":{"role":"assistant","model":"m","content":[{"type":"tool_use","id":"t","name":"Bash","input":{}}],"usage":{"input_tokens":3}}}
{"type":"user","sessionId":"z","uuid":"3","timestamp":"2026-03-05T02:00:05Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","is_error":true}]},"toolUseResult":"Error: no"}
{"type":"user","sessionId":"z","uuid":"4","message":{"role":"user","content":"no time"}}
`
	inputs := map[string][]byte{"synth.jsonl": synth, "zones.jsonl": []byte(zones)}
	paths, _ := filepath.Glob(formattest.LogPath(t, "claudecode/proj/*.jsonl"))
	sub, _ := filepath.Glob(formattest.LogPath(t, "claudecode/proj/*/subagents/*.jsonl"))
	for _, p := range append(paths, sub...) {
		if b, err := os.ReadFile(p); err == nil {
			inputs[p] = b
		}
	}
	if len(inputs) < 3 {
		t.Fatal("no Claude Code test files")
	}
	defer func(n, m int) { join.SegmentLines, bothMin = n, m }(join.SegmentLines, bothMin)
	for _, segment := range []int{1 << 15, 5} { // whole files, and many segments read back on both cores
		join.SegmentLines, bothMin = segment, max(segment, 2)
		for _, loc := range []*time.Location{time.UTC, time.FixedZone("UTC+8", 8*3600)} {
			for name, data := range inputs {
				mem, spilled := formattest.NewCollector(), formattest.NewCollector()
				if err := readLines(bytes.NewReader(data), name, loc, nil, mem); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				spill, err := recordspill.New(loc)
				if err != nil {
					t.Fatal(err)
				}
				defer spill.Close()
				if err := readLines(bytes.NewReader(data), name, loc, spill, spilled); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if len(spilled.Frags) == 0 || len(spilled.Frags) != len(mem.Frags) {
					t.Fatalf("%s: %d fragments, %d in memory", name, len(spilled.Frags), len(mem.Frags))
				}
				for i, f := range spilled.Frags {
					if logOf(f).spill == nil || logOf(f).claude != nil {
						t.Fatalf("%s: fragment %d was not spilled", name, i)
					}
					if segment == 5 && name == "synth.jsonl" && len(logOf(f).refs) < 10 {
						t.Fatalf("%s: %d segments", name, len(logOf(f).refs))
					}
					// The uuids come back alone, before the other tables.
					if got, want := uuidsOf(f, 3), uuidsOf(mem.Frags[i], 3); !reflect.DeepEqual(got, want) || len(want) == 0 {
						t.Fatalf("%s (%s): fragment %d's uuids differ after the spill: %d, want %d", name, loc, i, len(got), len(want))
					}
					logOf(f).loadRecords(allTables)
					want := *logOf(mem.Frags[i]).claude
					want.wordIdx = nil // used while reading only
					want.uuids = nil   // read back by uuidKeys alone
					if !reflect.DeepEqual(*logOf(f).claude, want) {
						t.Fatalf("%s (%s): fragment %d differs after the spill", name, loc, i)
					}
					logOf(f).release()
				}
				memRuns, _ := formattest.JoinAll(mem.Frags, mem)
				spillRuns, _ := formattest.JoinAll(spilled.Frags, spilled)
				if spill.Err() != nil || !reflect.DeepEqual(memRuns, spillRuns) {
					t.Fatalf("%s: runs differ after the spill (%v)", name, spill.Err())
				}
			}
		}
	}
}

// A spill that cannot be written (a full disk) leaves the records in memory
// and the runs as they are, and the next file spills again: the reused
// write buffer does not keep the failure.
func TestRecordSpillWriteFailure(t *testing.T) {
	spill, d, good, ro := segmentedSpill(t)
	for seed, failing := range []bool{true, false} {
		data, err := logsynth.File("claudecode", uint64(seed))
		if err != nil {
			t.Fatal(err)
		}
		d.Use(good)
		if failing {
			d.Use(ro)
		}
		mem, spilled := formattest.NewCollector(), formattest.NewCollector()
		if err := readLines(bytes.NewReader(data), "s.jsonl", nil, nil, mem); err != nil {
			t.Fatal(err)
		}
		if err := readLines(bytes.NewReader(data), "s.jsonl", nil, spill, spilled); err != nil {
			t.Fatal(err)
		}
		if len(spilled.Frags) == 0 {
			t.Fatalf("seed %d: no fragments", seed)
		}
		for i, f := range spilled.Frags {
			if onDisk := logOf(f).spill != nil && logOf(f).claude == nil; onDisk == failing {
				t.Fatalf("seed %d: fragment %d on disk: %v", seed, i, onDisk)
			}
		}
		d.Use(good)
		memRuns, _ := formattest.JoinAll(mem.Frags, mem)
		spillRuns, _ := formattest.JoinAll(spilled.Frags, spilled)
		if spill.Err() != nil || !reflect.DeepEqual(memRuns, spillRuns) {
			t.Fatalf("seed %d: runs differ (%v)", seed, spill.Err())
		}
	}
}

// A file whose segments reached the spill but whose end did not (the disk
// filled up meanwhile) keeps the end in memory, and joins as in memory.
func TestRecordSpillEndInMemory(t *testing.T) {
	spill, d, good, ro := segmentedSpill(t)
	one, err := logsynth.File("claudecode", 4)
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat(one, 20) // read well past the first buffer: segments go out before the end is read
	mem, spilled := formattest.NewCollector(), formattest.NewCollector()
	if err := readLines(bytes.NewReader(data), "s.jsonl", nil, nil, mem); err != nil {
		t.Fatal(err)
	}
	full := func() { // after the last line, before the file's end is written
		d.Use(ro)
	}
	if err := readLines(&atEOF{r: bytes.NewReader(data), then: full}, "s.jsonl", nil, spill, spilled); err != nil {
		t.Fatal(err)
	}
	d.Use(good)
	split := 0
	for i, f := range spilled.Frags {
		if logOf(f).spill == nil && logOf(f).claude != nil && len(logOf(f).claude.segments) > 0 {
			split++
		}
		if got, want := uuidsOf(f, 0), uuidsOf(mem.Frags[i], 0); !reflect.DeepEqual(got, want) {
			t.Fatalf("fragment %d: uuids differ", i)
		}
	}
	if split == 0 {
		t.Fatal("no fragment has segments on the spill and its end in memory")
	}
	memRuns, _ := formattest.JoinAll(mem.Frags, mem)
	spillRuns, _ := formattest.JoinAll(spilled.Frags, spilled)
	if spill.Err() != nil || !reflect.DeepEqual(memRuns, spillRuns) {
		t.Fatalf("runs differ (%v)", spill.Err())
	}
}

// uuidsOf is the uuid keys of a fragment's lines, numbered from start.
func uuidsOf(f *join.Fragment, start int32) []idKey {
	keys := make([]idKey, logOf(f).lineCount())
	logOf(f).uuidKeys(start, keys)
	return keys
}

// atEOF is a reader that calls then when r is read to its end, 4 KB at a time.
type atEOF struct {
	r    io.Reader
	then func()
}

func (a *atEOF) Read(p []byte) (int, error) {
	n, err := a.r.Read(p[:min(len(p), 4<<10)])
	if err == io.EOF && a.then != nil {
		a.then()
		a.then = nil
	}
	return n, err
}

// segmentedSpill is a spill that takes a segment every five lines, with its
// file and one every write to fails (a full disk), to put in its place.
func segmentedSpill(t *testing.T) (spill *recordspill.File, d *formattest.Disk, good, ro recordspill.Storage) {
	t.Helper()
	n := join.SegmentLines
	t.Cleanup(func() { join.SegmentLines = n })
	join.SegmentLines = 5
	spill, d = formattest.SpillOnDisk(t)
	return spill, d, d.File(), formattest.Unwritable(t)
}

// A record larger than the spill's read-ahead window is read through the
// file itself: its tables come back in the join's steps (the uuids alone,
// the lines and usages, the uses and results), the tables each step leaves
// out skipped, as they went in.
func TestRecordSpillLongRecord(t *testing.T) {
	one, err := logsynth.File("claudecode", 4)
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat(one, 20)
	mem, spilled := formattest.NewCollector(), formattest.NewCollector()
	if err := readLines(bytes.NewReader(data), "s.jsonl", nil, nil, mem); err != nil {
		t.Fatal(err)
	}
	spill, err := recordspill.New(time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	defer spill.Close()
	if err := readLines(bytes.NewReader(data), "s.jsonl", nil, spill, spilled); err != nil {
		t.Fatal(err)
	}
	long := 0
	for i, f := range spilled.Frags {
		for _, ref := range logOf(f).refs {
			if ref.N > recordspill.Window/4 {
				long++
			}
		}
		if got, want := uuidsOf(f, 0), uuidsOf(mem.Frags[i], 0); !reflect.DeepEqual(got, want) {
			t.Fatalf("fragment %d: uuids differ", i)
		}
		logOf(f).loadRecords(linesAndUsages)
		logOf(f).loadRecords(usesAndResults)
		want := *logOf(mem.Frags[i]).claude
		want.wordIdx, want.uuids = nil, nil
		if !reflect.DeepEqual(*logOf(f).claude, want) {
			t.Fatalf("fragment %d differs after the spill", i)
		}
	}
	if long == 0 || spill.Err() != nil {
		t.Fatalf("%d records past the window, spill error %v", long, spill.Err())
	}
}

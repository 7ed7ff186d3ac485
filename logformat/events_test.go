package logformat

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentstat/agentstat/logformat/debugbundle"
	"github.com/agentstat/agentstat/logformat/formattest"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/agentstat/agentstat/model"
)

// partsCollector takes runs with their calls in parts, as the pipeline does.
type partsCollector struct{ *formattest.Collector }

func (c partsCollector) RunParts(r *model.Run, parts *model.CallParts) {
	for part := parts.Next(); part != nil; part = parts.Next() {
		r.ToolCalls = append(r.ToolCalls, part...)
	}
	if len(r.ToolCalls) != parts.N {
		panic("parts hold other than N calls")
	}
	c.Run(r)
}

// A bundle's calls taken in parts, however small, are the calls and the
// warnings of the whole.
func TestBundlePartsSameAsWhole(t *testing.T) {
	docs := formattest.Files(t, "debugbundle", "debugbundle/*.json")
	defer func(n int) { reader.CallPart = n }(reader.CallPart)
	calls := 0
	for _, part := range []int{1, 2, 4096} {
		reader.CallPart = part
		for i, b := range docs {
			whole, parted := formattest.NewCollector(), partsCollector{formattest.NewCollector()}
			errW := Read(bytes.NewReader(b), "b.json", Options{}, whole)
			errP := Read(bytes.NewReader(b), "b.json", Options{}, parted)
			if fmt.Sprint(errW) != fmt.Sprint(errP) || !reflect.DeepEqual(whole.Runs, parted.Runs) || !reflect.DeepEqual(whole.Warnings, parted.Warnings) {
				t.Fatalf("bundle %d, parts of %d: other runs or warnings", i, part)
			}
			for _, r := range whole.Runs {
				calls += len(r.ToolCalls)
			}
		}
	}
	if calls < 100 {
		t.Fatalf("only %d calls read", calls)
	}
}

// A bundle whose events go to the spill a few at a time (read back a
// block at a time, in any order) reads as it does in memory: its run, its
// calls and its warnings, with repeats dropped across blocks.
func TestBundleSpilled(t *testing.T) {
	spill := formattest.Spill(t)
	defer func(n int) { debugbundle.EventBlock = n }(debugbundle.EventBlock)
	docs := formattest.Files(t, "debugbundle", "debugbundle/*.json")
	var b strings.Builder // an export with repeats, calls paired by tool and by node across blocks
	b.WriteString(`{"events":[`)
	for i := range 60 {
		if i > 0 {
			b.WriteString(",")
		}
		typ, status := []string{"tool_call", "tool_result", "node_end", "tool_result"}[i%4], []string{"success", "failure"}[i%3%2]
		fmt.Fprintf(&b, `{"id":"e%d","timestamp":"2026-01-01T00:00:%02d+08:00","type":%q,"status":%q,"nodeId":"n%d","summary":"s%d","metadata":{"toolName":"t%d","error":"x%d"}}`,
			i%23, i, typ, status, i%5, i, i%3, i%7)
	}
	b.WriteString(`]}`)
	export := b.String()
	// The same events written twice: the raw path leaves such a document to
	// the token path, whose events go to the spill too.
	twice := strings.Replace(export, `{"events":[`, `{"events":[],"events":[`, 1)
	docs = append(docs, []byte(export), []byte(twice))
	spilled := 0
	for _, block := range []int{1, 3, 64} {
		debugbundle.EventBlock = block
		for i, doc := range docs {
			before := spill.Size()
			mem, disk := formattest.NewCollector(), formattest.NewCollector()
			errMem := Read(bytes.NewReader(doc), "bundle.json", Options{Location: time.UTC}, mem)
			errDisk := Read(bytes.NewReader(doc), "bundle.json", Options{Location: time.UTC, Spill: spill}, disk)
			if (errMem == nil) != (errDisk == nil) || !reflect.DeepEqual(mem.Runs, disk.Runs) || !reflect.DeepEqual(mem.Warnings, disk.Warnings) || spill.Err() != nil {
				t.Fatalf("blocks of %d, document %d: read otherwise with a spill (%v, %v; %v)", block, i, errMem, errDisk, spill.Err())
			}
			if len(mem.Runs) == 1 && len(mem.Runs[0].ToolCalls) > block {
				if spill.Size() == before {
					t.Errorf("blocks of %d, document %d: %d calls, nothing spilled", block, i, len(mem.Runs[0].ToolCalls))
				}
				spilled++
			}
		}
	}
	if spilled < len(docs) {
		t.Errorf("only %d documents spilled", spilled)
	}
}

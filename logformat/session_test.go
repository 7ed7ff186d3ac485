package logformat

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/join"
	"github.com/agentstat/agentstat/logformat/formattest"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/agentstat/agentstat/model"
)

// heldParts holds each run's parts and takes its calls only when asked,
// after the file is read, as the pipeline does.
type heldParts struct {
	*formattest.Collector
	parts []*model.CallParts
}

func (h *heldParts) RunParts(r *model.Run, p *model.CallParts) {
	h.Runs, h.parts = append(h.Runs, r), append(h.parts, p)
}

// A session's calls are made when they are taken, from segments on the
// spill and from what is still in memory, and whatever the reader did with
// its documents meanwhile (a JSON Lines chunk clears them): the same calls,
// with the same zone-less times and warnings, as a reader that takes them at once.
func TestSessionCallsTakenLater(t *testing.T) {
	defer func(n int, small bool) { join.SegmentLines, smallDocuments = n, small }(join.SegmentLines, smallDocuments)
	join.SegmentLines, smallDocuments = 7, false // the document through the general decoder, its calls in segments
	loc := time.FixedZone("X", 5*3600)
	var doc strings.Builder
	doc.WriteString(`{"session_id":"s","status":"success","tool_calls":[`)
	for i := range 50 {
		if i > 0 {
			doc.WriteByte(',')
		}
		start := fmt.Sprintf("2026-03-01T10:00:%02d", i) // no zone: read in loc
		if i%3 == 0 {
			start += "Z"
		}
		fmt.Fprintf(&doc, `{"call_id":"c%d","tool_name":"T%d","started_at":%q,"ended_at":"2026-03-01T10:00:30Z","duration_ms":%d,"output":{"status":"%s","error":"e%d"}}`,
			i, i%4, start, i*10-100, map[bool]string{true: "failed", false: "success"}[i%5 == 0], i)
	}
	doc.WriteString(`]}`)
	line := doc.String()
	for _, name := range []string{"one.json", "lines.jsonl"} {
		input := line
		if name == "lines.jsonl" {
			input = line + "\n" + strings.Replace(line, `"session_id":"s"`, `"session_id":"t"`, 1) + "\n"
		}
		read := func(em reader.Emitter, spill *recordspill.File) {
			t.Helper()
			if err := Read(bytes.NewReader([]byte(input)), name, Options{Location: loc, Spill: spill}, em); err != nil {
				t.Fatal(err)
			}
		}
		want := formattest.NewCollector()
		read(want, nil)
		spill, err := recordspill.New(loc)
		if err != nil {
			t.Skip("no temporary directory:", err)
		}
		defer spill.Close()
		got := &heldParts{Collector: formattest.NewCollector()}
		read(got, spill)
		for i, p := range got.parts {
			got.Runs[i].ToolCalls = p.All()
		}
		if spill.Err() != nil {
			t.Fatal(spill.Err())
		}
		if name == "one.json" && spill.Size() == 0 {
			t.Errorf("no segment on the spill (%d runs, %d parts)", len(got.Runs), len(got.parts))
		}
		if len(got.Runs) != len(want.Runs) || len(got.Runs) == 0 {
			t.Fatalf("%s: %d runs, want %d", name, len(got.Runs), len(want.Runs))
		}
		for i := range want.Runs {
			w, g := want.Runs[i].ToolCalls, got.Runs[i].ToolCalls
			if len(g) != 50 || fmt.Sprint(g) != fmt.Sprint(w) {
				t.Errorf("%s run %d: %d calls\n%v\nwant\n%v", name, i, len(g), g, w)
			}
		}
		if fmt.Sprint(got.Warnings) != fmt.Sprint(want.Warnings) || want.Warnings[reader.WarnNegativeDuration] == 0 {
			t.Errorf("%s: warnings %v, want %v", name, got.Warnings, want.Warnings)
		}
	}
}

package planagent

import (
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/join"
	"github.com/agentstat/agentstat/logformat/formattest"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/agentstat/agentstat/model"
)

// readFile reads one PlanAgent record as logformat does, into what em
// keeps, its records waiting on spill (nil: in memory).
func readFile(t *testing.T, name string, b []byte, spill *recordspill.File, em reader.Emitter) {
	t.Helper()
	var d struct {
		reader.Shared
		Fields
	}
	if err := json.Unmarshal(b, &d, jsonscan.DecodeOptions(em)); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	doc := Doc{Shared: &d.Shared, Fields: &d.Fields}
	if !Format.Match(doc) {
		t.Fatalf("%s: not a PlanAgent record", name)
	}
	c := reader.NewCtx(name, time.UTC, spill, em)
	Format.Read(doc, c)
	c.End()
}

// A plan's batches and a batch's tasks go to the spill and come back as
// they went: the plans join to the same runs.
func TestSpillRoundTrip(t *testing.T) {
	inputs := formattest.Inputs(t, "planagent", "planagent/*.json")
	spill, err := recordspill.New(time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	defer spill.Close()
	mem, spilled := formattest.NewCollector(), formattest.NewCollector()
	for _, name := range slices.Sorted(maps.Keys(inputs)) {
		readFile(t, name, inputs[name], nil, mem)
		readFile(t, name, inputs[name], spill, spilled)
	}
	if len(spilled.Frags) < 5 || len(spilled.Frags) != len(mem.Frags) {
		t.Fatalf("%d fragments, %d in memory", len(spilled.Frags), len(mem.Frags))
	}
	onDisk := 0
	for i, f := range spilled.Frags {
		m := mem.Frags[i]
		switch l := f.Records.(type) {
		case *planRecord:
			onDisk += formattest.CheckSpilledLog(t, f.Source, l.batches, m.Records.(*planRecord).batches.Entries)
		case *batchRecord:
			onDisk += formattest.CheckSpilledLog(t, f.Source, l.tasks, m.Records.(*batchRecord).tasks.Entries)
		}
	}
	if onDisk < 3 {
		t.Fatalf("only %d logs on the spill", onDisk)
	}
	join := func(frags []*join.Fragment, w reader.Emitter) (runs []*model.Run) {
		emitPlans(frags, w, func(r *model.Run, _ []*join.Fragment) { runs = append(runs, r) })
		return runs
	}
	memRuns, spillRuns := join(mem.Frags, mem), join(spilled.Frags, spilled)
	if spill.Err() != nil || len(memRuns) < 3 || !reflect.DeepEqual(memRuns, spillRuns) {
		t.Fatalf("%d runs, %d after the spill (%v)", len(memRuns), len(spillRuns), spill.Err())
	}
}

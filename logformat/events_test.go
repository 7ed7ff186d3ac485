package logformat

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentstat/agentstat/internal/logsynth"
	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/logformat/formattest"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/agentstat/agentstat/model"
)

// referenceEvents is how the general decoder reads an events value: the
// reflective decode DecodeFlex replaced, kept as the test's reference.
func referenceEvents(dec *jsontext.Decoder, w Warner) (eventsField, error) {
	var e eventsField
	opts := jsonscan.DecodeOptions(w)
	kept := func(list []bundleEvent) eventsField {
		k := newEventKeeper(nil)
		for i := range list {
			k.add(&list[i])
		}
		e := eventsField{Present: true}
		k.into(&e)
		return e
	}
	switch dec.PeekKind() {
	case '[':
		var list []bundleEvent
		err := json.UnmarshalDecode(dec, &list, opts)
		return kept(list), err
	case '{':
		var o struct {
			Events *[]bundleEvent `json:"events"`
		}
		err := json.UnmarshalDecode(dec, &o, opts)
		if o.Events != nil {
			e = kept(*o.Events)
		}
		return e, err
	case 'n':
		return e, dec.SkipValue()
	}
	w.Warn(reader.WarnTypeMismatch)
	return e, dec.SkipValue()
}

// checkEvents fails when the token-level events decoder and the reference
// disagree on a value: result, error or warnings.
func checkEvents(t *testing.T, value []byte) {
	t.Helper()
	wantW, gotW := &jsonscan.WarnList{}, &jsonscan.WarnList{}
	want, wantErr := referenceEvents(jsontext.NewDecoder(bytes.NewReader(value), jsontext.AllowDuplicateNames(true)), wantW)
	var got eventsField
	gotErr := got.DecodeFlex(jsontext.NewDecoder(bytes.NewReader(value), jsontext.AllowDuplicateNames(true)), gotW, jsonscan.DecodeOptions(gotW))
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("errors differ: reference %v, token-level %v\n%.300s", wantErr, gotErr, value)
	}
	if wantErr != nil {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("events differ:\ntoken-level %+v\nreference   %+v\n%.300s", got, want, value)
	}
	slices.Sort(wantW.Kinds)
	slices.Sort(gotW.Kinds)
	if !slices.Equal(gotW.Kinds, wantW.Kinds) {
		t.Fatalf("warnings differ: token-level %v, reference %v\n%.300s", gotW.Kinds, wantW.Kinds, value)
	}
}

// eventsValues returns the events value of every bundle and export given.
func eventsValues(t *testing.T, docs [][]byte) [][]byte {
	var out [][]byte
	for _, b := range docs {
		var doc struct {
			Events jsontext.Value `json:"events"`
		}
		if json.Unmarshal(b, &doc) == nil && len(doc.Events) > 0 {
			out = append(out, doc.Events)
		}
	}
	return out
}

// bundleDocs is every debug bundle and events export of the test data and
// the corpus, and five generated bundles.
func bundleDocs(t *testing.T) [][]byte {
	t.Helper()
	var docs [][]byte
	for _, pattern := range []string{
		filepath.Join("..", "testdata", "logs", "debugbundle", "*.json"),
		filepath.Join(corpusDir, "debugbundle", "*.json"),
	} {
		paths, _ := filepath.Glob(pattern)
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				docs = append(docs, b)
			}
		}
	}
	for seed := range 5 {
		b, err := logsynth.File("debugbundle", uint64(seed))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, b)
	}
	return docs
}

func TestEventsSameAsGeneral(t *testing.T) {
	docs := bundleDocs(t)
	values := eventsValues(t, docs)
	if len(values) < 6 {
		t.Fatalf("only %d events values", len(values))
	}
	for _, v := range []string{
		`[]`, `null`, `"x"`, `{}`, `{"events":null}`, `{"events":"x"}`, `{"events":[],"events":[{"id":"a"}]}`,
		`{"events":[{"id":"a"}],"events":null}`, `[1,null,"s",{"id":7,"timestamp":"2026-01-01","type":["x"],"metadata":"m"}]`,
		`[{"id":"a","id":"b","metadata":{"toolName":"t"},"metadata":{"error":"e"}}]`,
		`[{"metadata":null},{"metadata":{"toolName":{"x":1}}},{"timestamp":[2026,1,2,3,4,5]},{"timestamp":{"a":1}}]`,
		`{"payloads":{"x":[1,2]},"events":[{"id":"a","status":true,"summary":1.5}]}`,
	} {
		values = append(values, []byte(v))
	}
	for _, v := range values {
		checkEvents(t, v)
	}
}

func FuzzEvents(f *testing.F) {
	f.Add([]byte(`{"events":[{"id":"a","type":"tool_call","timestamp":1702886400000,"metadata":{"toolName":"x"}}]}`))
	f.Add([]byte(`[{"id":"a","id":"b"},null,3]`))
	f.Fuzz(func(t *testing.T, value []byte) { checkEvents(t, value) })
}

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
	docs := bundleDocs(t)
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

// eventList keeps events in order across its blocks, in memory or with
// its full blocks on the spill, read back in any order, two at a time.
func TestEventList(t *testing.T) {
	spill := formattest.Spill(t)
	for _, sp := range []*recordspill.File{nil, spill} {
		for _, n := range []int{0, 1, eventBlock - 1, eventBlock, eventBlock + 1, 3*eventBlock + 7} {
			l := eventList{spill: sp, strs: int32(4 * eventBlock), zones: []*time.Location{time.UTC}}
			for i := range n {
				l.add(keptEvent{typ: int32(i), tool: int32(n - i)})
			}
			inMemory := 0
			for _, b := range l.blocks {
				inMemory += len(b)
			}
			if want := n; sp != nil && n > 0 {
				want = n - (n-1)/eventBlock*eventBlock // the last block only
				if inMemory != want {
					t.Fatalf("%d events spilled: %d in memory, want %d", n, inMemory, want)
				}
			} else if inMemory != want {
				t.Fatalf("%d events: %d in memory", n, inMemory)
			}
			rng := rand.New(rand.NewPCG(uint64(n), 1))
			order := append(rng.Perm(n), rng.Perm(n)...)
			for k := 0; k+1 < len(order); k += 2 {
				a, b := l.at(order[k]), l.at(order[k+1]) // both valid at once
				if a.typ != int32(order[k]) || a.tool != int32(n-order[k]) || b.typ != int32(order[k+1]) {
					t.Fatalf("%d events: events %d and %d read as %d and %d", n, order[k], order[k+1], a.typ, b.typ)
				}
			}
			if l.n != n || sp.Err() != nil {
				t.Fatalf("%d events: n = %d (%v)", n, l.n, sp.Err())
			}
		}
	}
}

// A bundle whose events go to the spill a few at a time (read back a
// block at a time, in any order) reads as it does in memory: its run, its
// calls and its warnings, with repeats dropped across blocks.
func TestBundleSpilled(t *testing.T) {
	spill := formattest.Spill(t)
	defer func(n int) { eventBlock = n }(eventBlock)
	docs := bundleDocs(t)
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
		eventBlock = block
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

// Blocks damaged on disk read back with every index inside its table
// (none can crash a reader), and fail the spill.
func TestEventListDamaged(t *testing.T) {
	defer func(n int) { eventBlock = n }(eventBlock)
	eventBlock = 8
	rng := rand.New(rand.NewPCG(5, 6))
	failed := 0
	for round := range 100 {
		spill, d := formattest.SpillOnDisk(t) // its error is this round's
		l := eventList{spill: spill, strs: 3, zones: []*time.Location{time.UTC}, errs: []string{"e"}}
		for i := range 40 {
			l.add(keptEvent{typ: int32(i % 3), errText: int32(i % 2), flags: eventAtSet})
		}
		ref := l.disk[rng.IntN(len(l.disk))]
		for range 3 {
			d.WriteAt([]byte{byte(rng.IntN(256)), 0xff}, ref.Off+rng.Int64N(ref.N-1))
		}
		for i := range l.n {
			e := l.at(i)
			_ = l.errOf(e)
			_ = l.when(e)
			if e.typ < 0 || e.typ >= l.strs || e.node >= l.strs || e.status >= l.strs || e.tool >= l.strs {
				t.Fatalf("round %d: event %d names string %d of %d", round, i, e.typ, l.strs)
			}
		}
		if spill.Err() != nil {
			failed++
		}
	}
	if failed < 50 {
		t.Errorf("only %d of 100 damaged lists failed the spill", failed)
	}
}

// A list whose spill stops taking writes (a full disk) keeps its later
// blocks in memory and still reads back the blocks written before.
func TestEventListSpillFills(t *testing.T) {
	spill, d := formattest.SpillOnDisk(t)
	good, full := d.File(), formattest.Unwritable(t)
	defer func(n int) { eventBlock = n }(eventBlock)
	eventBlock = 4
	l := eventList{spill: spill, strs: 100, zones: []*time.Location{time.UTC}}
	for i := range 30 {
		if i == 13 { // three blocks written, the fourth fails
			d.Use(full)
		}
		l.add(keptEvent{typ: int32(i)})
	}
	d.Use(good)
	if len(l.disk) != 3 || l.blocks[0] != nil || l.blocks[4] == nil {
		t.Fatalf("%d blocks on disk, first in memory %v, fifth %v", len(l.disk), l.blocks[0] != nil, l.blocks[4] != nil)
	}
	for i := range l.n {
		if got := l.at(i).typ; got != int32(i) {
			t.Fatalf("event %d read as %d", i, got)
		}
	}
	if spill.Err() != nil {
		t.Fatal(spill.Err())
	}
}

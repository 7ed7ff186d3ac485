package metrics

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentstat/agentstat/model"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func span(ms float64) model.Span { return model.Span{DurationMS: ms, HasDuration: true} }

// handRuns are four runs whose figures are worked out by hand in TestMetricsByHand.
func handRuns() []*model.Run {
	r1 := &model.Run{ID: "r1", Format: "session", Source: "a.json", Status: model.StatusSuccess, Agent: "A", Model: "m1",
		Span:  model.Span{Started: at("2026-01-01T23:30:00Z"), DurationMS: 1000, HasDuration: true},
		Steps: []model.Step{{Status: model.StepCompleted}, {Status: model.StepFailed}},
		ToolCalls: []model.ToolCall{
			{Name: "Read", Outcome: model.OutcomeOK, Span: span(100)},
			{Name: "Read", Outcome: model.OutcomeError, Error: "File /a/b.go not found at line 12", Span: span(300)},
			{Name: "Bash", Outcome: model.OutcomeUnknown},
		},
		Tokens:   model.Tokens{Input: 10, Output: 5},
		Requests: []model.Request{{Model: "m1", At: at("2026-01-01T23:31:00Z"), Tokens: model.Tokens{Input: 10, Output: 5}}},
		Context:  model.Context{Refs: []model.ContextRef{{Type: "file", Relevance: "high"}}, Contributions: []string{"file_content"}},
	}
	r2 := &model.Run{ID: "r2", Format: "planexec", Source: "b.json", Status: model.StatusFailed,
		Span:      model.Span{Started: at("2026-01-02T00:30:00Z"), DurationMS: 3000, HasDuration: true},
		Steps:     []model.Step{{Status: model.StepCompleted}},
		ToolCalls: []model.ToolCall{{Name: "Bash", Agent: "B", Outcome: model.OutcomeError, Error: "File /x/y.go not found at line 99", Span: span(200)}},
	}
	r3 := &model.Run{ID: "r3", Format: "structmsg", Source: "c.json", Status: model.StatusRunning,
		Quality: []model.Evaluation{
			{Phase: "P1", Tool: "T", Score: 8, HasScore: true, Valid: model.TriTrue},
			{Phase: "P1", Tool: "T", Score: 6, HasScore: true, Valid: model.TriFalse},
			{Phase: "P2", Valid: model.TriTrue},
		},
	}
	r4 := &model.Run{ID: "r4", Format: "session", Source: "d.json", Status: model.StatusUnknown}
	return []*model.Run{r1, r2, r3, r4}
}

func summarize(loc *time.Location, runs []*model.Run) Summary {
	a := NewAccumulator(Settings{Location: loc})
	for _, r := range runs {
		a.AddRun(r)
	}
	return a.Summary()
}

func eq(t *testing.T, what string, got *float64, want float64) {
	t.Helper()
	if got == nil || *got != want {
		if got == nil {
			t.Errorf("%s = null, want %v", what, want)
		} else {
			t.Errorf("%s = %v, want %v", what, *got, want)
		}
	}
}

func isNull(t *testing.T, what string, got *float64) {
	t.Helper()
	if got != nil {
		t.Errorf("%s = %v, want null (n/a)", what, *got)
	}
}

func TestMetricsByHand(t *testing.T) {
	s := summarize(time.UTC, handRuns())
	if s.Runs.Total != 4 || s.Runs.ByStatus["success"] != 1 || s.Runs.ByStatus["unknown"] != 1 || s.Runs.ByStatus["partial"] != 0 {
		t.Errorf("runs = %+v", s.Runs)
	}
	eq(t, "success rate (success / runs not running or unknown)", s.Runs.SuccessRate, 0.5)
	d := s.Runs.DurationMS
	if d.Count != 2 || d.Sum != 4000 {
		t.Errorf("run durations = %+v", d)
	}
	eq(t, "run mean", d.Mean, 2000)
	eq(t, "run p50 = sorted[ceil(1)-1]", d.P50, 1000)
	eq(t, "run p95 = sorted[ceil(1.9)-1]", d.P95, 3000)
	eq(t, "run max", d.Max, 3000)

	if s.Steps.Total != 3 || s.Steps.ByStatus["failed"] != 1 {
		t.Errorf("steps = %+v", s.Steps)
	}
	eq(t, "completion rate", s.Steps.CompletionRate, 2.0/3)

	c := s.ToolCalls
	if c.Total != 4 || c.OutcomeKnown != 3 || c.Errors != 2 {
		t.Errorf("calls = %+v", c)
	}
	eq(t, "error rate (errors / calls with a known outcome)", c.ErrorRate, 2.0/3)
	eq(t, "call p50 of 100,200,300", c.DurationMS.P50, 200)
	eq(t, "call mean", c.DurationMS.Mean, 200)

	if len(s.Tools) != 2 || s.Tools[0].Name != "Bash" || s.Tools[1].Name != "Read" {
		t.Fatalf("tools (by calls, then name) = %+v", s.Tools)
	}
	eq(t, "Bash error rate (1 error / 1 known)", s.Tools[0].ErrorRate, 1)
	eq(t, "Read error rate", s.Tools[1].ErrorRate, 0.5)
	eq(t, "Read share", s.Tools[1].Share, 0.5)
	eq(t, "Read p95", s.Tools[1].DurationMS.P95, 300)

	if len(s.Errors) != 1 || s.Errors[0].Message != "File <path> not found at line <n>" || s.Errors[0].Count != 2 ||
		s.Errors[0].ExampleSource != "a.json" || s.Errors[0].Tool != "Bash" {
		t.Errorf("errors = %+v", s.Errors)
	}

	if len(s.Agents) != 2 || s.Agents[0].Name != "A" || s.Agents[0].ToolCalls != 3 || s.Agents[0].Runs != 1 || s.Agents[1].Name != "B" {
		t.Fatalf("agents = %+v", s.Agents)
	}
	eq(t, "agent A error rate", s.Agents[0].ErrorRate, 0.5)

	if len(s.Daily) != 2 || s.Daily[0].Date != "2026-01-01" || s.Daily[0].ToolCalls != 3 || s.Daily[1].Errors != 1 {
		t.Fatalf("daily (UTC) = %+v", s.Daily)
	}
	eq(t, "2026-01-01 success rate", s.Daily[0].SuccessRate, 1)
	eq(t, "2026-01-02 success rate", s.Daily[1].SuccessRate, 0)

	q := s.Quality
	if q.Evaluations != 2 || q.OutputValidChecked != 3 {
		t.Errorf("quality = %+v", q)
	}
	eq(t, "quality mean", q.Mean, 7)
	eq(t, "quality median", q.Median, 6)
	eq(t, "quality p10", q.P10, 6)
	eq(t, "output valid rate", q.OutputValidRate, 2.0/3)
	if q.Distribution[6].Count != 1 || q.Distribution[8].Count != 1 || len(q.Distribution) != 10 {
		t.Errorf("distribution = %+v", q.Distribution)
	}
	if len(q.ByPhase) != 2 || q.ByPhase[1].Phase != "P2" || q.ByPhase[1].Mean != nil {
		t.Errorf("by phase = %+v", q.ByPhase)
	}
	eq(t, "P2 output valid", q.ByPhase[1].OutputValidRate, 1)
	if len(q.ByTool) != 1 || q.ByTool[0].Evaluations != 2 {
		t.Errorf("by tool = %+v", q.ByTool)
	}

	tok := s.Context.Tokens
	if tok.Total != 15 || tok.Input != 10 || s.Context.TokensPerRun.Count != 1 || len(s.Models) != 1 || s.Models[0].Tokens.Total != 15 {
		t.Errorf("tokens = %+v per run %+v models %+v", tok, s.Context.TokensPerRun, s.Models)
	}
	eq(t, "cache-read share", s.Context.CacheReadShare, 0)
	if s.Context.RefsByType["file"] != 1 || s.Context.RefsByUsageMode["unspecified"] != 1 || s.Context.ContributionsByType["file_content"] != 1 {
		t.Errorf("context = %+v", s.Context)
	}
}

// Runs either side of UTC midnight fall on one day in New York.
func TestDaysInZone(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no tz database")
	}
	s := summarize(ny, handRuns())
	if len(s.Daily) != 1 || s.Daily[0].Date != "2026-01-01" || s.Daily[0].Runs != 2 || s.Daily[0].ToolCalls != 4 {
		t.Fatalf("daily (New York) = %+v", s.Daily)
	}
	eq(t, "error rate", s.Daily[0].ErrorRate, 2.0/3)
	eq(t, "success rate", s.Daily[0].SuccessRate, 0.5)
	eq(t, "p95", s.Daily[0].DurationMSP95, 3000)
}

func TestEmptyIsNull(t *testing.T) {
	s := summarize(time.UTC, nil)
	isNull(t, "success rate", s.Runs.SuccessRate)
	isNull(t, "error rate", s.ToolCalls.ErrorRate)
	isNull(t, "completion rate", s.Steps.CompletionRate)
	isNull(t, "quality mean", s.Quality.Mean)
	isNull(t, "p95", s.Runs.DurationMS.P95)
	b, _ := json.Marshal(s)
	var back map[string]any
	json.Unmarshal(b, &back)
	if back["runs"].(map[string]any)["success_rate"] != nil {
		t.Errorf("success_rate is not null in JSON")
	}
	for _, list := range []string{"tools", "agents", "formats", "daily", "errors"} {
		if _, ok := back[list].([]any); !ok {
			t.Errorf("%s is not an empty list", list)
		}
	}
}

// Accumulators merged in any grouping give the single-pass summary.
func TestAccumulatorMerge(t *testing.T) {
	runs := handRuns()
	want, _ := json.Marshal(summarize(time.UTC, runs))
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 20; trial++ {
		parts := make([]*Accumulator, 1+rng.IntN(4))
		for i := range parts {
			parts[i] = NewAccumulator(Settings{Location: time.UTC})
		}
		for _, r := range runs {
			parts[rng.IntN(len(parts))].AddRun(r)
		}
		total := NewAccumulator(Settings{Location: time.UTC})
		for _, i := range rng.Perm(len(parts)) {
			total.Merge(parts[i])
		}
		if got, _ := json.Marshal(total.Summary()); string(got) != string(want) {
			t.Fatalf("trial %d: merged summary differs:\n%s\n%s", trial, got, want)
		}
	}
}

func TestNormalizeError(t *testing.T) {
	for in, want := range map[string]string{
		"":                                      "(no message)",
		"timeout after 10000 ms loading /a/b/c": "timeout after <n> ms loading <path>",
		"HTTP 403 for /orders/1234":             "HTTP <n> for <path>",
		"request 3f2a9c1e-aaaa-bbbb failed\n\tat": "request <id> failed at",
		"old_string not found in app.tsx":         "old_string not found in <path>",
		"HTTP 500 for /config":                    "HTTP <n> for <path>",
		"read and/or write":                       "read and/or write",
	} {
		if got := NormalizeError(in); got != want {
			t.Errorf("NormalizeError(%q) = %q, want %q", in, got, want)
		}
	}
}

// normalizeErrorEveryExpression is NormalizeError as specified, keeping
// keep bytes: every expression run on every whole text, where
// NormalizeError skips those that cannot change it and tries a long text's
// head first.
func normalizeErrorEveryExpression(msg string, keep int) string {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return "(no message)"
	}
	if !utf8.ValidString(msg) {
		msg = strings.ToValidUTF8(msg, "\uFFFD")
	}
	msg = clip(msg, 2000)
	msg = reHex.ReplaceAllString(msg, "<id>")
	msg = rePath.ReplaceAllString(msg, "${1}<path>")
	msg = reNumber.ReplaceAllString(msg, "<n>")
	msg = reSpace.ReplaceAllString(msg, " ")
	return clip(msg, keep)
}

// FuzzNormalizeError also tries heads and lengths kept as short as a
// fuzzed text, so that a text's head decides what is kept.
func FuzzNormalizeError(f *testing.F) {
	for _, s := range []string{"timeout after 10000 ms loading /a/b/c", "request 3f2a9c1e-aaaa-bbbb failed\n\tat", "a  b", "x\fy",
		"deadbeef", "deadbee", "0xCAFEBABE1", "app.tsx", `C:\\dir\\f`, "文件不存在", "exit code 1", "v1.2.3",
		"at /a/b.go:12 x \"/c/d\" y 0xdeadbeef00 z", "a.go b.go  c.go\n\t/x/y 12.5 q"} {
		f.Add(s, uint8(4), uint8(6))
	}
	f.Fuzz(func(t *testing.T, s string, head, keep uint8) {
		if got, want := NormalizeError(s), normalizeErrorEveryExpression(s, normalizedLen); got != want {
			t.Fatalf("NormalizeError(%q) = %q; every expression run: %q", s, got, want)
		}
		if got, want := normalizeError(s, int(head), int(keep)), normalizeErrorEveryExpression(s, int(keep)); got != want {
			t.Fatalf("normalizeError(%q, %d, %d) = %q; every expression run: %q", s, head, keep, got, want)
		}
	})
}

// testDetails is a details spill with one writer, removed when the test ends.
func testDetails(t *testing.T) (*Details, *detailWriter) {
	t.Helper()
	d := new(Details)
	t.Cleanup(func() { d.Close() })
	w, err := d.writer()
	if err != nil {
		t.Fatal(err)
	}
	return d, w
}

// Run details clip a long error text (and only the copy they keep: the
// run itself is left as it was).
func TestDetailsClipErrors(t *testing.T) {
	d, w := testDetails(t)
	long := strings.Repeat("e", clipError+100)
	run := &model.Run{ID: "r", Format: "session", ToolCalls: []model.ToolCall{{Name: "a", Error: "short"}, {Name: "b", Error: long}}}
	w.write(run)
	w.write(&model.Run{ID: "s", Format: "session", ToolCalls: []model.ToolCall{{Name: "c", Error: "fine"}}})
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	if run.ToolCalls[1].Error != long {
		t.Error("writing the details changed the run")
	}
	var got []*model.Run
	for r, err := range d.All() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	if len(got) != 2 || got[0].ToolCalls[0].Error != "short" || len(got[0].ToolCalls[1].Error) > clipError+len("…") || got[1].ToolCalls[0].Error != "fine" {
		t.Errorf("details: %d runs, errors %q…", len(got), got[0].ToolCalls[1].Error[:20])
	}
}

// Runs come back from the details spill as they went in, whatever their
// size: calls in several chunks, zero fields after set ones, long errors
// clipped in the chunk that holds them, runs with no call at all.
func TestDetailsRoundTrip(t *testing.T) {
	d, w := testDetails(t)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var want []*model.Run
	for i, n := range []int{0, 1, callChunk, callChunk + 1, 3*callChunk + 7} {
		r := &model.Run{ID: fmt.Sprint("r", i), Format: "session", Seq: i, Title: "t"}
		for k := range n {
			c := model.ToolCall{Name: fmt.Sprint("tool", k%7)}
			if k%3 == 0 { // every field set, then a call with none of them
				c.Error, c.Outcome, c.Agent, c.Category = "boom", model.OutcomeError, "a", "c"
				c.Span = model.Span{Started: t0.Add(time.Duration(k) * time.Second), DurationMS: float64(k), HasDuration: true}
				c.ThinkMS, c.HasThink = 1.5, true
			}
			r.ToolCalls = append(r.ToolCalls, c)
		}
		if n > callChunk {
			r.ToolCalls[callChunk].Error = strings.Repeat("e", clipError+10)
		}
		w.write(r)
		want = append(want, r)
	}
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	for i, r := range want { // what comes back: long errors clipped
		if len(r.ToolCalls) > callChunk {
			exp := *r
			exp.ToolCalls = slices.Clone(exp.ToolCalls)
			exp.ToolCalls[callChunk].Error = clip(exp.ToolCalls[callChunk].Error, clipError)
			want[i] = &exp
		}
	}
	i := 0
	for got, err := range d.All() {
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want[i]) {
			t.Fatalf("run %d (%d calls) differs after the spill", i, len(want[i].ToolCalls))
		}
		i++
	}
	if i != len(want) {
		t.Fatalf("%d runs back, want %d", i, len(want))
	}
	// The same calls in chunks, each run without its calls, runs without calls left out.
	var got []*model.Run
	for c, err := range d.Calls() {
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Calls) == 0 || len(c.Calls) > callChunk || c.Run.ToolCalls != nil {
			t.Fatalf("run %s: a chunk of %d calls from %d, the run holding %d", c.Run.ID, len(c.Calls), c.First, len(c.Run.ToolCalls))
		}
		if c.First == 0 {
			got = append(got, &model.Run{})
			*got[len(got)-1] = *c.Run
		}
		r := got[len(got)-1]
		if c.First != len(r.ToolCalls) {
			t.Fatalf("run %s: a chunk from %d after %d calls", r.ID, c.First, len(r.ToolCalls))
		}
		r.ToolCalls = append(r.ToolCalls, c.Calls...)
	}
	// A chunk's run is what orders it, no other field.
	var keys []*model.Run
	for _, r := range want {
		if len(r.ToolCalls) > 0 {
			keys = append(keys, &model.Run{ID: r.ID, Source: r.Source, Format: r.Format, FileOrd: r.FileOrd, Seq: r.Seq, ToolCalls: r.ToolCalls})
		}
	}
	if !reflect.DeepEqual(got, keys) {
		t.Fatal("calls in chunks differ from the runs' calls")
	}
}

// The run index is the same whatever order workers' accumulators merge in,
// even for runs that share source, id and start (a file repeating an id).
func TestRunIndexOrderIndependent(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var runs []*model.Run
	for i := range 40 {
		src := fmt.Sprint("dir/f", i%3, ".jsonl")
		runs = append(runs, &model.Run{ID: fmt.Sprint("r", i%2), Format: "session", Source: src, Seq: i,
			Status: model.StatusSuccess, Title: fmt.Sprint("run ", i), Span: model.Span{Started: t0}})
	}
	index := func(order []int) []RunRow {
		total := NewAccumulator(Settings{Location: time.UTC})
		for _, k := range order {
			w := NewAccumulator(Settings{Location: time.UTC})
			for _, r := range runs {
				if int(r.Source[5]-'0') == k { // one file, one worker, in file order
					w.AddRun(r)
				}
			}
			total.Merge(w)
		}
		return total.RunIndex().Rows()
	}
	want := index([]int{0, 1, 2})
	for _, order := range [][]int{{2, 1, 0}, {1, 0, 2}, {2, 0, 1}} {
		if got := index(order); !reflect.DeepEqual(got, want) {
			t.Fatalf("merge order %v changes the run index", order)
		}
	}
}

// day names each time's date in the accumulator's zone, as Format does,
// however the times follow one another (it keeps the last one's name).
func TestDayNames(t *testing.T) {
	shanghai := time.FixedZone("UTC+8", 8*3600)
	a := NewAccumulator(Settings{Location: shanghai})
	base := time.Date(2026, 8, 23, 15, 30, 0, 0, time.UTC) // 23:30 in Shanghai
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		at := base.Add(time.Duration(rng.IntN(4*24*60)-2*24*60) * time.Minute)
		switch i % 100 {
		case 0:
			at = time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC)
		case 1:
			at = time.Date(9999, 12, 31, 20, 0, 0, 0, time.UTC) // the next year in Shanghai
		}
		if got, want := a.day(at), at.In(shanghai).Format(time.DateOnly); got != want {
			t.Fatalf("day(%v) = %q, want %q", at, got, want)
		}
	}
	if a.day(time.Time{}) != "" {
		t.Error("the zero time has a day")
	}
}

// A tool's page figures, worked out by hand from handRuns: its calls by day
// (a call without a start counts on its run's day), its durations' bins, its
// errors; and each run's failed tools, most failures first.
func TestToolDetailsByHand(t *testing.T) {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Skip(err)
	}
	msg := NormalizeError("File /a/b.go not found at line 12")
	for _, c := range []struct {
		loc      *time.Location
		bashDays []ToolDay
	}{
		{time.UTC, []ToolDay{{Date: "2026-01-01", Calls: 1}, {Date: "2026-01-02", Calls: 1, OutcomeKnown: 1, Errors: 1}}},
		{shanghai, []ToolDay{{Date: "2026-01-02", Calls: 2, OutcomeKnown: 1, Errors: 1}}}, // 23:30 and 00:30 UTC are one day at +8
	} {
		a := NewAccumulator(Settings{Location: c.loc})
		for _, r := range handRuns() {
			a.AddRun(r)
		}
		d := a.Report(time.Time{}, "").ToolDetails
		read, bash := d["Read"], d["Bash"]
		if read == nil || bash == nil || len(d) != 2 {
			t.Fatalf("%s: tool details %v", c.loc, d)
		}
		if want := []ToolDay{{Date: "2026-01-01", Calls: 2, OutcomeKnown: 2, Errors: 1}}; c.loc == time.UTC && !slices.Equal(read.Daily, want) {
			t.Errorf("Read by day: %+v, want %+v", read.Daily, want)
		}
		if !slices.Equal(bash.Daily, c.bashDays) {
			t.Errorf("%s: Bash by day %+v, want %+v", c.loc, bash.Daily, c.bashDays)
		}
		if n := read.Histogram[1].Count; n != 2 || read.Histogram[0].Count != 0 { // 100 and 300 ms: [100 ms, 1 s)
			t.Errorf("Read's durations: %+v", read.Histogram)
		}
		if want := []ToolError{{msg, 1}}; !slices.Equal(read.Errors, want) || !slices.Equal(bash.Errors, want) {
			t.Errorf("errors: Read %v, Bash %v, want %v each", read.Errors, bash.Errors, want)
		}
	}

	a := NewAccumulator(Settings{Location: time.UTC})
	r := &model.Run{ID: "many", Format: "session", Source: "m.json", ToolCalls: []model.ToolCall{
		{Name: "Read", Outcome: model.OutcomeError}, {Name: "Edit", Outcome: model.OutcomeError}, {Name: "Bash", Outcome: model.OutcomeError},
		{Name: "Edit", Outcome: model.OutcomeError}, {Name: "Bash", Outcome: model.OutcomeError}, {Name: "Grep", Outcome: model.OutcomeOK},
	}}
	a.AddRun(r)
	if got, want := a.RunIndex().At(0).FailedTools, "Bash\t2\nEdit\t2\nRead\t1"; got != want {
		t.Errorf("failed tools %q, want %q", got, want)
	}
}

// Subagents' requests are priced as a run's (they are among its requests
// too): Sonnet 4.5 at $3 and $15 a million input and output tokens.
func TestSubagentCostByHand(t *testing.T) {
	at := at("2026-03-01T10:00:00Z")
	sub := model.Subagent{Type: "Explore", Calls: 2, Tokens: 110_000, Requests: model.Requests{
		{Model: "claude-sonnet-4-5", At: at, Tokens: model.Tokens{Input: 100_000}},
		{Model: "claude-sonnet-4-5", At: at, Tokens: model.Tokens{Output: 10_000}},
	}}
	r := &model.Run{ID: "s", Format: "claudecode", Source: "s.jsonl", Span: model.Span{Started: at},
		Context: model.Context{Subagents: []model.Subagent{sub, {Type: "session", Calls: 1, Tokens: 5}}}}
	for _, q := range sub.Requests {
		r.AddRequest(q)
	}
	a := NewAccumulator(Settings{Location: time.UTC})
	a.AddRun(r)
	s := a.Summary().Context.Subagents
	if s.Invocations != 2 || s.Requests != 2 || s.CostUSD == nil || math.Abs(*s.CostUSD-0.45) > 1e-9 {
		t.Errorf("subagents %+v (cost %v), want 2 invocations, 2 requests, $0.45", s, s.CostUSD)
	}
}

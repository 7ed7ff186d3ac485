package logformat

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/agentstat/agentstat/join"
	"github.com/agentstat/agentstat/logformat/formattest"
	"github.com/agentstat/agentstat/logformat/otel"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/agentstat/agentstat/model"
)

func logPath(name string) string { return filepath.Join("..", "testdata", "logs", name) }
func near(a, b float64) bool     { return math.Abs(a-b) < 1e-6 }

func readTestFile(t *testing.T, name string, loc *time.Location) (*formattest.Collector, error) {
	t.Helper()
	f, err := os.Open(logPath(name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := formattest.NewCollector()
	err = Read(f, name, Options{Location: loc}, c)
	return c, err
}

func oneRun(t *testing.T, name string) (*model.Run, map[string]int) {
	t.Helper()
	c, err := readTestFile(t, name, time.UTC)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(c.Runs) != 1 {
		t.Fatalf("%s: %d runs, want 1", name, len(c.Runs))
	}
	return c.Runs[0], c.Warnings
}

// call is what a test expects of one tool call: name, outcome, duration (-1 = unknown).
type call struct {
	name    string
	outcome model.Outcome
	ms      float64
}

func checkCalls(t *testing.T, r *model.Run, want []call) {
	t.Helper()
	if len(r.ToolCalls) != len(want) {
		t.Fatalf("%s: %d tool calls, want %d", r.ID, len(r.ToolCalls), len(want))
	}
	for i, w := range want {
		got := r.ToolCalls[i]
		ms := -1.0
		if got.HasDuration {
			ms = got.DurationMS
		}
		if got.Name != w.name || got.Outcome != w.outcome || !near(ms, w.ms) {
			t.Errorf("%s call %d = {%q %v %v}, want {%q %v %v}", r.ID, i, got.Name, got.Outcome, ms, w.name, w.outcome, w.ms)
		}
	}
}

func checkSteps(t *testing.T, r *model.Run, want ...model.StepStatus) {
	t.Helper()
	var got []model.StepStatus
	for _, s := range r.Steps {
		got = append(got, s.Status)
	}
	if strings.Join(toStrings(got), ",") != strings.Join(toStrings(want), ",") {
		t.Errorf("%s steps = %v, want %v", r.ID, got, want)
	}
}

func toStrings[T ~string](v []T) []string {
	out := make([]string, len(v))
	for i, s := range v {
		out[i] = string(s)
	}
	return out
}

func checkRun(t *testing.T, r *model.Run, id string, status model.Status, durMS float64) {
	t.Helper()
	if r.ID != id {
		t.Errorf("id = %q, want %q", r.ID, id)
	}
	if r.Status != status {
		t.Errorf("%s status = %s, want %s", id, r.Status, status)
	}
	ms := -1.0
	if r.HasDuration {
		ms = r.DurationMS
	}
	if !near(ms, durMS) {
		t.Errorf("%s duration = %v, want %v", id, ms, durMS)
	}
}

func checkWarnings(t *testing.T, name string, got map[string]int, want map[string]int) {
	t.Helper()
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s: warning %s = %d, want %d (all: %v)", name, k, got[k], n, got)
		}
	}
	for k, n := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected warning %s ×%d", name, k, n)
		}
	}
}

const (
	ok        = model.OutcomeOK
	failed    = model.OutcomeError
	unknown   = model.OutcomeUnknown
	cancelled = model.OutcomeCancelled
)

func TestPlanexec(t *testing.T) {
	r, w := oneRun(t, "planexec/seed-example.json")
	// 14:14:45.324512 − 14:14:11.711141
	checkRun(t, r, "plan_1743142451689", model.StatusRunning, 33613.371)
	checkSteps(t, r, model.StepCompleted, model.StepCompleted, model.StepInProgress)
	checkCalls(t, r, []call{{"browser", ok, 3000}})
	if c := r.ToolCalls[0]; c.Agent != "BROWSER_AGENT" || !c.HasThink || !near(c.ThinkMS, 611.371) {
		t.Errorf("call agent/think = %q %v %v", c.Agent, c.HasThink, c.ThinkMS)
	}
	if r.Steps[2].Agent != "REACT_AGENT" || r.Request != "通过百度查询一下最新的阿里巴巴股价" {
		t.Errorf("step agent %q, request %q", r.Steps[2].Agent, r.Request)
	}
	if len(r.Context.StepBudget) != 1 || !near(r.Context.StepBudget[0], 1.0/3) {
		t.Errorf("step budget = %v", r.Context.StepBudget)
	}
	checkWarnings(t, "seed", w, nil)

	// Drift: string ids, seconds-less and Jackson-array times, no status arrays,
	// ERROR/isStuck agent, SUCCESS/ERROR think-act words, a negative act span.
	r, w = oneRun(t, "planexec/drift-handwritten.json")
	checkRun(t, r, "plan_drift", model.StatusFailed, 150500) // 14:14 → 14:16:30.5
	checkSteps(t, r, model.StepOther, model.StepOther)
	checkCalls(t, r, []call{{"browser", ok, 2500}, {"browser", failed, 10000}, {"summarize", ok, -1}})
	if e := r.ToolCalls[1].Error; e != "timeout after 10000 ms loading /forecast/beijing" {
		t.Errorf("error text = %q", e)
	}
	if !near(r.ToolCalls[0].ThinkMS, 1250) {
		t.Errorf("think = %v", r.ToolCalls[0].ThinkMS)
	}
	if b := r.Context.StepBudget; len(b) != 2 || !near(b[0], 0.75) || !near(b[1], 1) {
		t.Errorf("step budget = %v", b)
	}
	checkWarnings(t, "drift", w, map[string]int{reader.WarnMissingStatus: 2, reader.WarnNegativeDuration: 1})

	r, w = oneRun(t, "planexec/completed-handwritten.json")
	checkRun(t, r, "plan_done", model.StatusSuccess, 9999.999999)
	checkSteps(t, r, model.StepCompleted, model.StepCompleted)
	checkCalls(t, r, []call{{"translate", ok, 3000}, {"translate", ok, 1500}})
	checkWarnings(t, "completed", w, nil)
}

func TestSession(t *testing.T) {
	r, w := oneRun(t, "session/seed-simple.json")
	checkRun(t, r, "2026-01-25-013-report", model.StatusSuccess, 5000)
	checkCalls(t, r, []call{{"Bash", ok, 800}, {"Bash", ok, 750}})
	if r.Model != "claude-opus-4-5-20251101" || r.Request != "/report" || r.ToolCalls[0].Category != "perception" {
		t.Errorf("model %q request %q category %q", r.Model, r.Request, r.ToolCalls[0].Category)
	}
	checkWarnings(t, "seed-simple", w, map[string]int{reader.WarnCountMismatch: 1}) // summary says 11 calls, the file holds 2

	r, w = oneRun(t, "session/seed-annotated.json")
	checkRun(t, r, "2026-01-25-001-knowledge-markers", model.StatusSuccess, 300000)
	checkCalls(t, r, []call{{"Glob", ok, 500}, {"Read", ok, 800}, {"Write", ok, 5000}})
	if refs := r.Context.Refs; len(refs) != 1 || refs[0] != (model.ContextRef{Type: "file", Relevance: "high", UsageMode: "read_then_modified"}) {
		t.Errorf("refs = %v", refs)
	}
	if c := r.Context.Contributions; len(c) != 1 || c[0] != "file_content" {
		t.Errorf("contributions = %v", c)
	}
	checkWarnings(t, "seed-annotated", w, map[string]int{reader.WarnCountMismatch: 1})

	r, w = oneRun(t, "session/v2-phases.json")
	checkRun(t, r, "2026-01-20-001-v2-phases", model.StatusSuccess, 1800000)                 // 23:50 → 00:20 next day, +08:00
	checkCalls(t, r, []call{{"Read", ok, 1000}, {"Grep", ok, 2000}, {"Edit", failed, 3000}}) // tool-002 listed in two phases counts once
	if len(r.Context.Refs) != 3 || r.Context.Refs[2].UsageMode != "" {
		t.Errorf("refs = %v", r.Context.Refs)
	}
	if want := time.Date(2026, 1, 20, 15, 50, 0, 0, time.UTC); !r.Started.Equal(want) {
		t.Errorf("started = %v", r.Started)
	}
	checkWarnings(t, "v2-phases", w, nil)

	r, w = oneRun(t, "session/v2-nested.json")
	checkRun(t, r, "2026-01-21-002-v2-nested", model.StatusFailed, 600000)
	// tool-001 nested again is not counted twice; the id-less nested entry (tool under "tool") counts.
	checkCalls(t, r, []call{{"Bash", ok, 5000}, {"Bash", failed, 30000}, {"Bash", unknown, -1}})
	checkWarnings(t, "v2-nested", w, nil)

	r, w = oneRun(t, "session/v1-steps.json")
	checkRun(t, r, "v1-fibonacci", model.StatusUnknown, -1)
	checkSteps(t, r, model.StepCompleted, model.StepCompleted, model.StepCompleted, model.StepFailed, model.StepSkipped, model.StepNotStarted, model.StepOther)
	if !r.Steps[2].HasDuration || r.Steps[2].DurationMS != 500 || r.Steps[0].Name != "requirement_input" {
		t.Errorf("step 2 = %+v", r.Steps[2])
	}
	checkWarnings(t, "v1", w, map[string]int{reader.WarnOtherStepStatus: 1})

	r, w = oneRun(t, "session/drift-handwritten.json")
	checkRun(t, r, "2026-01-28-009", model.StatusSuccess, 1800000) // "Completed " reads as success
	checkCalls(t, r, []call{{"Read", ok, 2000}, {"Task", failed, 600000}, {"Write", unknown, -1}, {"Task", unknown, 60000}})
	if s := r.Context.Subagents; len(s) != 2 || !reflect.DeepEqual(s[0], model.Subagent{Type: "Explore", Calls: 10, Tokens: 12000}) || !reflect.DeepEqual(s[1], model.Subagent{Type: "Plan", Calls: 5}) {
		t.Errorf("subagents = %+v", s)
	}
	if r.Tokens.Unspecified != 12000 || r.Tokens.Total() != 12000 {
		t.Errorf("tokens = %+v", r.Tokens)
	}
	if c := r.Context.Contributions; strings.Join(c, ",") != "knowledge,artifact_creation" {
		t.Errorf("contributions = %v", c)
	}
	if !strings.HasPrefix(r.Summary, "整理了") || r.Agent != "" {
		t.Errorf("summary %q agent %q", r.Summary, r.Agent)
	}
	checkWarnings(t, "drift", w, map[string]int{reader.WarnNegativeDuration: 1})

	if _, err := readTestFile(t, "session/invalid-unescaped-quotes.json", time.UTC); reason(err) != ReasonInvalidJSON {
		t.Errorf("unescaped quotes: %v", err)
	}
}

func reason(err error) string {
	var s *SkipError
	if errors.As(err, &s) {
		return s.Reason
	}
	if err != nil {
		return "error: " + err.Error()
	}
	return ""
}

func TestDebugBundle(t *testing.T) {
	r, w := oneRun(t, "debugbundle/bundle-handwritten.json")
	checkRun(t, r, "1702886400000-abc123", model.StatusSuccess, 4500) // latest of error/tool_result/node_end is node_end
	checkSteps(t, r, model.StepCompleted, model.StepCompleted, model.StepSkipped)
	// sql-query 100→1100; sql-explain 400→1500 failed; the second sql-explain (2000) pairs by node with
	// the result at 2600 that names no tool.
	checkCalls(t, r, []call{{"sql-query", ok, 1000}, {"sql-explain", failed, 1100}, {"sql-explain", ok, 600}})
	if e := r.ToolCalls[1].Error; e != "permission denied for relation users_2024" {
		t.Errorf("error = %q", e)
	}
	if r.Tokens.Unspecified != 1536 || r.Context.Retries != 1 || r.Context.BudgetWarnings != 1 {
		t.Errorf("tokens %d retries %d warnings %d", r.Tokens.Unspecified, r.Context.Retries, r.Context.BudgetWarnings)
	}
	if b := r.Context.ToolCallBudget; len(b) != 1 || !near(b[0], 0.15) {
		t.Errorf("tool-call budget = %v", b)
	}
	if b := r.Context.DurationBudget; len(b) != 1 || !near(b[0], 0.015) {
		t.Errorf("duration budget = %v", b)
	}
	if r.Title != "优化这段 SQL 并保持结果一致" {
		t.Errorf("title = %q", r.Title)
	}
	checkWarnings(t, "bundle", w, nil)

	// An EventsExport alone: spans first to last event; a repeated event is dropped;
	// unknown event types are counted nowhere but never rejected; the latest outcome is an error.
	r, w = oneRun(t, "debugbundle/events-export-handwritten.json")
	checkRun(t, r, "events-export-handwritten", model.StatusFailed, 2500)
	checkCalls(t, r, []call{{"web-search", ok, 700}, {"fetch", unknown, -1}})
	checkWarnings(t, "events", w, map[string]int{reader.WarnDuplicateEvent: 1})

	r, w = oneRun(t, "debugbundle/aborted-handwritten.json")
	checkRun(t, r, "aborted-run", model.StatusFailed, -1) // updatedAt before createdAt: dropped
	if r.Context.BudgetExceeded != 1 {
		t.Errorf("exceeded = %d", r.Context.BudgetExceeded)
	}
	checkCalls(t, r, []call{{"shell", unknown, -1}})
	checkWarnings(t, "aborted", w, map[string]int{reader.WarnNegativeDuration: 1})
}

// A failed tool result without metadata.error gives its summary as the
// error, whatever the key order and letter case; no other summary is kept.
func TestBundleErrorFromSummary(t *testing.T) {
	const export = `{"events": [
	{"summary":"disk full","id":"e1","timestamp":1702886401000,"type":"tool_call","nodeId":"n","metadata":{"toolName":"write"}},
	{"summary":"quota exceeded on /data","id":"e2","timestamp":1702886401500,"type":"Tool_Result","status":"FAILURE","nodeId":"n"},
	{"id":"e3","timestamp":1702886402000,"type":"tool_call","nodeId":"n","summary":"x","metadata":{"toolName":"write"}},
	{"id":"e4","type":"tool_result","summary":"fine","timestamp":1702886402600,"status":"success","nodeId":"n"}]}`
	c := formattest.NewCollector()
	if err := Read(strings.NewReader(export), "export.json", Options{Location: time.UTC}, c); err != nil || len(c.Runs) != 1 {
		t.Fatalf("%v, %d runs", err, len(c.Runs))
	}
	r := c.Runs[0]
	checkCalls(t, r, []call{{"write", failed, 500}, {"write", ok, 600}})
	if r.ToolCalls[0].Error != "quota exceeded on /data" || r.ToolCalls[1].Error != "" {
		t.Errorf("errors %q %q", r.ToolCalls[0].Error, r.ToolCalls[1].Error)
	}
}

// An event is a repeat only with the same id, type and timestamp as an
// earlier one (a missing type and an empty one are the same): producers
// reuse ids, and a call and its result may share one.
func TestBundleDuplicateEvents(t *testing.T) {
	const export = `{"events": [
	{"id":"x","timestamp":1702886401000,"type":"tool_call","metadata":{"toolName":"w"}},
	{"id":"x","timestamp":1702886401000,"type":"tool_result","status":"success","metadata":{"toolName":"w"}},
	{"id":"x","timestamp":1702886401000,"type":"tool_result","status":"failure","metadata":{"toolName":"w"}},
	{"id":"y","timestamp":1702886402000},
	{"id":"y","timestamp":1702886402000,"type":""},
	{"timestamp":1702886403000,"type":"tool_call","metadata":{"toolName":"w"}},
	{"timestamp":1702886403000,"type":"tool_call","metadata":{"toolName":"w"}}]}`
	c := formattest.NewCollector()
	if err := Read(strings.NewReader(export), "export.json", Options{Location: time.UTC}, c); err == nil && len(c.Runs) == 1 {
		t.Fatalf("an event without a type makes no EventsExport: %d runs", len(c.Runs))
	}
	typed := strings.Replace(strings.Replace(export, `{"id":"y","timestamp":1702886402000},`, `{"id":"y","timestamp":1702886402000,"type":"note"},`, 1),
		`"type":""}`, `"type":"note"}`, 1)
	c = formattest.NewCollector()
	if err := Read(strings.NewReader(typed), "export.json", Options{Location: time.UTC}, c); err != nil || len(c.Runs) != 1 {
		t.Fatalf("%v, %d runs", err, len(c.Runs))
	}
	// The call pairs with the first result (same id, other type); the repeated failure
	// of the same id and type is dropped, as is the second note; events without an id never are.
	checkCalls(t, c.Runs[0], []call{{"w", ok, 0}, {"w", unknown, -1}, {"w", unknown, -1}})
	checkWarnings(t, "export", c.Warnings, map[string]int{reader.WarnDuplicateEvent: 2})
}

// A copy of a PlanAgent store beside the original (a state.bak/) counts
// every file once: each plan copy is a run (duplicate ids still count),
// and each BatchResult belongs to one plan, the first that names it. Each
// plan copy had taken every copy of its batches: k copies, k² the calls.
func TestPlanagentCopies(t *testing.T) {
	names := []string{"execution-result-batch-1.json", "execution-result-batch-2.json", "execution-result-batch-x.json", "plan_agent-plan-plan-api-tests.json"}
	calls := func(copies int) (runs, n int) {
		var all []*join.Fragment
		w := formattest.NewCollector()
		for k := range copies {
			for _, name := range names {
				c, err := readTestFile(t, "planagent/"+name, time.UTC)
				if err != nil {
					t.Fatal(err)
				}
				c.Frags[0].Source = fmt.Sprintf("copy%d/%s", k, name)
				all = append(all, c.Frags...)
			}
		}
		rs, _ := formattest.JoinAll(all, w)
		for _, r := range rs {
			n += len(r.ToolCalls)
		}
		return len(rs), n
	}
	runs1, one := calls(1)
	runs3, three := calls(3)
	if one == 0 || runs3 != 3*runs1 || three != 3*one {
		t.Fatalf("one copy: %d runs, %d calls; three copies: %d runs, %d calls", runs1, one, runs3, three)
	}
}

func TestPlanagentJoin(t *testing.T) {
	var all []*join.Fragment
	w := formattest.NewCollector()
	for _, name := range []string{"execution-log-sess-42.json", "execution-result-batch-1.json", "execution-result-batch-2.json",
		"execution-result-batch-x.json", "plan_agent-plan-plan-api-tests.json", "plan_agent-progress-plan-api-tests.json", "plan_agent-progress-plan-nobody.json"} {
		c, err := readTestFile(t, "planagent/"+name, time.UTC)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(c.Runs) != 0 || len(c.Frags) != 1 {
			t.Fatalf("%s: %d runs %d fragments", name, len(c.Runs), len(c.Frags))
		}
		c.Frags[0].Source = "planagent/" + name
		all = append(all, c.Frags...)
		for k, n := range c.Warnings {
			w.Warnings[k] += n
		}
	}
	runs, owner := formattest.JoinAll(all, w)
	for _, f := range all {
		if orphan := f.Source == "planagent/plan_agent-progress-plan-nobody.json"; orphan != (len(owner[f]) == 0) {
			t.Errorf("%s: owner %v", f.Source, owner[f])
		}
	}
	if len(runs) != 2 {
		t.Fatalf("%d runs, want the plan and the lone batch", len(runs))
	}
	lone, plan := runs[0], runs[1] // source order: execution-result-batch-x < plan_agent-plan
	checkRun(t, plan, "plan-api-tests", model.StatusSuccess, 300000)
	checkSteps(t, plan, model.StepCompleted, model.StepCompleted, model.StepCompleted, model.StepFailed, model.StepNotStarted)
	checkCalls(t, plan, []call{{"GET /users", ok, 1000}, {"POST /users", ok, 1500}, {"GET /orders", ok, 3000}, {"DELETE /orders", failed, 1000}})
	if plan.ToolCalls[3].Error != "HTTP 403 for /orders/1234" {
		t.Errorf("error = %q", plan.ToolCalls[3].Error)
	}
	checkRun(t, lone, "batch-x", model.StatusFailed, 800)
	checkCalls(t, lone, []call{{"PUT /config", failed, 800}})
	checkSteps(t, lone, model.StepFailed)
	checkWarnings(t, "planagent", w.Warnings, nil)
}

func TestStructmsg(t *testing.T) {
	r, w := oneRun(t, "structmsg/seed-example.json")
	checkRun(t, r, "msg_1234567890", model.StatusSuccess, -1)
	checkSteps(t, r, model.StepCompleted)
	checkCalls(t, r, []call{{"file_operations", ok, -1}})
	if q := r.Quality; len(q) != 1 || q[0].Score != 9.5 || q[0].Valid != model.TriTrue || q[0].Phase != "Phase名称" || q[0].Tool != "file_operations" {
		t.Errorf("quality = %+v", q)
	}
	if want := time.Unix(1234567890, 0); !r.Started.Equal(want) {
		t.Errorf("started = %v", r.Started)
	}
	checkWarnings(t, "seed", w, map[string]int{reader.WarnQualityMismatch: 1}) // the seed's quality_average 9.2 vs its one score 9.5

	r, w = oneRun(t, "structmsg/context-handwritten.json")
	checkRun(t, r, "context-handwritten", model.StatusRunning, -1) // done + running
	checkSteps(t, r, model.StepCompleted, model.StepCompleted, model.StepCompleted, model.StepFailed, model.StepNotStarted)
	checkCalls(t, r, []call{{"file_operations", ok, -1}, {"search_code", ok, -1}, {"file_operations", ok, -1}, {"run_terminal", failed, -1}, {"file_operations", unknown, -1}})
	if len(r.Quality) != 4 || r.Quality[3].HasScore || r.Quality[3].Valid != model.TriFalse {
		t.Errorf("quality = %+v", r.Quality) // a quoted score does not count; output_valid still does
	}
	if want := time.Unix(1761406144, 500000000); !r.Started.Equal(want) {
		t.Errorf("started = %v", r.Started)
	}
	checkWarnings(t, "context", w, map[string]int{reader.WarnTypeMismatch: 2}) // success "yes", quality_score "3"

	c, err := readTestFile(t, "structmsg/conversations-handwritten.json", time.UTC)
	if err != nil || len(c.Runs) != 2 {
		t.Fatalf("conversations: %v, %d runs", err, len(c.Runs))
	}
	checkRun(t, c.Runs[0], "msg_partial", model.StatusPartial, -1)
	checkRun(t, c.Runs[1], "conv-1#msg4", model.StatusRunning, -1) // no phases
	if _, err := readTestFile(t, "structmsg/conversation-without-structure.json", time.UTC); reason(err) != ReasonNoRuns {
		t.Errorf("conversation without structure: %v", err)
	}
}

func TestBrokenFiles(t *testing.T) {
	for name, want := range map[string]string{
		"broken/empty.json":       ReasonEmpty,
		"broken/whitespace.json":  ReasonEmpty,
		"broken/truncated.json":   ReasonTruncated,
		"broken/binary.json":      ReasonInvalidJSON,
		"broken/latin1.json":      ReasonNotUTF8,
		"broken/unknown.json":     ReasonUnknown,
		"broken/nan.json":         "", // NaN is read as null, with a warning
		"broken/bom-session.json": "",
	} {
		_, err := readTestFile(t, name, time.UTC)
		if got := reason(err); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	// JSON Lines: a broken line and a line of no format are counted; the good lines are read.
	c, err := readTestFile(t, "broken/sessions.jsonl", time.UTC)
	if err != nil || len(c.Runs) != 2 || c.Runs[0].ID != "lines-1" || c.Runs[1].ID != "lines-2" {
		t.Fatalf("jsonl: %v %d", err, len(c.Runs))
	}
	checkWarnings(t, "jsonl", c.Warnings, map[string]int{reader.WarnInvalidLine: 1, reader.WarnUnknownLine: 1})
}

func TestLongLine(t *testing.T) {
	// A JSONL line far larger than any buffer streams through the decoder.
	pad := strings.Repeat("x", 8<<20)
	line := `{"session_id":"big","status":"success","tool_calls":[{"call_id":"a","tool_name":"Read","input":{"content":"` + pad + `"},"output":{"status":"success"}}]}`
	c := formattest.NewCollector()
	if err := Read(strings.NewReader(line+"\n"+line+"\n"), "big.jsonl", Options{}, c); err != nil || len(c.Runs) != 2 {
		t.Fatalf("long lines: %v, %d runs", err, len(c.Runs))
	}
}

func TestNoZoneUsesLocation(t *testing.T) {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Skip("no tz database")
	}
	c, err := readTestFile(t, "planexec/completed-handwritten.json", shanghai)
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2025, 3, 29, 1, 0, 0, 1, time.UTC); !c.Runs[0].Started.Equal(want) {
		t.Errorf("naive 09:00 in Asia/Shanghai = %v, want %v", c.Runs[0].Started.UTC(), want)
	}
}

func TestFormatsListed(t *testing.T) {
	names := map[string]bool{}
	for _, f := range All() {
		if f.Signature == "" || f.Title == "" {
			t.Errorf("%s lacks a description", f.Name)
		}
		names[f.Name] = true
	}
	for _, n := range []string{"planexec", "session", "debugbundle", "planagent", "structmsg"} {
		if !names[n] {
			t.Errorf("format %s missing", n)
		}
	}
}

func TestClaudeCodeJoin(t *testing.T) {
	var all []*join.Fragment
	w := formattest.NewCollector()
	for _, name := range []string{"claudecode/proj/s1.jsonl", "claudecode/proj/s1-resumed.jsonl", "claudecode/proj/s1/subagents/agent-agentX.jsonl"} {
		c, err := readTestFile(t, name, time.UTC)
		if err != nil || len(c.Runs) != 0 {
			t.Fatalf("%s: %v, %d runs", name, err, len(c.Runs))
		}
		for _, f := range c.Frags {
			f.Source = name
		}
		all = append(all, c.Frags...)
		checkWarnings(t, name, c.Warnings, nil) // the summary line is Claude Code's own, not unknown
	}
	runs, owner := formattest.JoinAll(all, w)
	if len(runs) != 1 {
		t.Fatalf("%d runs, want one per session", len(runs))
	}
	r := runs[0]
	for _, f := range all {
		if len(owner[f]) != 1 || owner[f][0] != r {
			t.Fatalf("fragment of %s not joined", f.Source)
		}
	}
	// 10:00:00 → 10:03:02, the last entry of the resumed file.
	checkRun(t, r, "11111111-2222-3333-4444-555555555555", model.StatusUnknown, 182000)
	// t1: durationMs beats timestamps; t2 rejected; t3 interrupted; t4 the Task; t5 never answered;
	// t6 from the resumed file. The first four entries, repeated there, count once.
	checkCalls(t, r, []call{{"Bash", ok, 1500}, {"Edit", cancelled, 1000}, {"Read", cancelled, 3000}, {"Task", ok, 55000}, {"Grep", unknown, -1}, {"Bash", ok, 2000}})
	if r.ToolCalls[1].Error != "rejected by the user" || r.ToolCalls[2].Error != "interrupted" {
		t.Errorf("errors %q %q", r.ToolCalls[1].Error, r.ToolCalls[2].Error)
	}
	// Usage once per message id + request id, the largest copy; <synthetic> and API errors are not usage.
	want := model.Tokens{Input: 10 + 5 + 1 + 3 + 40, Output: 20 + 7 + 1 + 4 + 60, CacheRead: 100 + 200, CacheCreation: 50}
	if r.Tokens != want {
		t.Errorf("tokens = %+v, want %+v", r.Tokens, want)
	}
	// The sidechain's calls are subagent work, typed through the Task result's agentId.
	if s := r.Context.Subagents; len(s) != 1 || s[0].Type != "Explore" || s[0].Calls != 2 || s[0].Tokens != 100 || len(s[0].Requests) != 1 || s[0].Requests[0].Tokens.Total() != 100 {
		t.Errorf("subagents = %+v", s)
	}
	if r.Title != "Fix the failing test" || r.Model != "claude-sonnet-4-5" || r.Source != "claudecode/proj/s1-resumed.jsonl" && r.Source != "claudecode/proj/s1.jsonl" {
		t.Errorf("title %q model %q source %q", r.Title, r.Model, r.Source)
	}
}

// A transcript line of 20 MB (a pasted file) streams through with bounded memory.
func TestClaudeCodeHugeLine(t *testing.T) {
	line := `{"type":"user","sessionId":"big","uuid":"u1","timestamp":"2026-03-05T10:00:00Z","message":{"role":"user","content":"` +
		strings.Repeat("x", 20<<20) + `"}}` + "\n" +
		`{"type":"assistant","sessionId":"big","uuid":"a1","timestamp":"2026-03-05T10:00:05Z","requestId":"r","message":{"id":"m","model":"claude-opus-4-6","content":[],"usage":{"input_tokens":7,"output_tokens":3}}}` + "\n"
	c := formattest.NewCollector()
	if err := Read(strings.NewReader(line), "big.jsonl", Options{}, c); err != nil || len(c.Frags) != 1 {
		t.Fatalf("%v, %d fragments (want one per file and session)", err, len(c.Frags))
	}
	runs, _ := formattest.JoinAll(c.Frags, c)
	if len(runs) != 1 || runs[0].Tokens.Total() != 10 || len([]rune(runs[0].Request)) > 2001 {
		t.Errorf("run = %+v", runs)
	}
}

func TestCodexJoin(t *testing.T) {
	var all []*join.Fragment
	for _, name := range []string{"codex/rollout-2025-05-01-old.jsonl", "codex/rollout-2026-03-06T09-00-00-rollout-one.jsonl"} {
		c, err := readTestFile(t, name, time.UTC)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkWarnings(t, name, c.Warnings, nil)
		for _, f := range c.Frags {
			f.Source = name
		}
		all = append(all, c.Frags...)
	}
	w := formattest.NewCollector()
	runs, _ := formattest.JoinAll(all, w)
	if len(runs) != 2 {
		t.Fatalf("%d runs", len(runs))
	}
	old, one := runs[0], runs[1]
	checkCalls(t, old, []call{{"shell", ok, -1}}) // pre-envelope: exit code 0, no timestamps on items
	// shell exits 1 (in its output's metadata), apply_patch succeeds, shell exits 2 (exec_command_end), the last never answers.
	checkRun(t, one, "rollout-one", model.StatusUnknown, 30000)
	checkCalls(t, one, []call{{"shell", failed, 3000}, {"apply_patch", ok, 1000}, {"shell", failed, 3000}, {"shell", unknown, -1}})
	// Deltas of the running total; the doubled event adds nothing; cached input is not input.
	if want := (model.Tokens{Input: 1000, CacheRead: 2000, Output: 90}); one.Tokens != want {
		t.Errorf("tokens %+v, want %+v", one.Tokens, want)
	}
	if one.Model != "gpt-5-codex" || one.Request != "Run the tests and fix them" || one.ToolCalls[0].Error != "exit code 1" {
		t.Errorf("model %q request %q error %q", one.Model, one.Request, one.ToolCalls[0].Error)
	}
}

// A Codex session resumed in a second file, and a file holding two
// sessions: one fragment per file and session, entries joined in file
// order, token deltas running across the files.
func TestCodexSessionsAcrossFiles(t *testing.T) {
	line := func(at, typ, payload string) string {
		return `{"timestamp": "2026-03-06T09:00:` + at + `.000Z", "type": "` + typ + `", "payload": ` + payload + "}\n"
	}
	meta := func(at, id string) string { return line(at, "session_meta", `{"id": "`+id+`"}`) }
	callLine := func(at, id string) string {
		return line(at, "response_item", `{"type": "function_call", "name": "shell", "call_id": "`+id+`"}`)
	}
	output := func(at, id, code string) string {
		return line(at, "response_item", `{"type": "function_call_output", "call_id": "`+id+`", "output": "{\"metadata\":{\"exit_code\":`+code+`}}"}`)
	}
	tokens := func(at, n string) string {
		return line(at, "event_msg", `{"type": "token_count", "info": {"total_token_usage": {"input_tokens": `+n+`, "output_tokens": 1}}}`)
	}
	files := map[string]string{
		"a/rollout-1.jsonl": meta("00", "s1") + callLine("01", "c1") + output("02", "c1", "0") + tokens("03", "100") +
			meta("10", "s2") + callLine("11", "c2"),
		"b/rollout-2.jsonl": meta("20", "s1") + callLine("21", "c3") + output("24", "c3", "1") + tokens("25", "150"),
	}
	var all []*join.Fragment
	perFile := map[string]int{}
	for _, name := range []string{"a/rollout-1.jsonl", "b/rollout-2.jsonl"} {
		c := formattest.NewCollector()
		if err := Read(strings.NewReader(files[name]), name, Options{}, c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkWarnings(t, name, c.Warnings, nil)
		for _, f := range c.Frags {
			f.Source = name
		}
		perFile[name] = len(c.Frags)
		all = append(all, c.Frags...)
	}
	if perFile["a/rollout-1.jsonl"] != 2 || perFile["b/rollout-2.jsonl"] != 1 {
		t.Errorf("fragments per file %v, want one per file and session", perFile)
	}
	runs, _ := formattest.JoinAll(all, formattest.NewCollector())
	if len(runs) != 2 || runs[0].ID != "s1" || runs[1].ID != "s2" {
		t.Fatalf("runs %+v", runs)
	}
	checkCalls(t, runs[0], []call{{"shell", ok, 1000}, {"shell", failed, 3000}})
	checkCalls(t, runs[1], []call{{"shell", unknown, -1}})
	if got := runs[0].Tokens; got.Input != 150 || got.Output != 1 {
		t.Errorf("s1 tokens %+v, want the running total's deltas across both files", got)
	}
	if runs[0].Span.DurationMS != 25000 {
		t.Errorf("s1 span %v", runs[0].Span)
	}
}

func TestOtelJoin(t *testing.T) {
	c, err := readTestFile(t, "otel/traces.otlp.jsonl", time.UTC)
	if err != nil || len(c.Frags) != 1 || len(join.EntryLogOf[otel.Span](c.Frags[0]).All()) != 6 {
		t.Fatalf("%v, %d fragments, want one trace of 6 spans", err, len(c.Frags))
	}
	checkWarnings(t, "otel", c.Warnings, nil)
	runs, _ := formattest.JoinAll(c.Frags, c)
	if len(runs) != 1 {
		t.Fatalf("%d runs, want the one invoke_agent span", len(runs))
	}
	r := runs[0]
	checkRun(t, r, "t-1/a", model.StatusFailed, 9000) // STATUS_CODE_ERROR, an enum name
	// The span exported twice counts once; error.type is an error.
	checkCalls(t, r, []call{{"search", ok, 2000}, {"fetch", failed, 1500}})
	// Only model calls count, never the agent span's repeated totals; deprecated
	// prompt/completion names are read; GenAI input includes the cache, so it is taken out.
	if want := (model.Tokens{Input: 300 + 400, Output: 40 + 50, CacheRead: 200}); r.Tokens != want {
		t.Errorf("tokens %+v, want %+v", r.Tokens, want)
	}
	if r.Agent != "support" || r.Model != "gpt-4o" || r.ToolCalls[1].Error != "TimeoutError" {
		t.Errorf("agent %q model %q error %q", r.Agent, r.Model, r.ToolCalls[1].Error)
	}
}

// Instrumentation leaves a tool span's status UNSET when it succeeds: such a
// span is ok, so a trace with one ERROR among four calls fails 25% of them.
func TestOtelUnsetIsOK(t *testing.T) {
	span := func(id, status string) string {
		return `{"traceId":"t","spanId":"` + id + `","parentSpanId":"a","name":"execute_tool calculator","startTimeUnixNano":"1767261601000000000","endTimeUnixNano":"1767261602000000000",` +
			`"attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"execute_tool"}},{"key":"gen_ai.tool.name","value":{"stringValue":"calculator"}}]` + status + `}`
	}
	doc := `{"resourceSpans":[{"scopeSpans":[{"spans":[` +
		`{"traceId":"t","spanId":"a","name":"invoke_agent calc","startTimeUnixNano":"1767261600000000000","endTimeUnixNano":"1767261609000000000","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"invoke_agent"}}]},` +
		span("x1", "") + "," + span("x2", `,"status":{}`) + "," + span("x3", `,"status":{"code":"STATUS_CODE_UNSET"}`) + "," +
		span("x4", `,"status":{"code":"STATUS_CODE_ERROR","message":"division by zero"},"attributes":[`+
			`{"key":"gen_ai.operation.name","value":{"stringValue":"execute_tool"}},{"key":"gen_ai.tool.name","value":{"stringValue":"calculator"}},`+
			`{"key":"gen_ai.tool.call.arguments","value":{"stringValue":"{\"query\":\"1/0\"}"}}]`) + `]}]}]}`
	c := formattest.NewCollector()
	if err := Read(strings.NewReader(doc), "trace.json", Options{Location: time.UTC}, c); err != nil {
		t.Fatal(err)
	}
	runs, _ := formattest.JoinAll(c.Frags, c)
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	checkCalls(t, runs[0], []call{{"calculator", ok, 1000}, {"calculator", ok, 1000}, {"calculator", ok, 1000}, {"calculator", failed, 1000}})
	// gen_ai.tool.call.arguments gives a call its key input.
	if in := runs[0].ToolCalls[3].Input; in != "1/0" || runs[0].ToolCalls[0].Input != "" {
		t.Errorf("inputs %q and %q", runs[0].ToolCalls[0].Input, in)
	}
}

func TestGemini(t *testing.T) {
	c, err := readTestFile(t, "gemini/session-2026-03-07-hand.json", time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	checkWarnings(t, "gemini", c.Warnings, nil)
	runs, _ := formattest.JoinAll(c.Frags, c)
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	r := runs[0]
	checkRun(t, r, "gemini-hand", model.StatusUnknown, 300000) // startTime → lastUpdated
	checkCalls(t, r, []call{{"run_shell_command", ok, -1}, {"write_file", failed, -1}, {"run_shell_command", cancelled, -1}})
	if in := []string{r.ToolCalls[0].Input, r.ToolCalls[1].Input, r.ToolCalls[2].Input}; !slices.Equal(in, []string{"make build", "/w/out.txt", ""}) {
		t.Errorf("inputs %q", in)
	}
	// input includes the cached tokens; thoughts are output.
	if want := (model.Tokens{Input: 400, CacheRead: 600, Output: 70}); r.Tokens != want || r.Model != "gemini-2.5-pro" || r.Title != "Clean up the build" {
		t.Errorf("tokens %+v model %q title %q", r.Tokens, r.Model, r.Title)
	}
}

// Indented JSON under a .jsonl name (jq's output saved as such) is read as
// the document it is, alone or several in a row, as under a .json name.
func TestPrettyJSONNamedJSONL(t *testing.T) {
	doc, err := os.ReadFile(logPath("session/v2-phases.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, data := range [][]byte{doc, append(append(slices.Clone(doc), '\n'), doc...)} {
		want, got := formattest.NewCollector(), formattest.NewCollector()
		if err := Read(bytes.NewReader(data), "x.json", Options{}, want); err != nil {
			t.Fatal(err)
		}
		if err := Read(bytes.NewReader(data), "x.jsonl", Options{}, got); err != nil {
			t.Fatalf("as .jsonl: %v", err)
		}
		if len(got.Runs) != len(want.Runs) || len(got.Runs) == 0 || !reflect.DeepEqual(got.Warnings, want.Warnings) {
			t.Errorf("as .jsonl: %d runs %v, as .json: %d runs %v", len(got.Runs), got.Warnings, len(want.Runs), want.Warnings)
		}
	}
}

// JSON in UTF-16 or UTF-32, with a byte-order mark or without (RFC 4627's
// detection by zero bytes), is read as if it were UTF-8, as a document and
// as JSON Lines; a file of zero bytes, or Latin-1, is still refused.
func TestUTF16And32(t *testing.T) {
	doc := `{"session_id": "s1", "task_title": "déjà vu 日本", "status": "success", "created_at": "2026-03-01T10:00:00Z", "tool_calls": []}`
	u16 := func(s string, order binary.AppendByteOrder, bom bool) []byte {
		var b []byte
		if bom {
			b = order.AppendUint16(b, 0xFEFF)
		}
		for _, u := range utf16.Encode([]rune(s)) {
			b = order.AppendUint16(b, u)
		}
		return b
	}
	u32 := func(s string, order binary.AppendByteOrder, bom bool) []byte {
		var b []byte
		if bom {
			b = order.AppendUint32(b, 0xFEFF)
		}
		for _, r := range s {
			b = order.AppendUint32(b, uint32(r))
		}
		return b
	}
	for name, data := range map[string][]byte{
		"le16-bom.json": u16(doc, binary.LittleEndian, true), "le16.json": u16("\n"+doc, binary.LittleEndian, false),
		"be16-bom.json": u16(doc, binary.BigEndian, true), "be16.json": u16(doc, binary.BigEndian, false),
		"le32-bom.json": u32(doc, binary.LittleEndian, true), "le32.json": u32(doc, binary.LittleEndian, false),
		"be32-bom.json": u32(doc, binary.BigEndian, true), "be32.json": u32(doc, binary.BigEndian, false),
		"le16.jsonl": u16(doc+"\n"+strings.Replace(doc, "s1", "s2", 1)+"\n", binary.LittleEndian, true),
	} {
		c := formattest.NewCollector()
		if err := Read(bytes.NewReader(data), name, Options{}, c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(c.Runs) == 0 || c.Runs[0].ID != "s1" || c.Runs[0].Title != "déjà vu 日本" || len(c.Warnings) != 0 {
			t.Errorf("%s: %d runs %+v, warnings %v", name, len(c.Runs), c.Runs, c.Warnings)
		}
		if strings.HasSuffix(name, ".jsonl") && len(c.Runs) != 2 {
			t.Errorf("%s: %d runs", name, len(c.Runs))
		}
	}
	for name, want := range map[string]string{"zeros.json": ReasonInvalidJSON, "latin1.json": ReasonNotUTF8} {
		data := map[string][]byte{"zeros.json": make([]byte, 64), "latin1.json": []byte("{\"session_id\": \"d\xe9j\xe0\", \"tool_calls\": []}")}[name]
		if err := Read(bytes.NewReader(data), name, Options{}, formattest.NewCollector()); reason(err) != want {
			t.Errorf("%s: %v, want %s", name, err, want)
		}
	}
}

// A Codex call's input is its command, from the arguments JSON in a string
// (a list of words or one string), or a custom tool's input alike.
func TestCodexCallInput(t *testing.T) {
	lines := `{"timestamp":"2026-03-06T09:00:00Z","type":"session_meta","payload":{"id":"cx","timestamp":"2026-03-06T09:00:00Z","cwd":"/r"}}
{"timestamp":"2026-03-06T09:00:01Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"go test ./...\"],\"workdir\":\"/r\"}","call_id":"c1"}}
{"timestamp":"2026-03-06T09:00:02Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"make lint\"}","call_id":"c2"}}
{"timestamp":"2026-03-06T09:00:03Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch","call_id":"c3"}}
{"timestamp":"2026-03-06T09:00:04Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":{"command":"not a string"},"call_id":"c4"}}
`
	c := formattest.NewCollector()
	if err := Read(strings.NewReader(lines), "rollout.jsonl", Options{Location: time.UTC}, c); err != nil {
		t.Fatal(err)
	}
	runs, _ := formattest.JoinAll(c.Frags, c)
	if len(runs) != 1 || len(runs[0].ToolCalls) != 4 {
		t.Fatalf("%d runs", len(runs))
	}
	var got []string
	for _, call := range runs[0].ToolCalls {
		got = append(got, call.Input)
	}
	if want := []string{"bash -lc go test ./...", "make lint", "", ""}; !slices.Equal(got, want) || len(c.Warnings) != 0 {
		t.Errorf("inputs %q, want %q; warnings %v", got, want, c.Warnings)
	}
}

// formatNamed is the registry's entry for the format called name.
func formatNamed(name string) *Format {
	for _, f := range registry {
		if f.Name == name {
			return f
		}
	}
	panic("no format " + name)
}

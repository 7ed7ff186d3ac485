package logsynth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// gen writes the files of one log; every value it draws comes from r, so a
// file is a function of the seed and its index.
type gen struct {
	r     *rand.Rand
	t     time.Time // the run's start
	index int
}

func newGen(seed uint64, index int) *gen {
	r := rand.New(rand.NewPCG(seed, uint64(index)))
	day := epoch.AddDate(0, 0, r.IntN(90))
	return &gen{r: r, index: index, t: day.Add(time.Duration(r.Int64N(int64(24 * time.Hour))))}
}

// epoch is the first day of generated logs.
var epoch = time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC)

// millis draws a duration in ms from a log-normal around median ms, as tool
// and run latencies are in practice: most quick, a long tail.
func (g *gen) millis(median float64) int64 {
	v := median * math.Exp(g.r.NormFloat64()*1.1)
	return max(1, int64(min(v, 3.6e6)))
}

// outcome draws a tool call's outcome: mostly fine, some errors, a few unknown.
func (g *gen) outcome() string {
	switch n := g.r.IntN(100); {
	case n < 91:
		return "success"
	case n < 98:
		return "failed"
	}
	return ""
}

func (g *gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g *gen) id(prefix string) string {
	return fmt.Sprintf("%s-%08x-%d", prefix, g.r.Uint32(), g.index)
}

func (g *gen) uuid() string {
	a, b := g.r.Uint64(), g.r.Uint64()
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", a>>32, a>>16&0xffff, a&0xfff, b>>52&0xfff, b&0xffffffffffff)
}

func iso(t time.Time) string      { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
func localISO(t time.Time) string { return t.Format("2006-01-02T15:04:05.000000") }

var (
	codingTools  = []string{"Bash", "Read", "Read", "Read", "Edit", "Edit", "Grep", "Glob", "Write", "WebFetch", "TodoWrite"}
	sessionTools = []string{"Bash", "Read", "Edit", "Grep", "Write", "WebSearch", "mcp__github__create_pr"}
	planTools    = []string{"browser", "search", "file_read", "python", "sql-query", "http"}
	agentNames   = []string{"BROWSER_AGENT", "REACT_AGENT", "CODE_AGENT", "SEARCH_AGENT"}
)

// session: STD-001 session files (v3 layout), the most common small file.
func (g *gen) session() O {
	t := g.t
	n := 3 + g.r.IntN(25)
	calls := make([]any, 0, n)
	for i := range n {
		d := g.millis(700)
		start := t.Add(time.Duration(g.r.IntN(3000)) * time.Millisecond)
		st := g.outcome()
		out := O{"status", st, "result", O{"display", text(g.r, 300+g.r.IntN(2500))}}
		if st == "failed" {
			out = append(out, "error", g.pick("permission denied", "exit status 1", "timeout after 120s", "文件不存在"))
		}
		calls = append(calls, O{
			"call_id", fmt.Sprintf("tool-%03d", i+1), "tool_name", g.pick(sessionTools...), "tool_category", g.pick("perception", "action", "reasoning"),
			"started_at", iso(start), "ended_at", iso(start.Add(time.Duration(d) * time.Millisecond)), "duration_ms", d,
			"input", O{"params", O{"command", text(g.r, 80+g.r.IntN(300))}, "description", short(g.r)},
			"output", out,
		})
		t = start.Add(time.Duration(d) * time.Millisecond)
	}
	status := g.pick("success", "success", "success", "success", "success", "success", "failed", "in_progress")
	doc := O{
		"session_id", g.id("sess"), "task_title", short(g.r), "user_prompt", text(g.r, 200),
		"created_at", iso(g.t), "status", status,
		"agent", O{"model_id", g.pick("claude-opus-4-5-20251101", "claude-sonnet-4-5", "gpt-5-codex")},
		"tool_calls", calls,
	}
	if status != "in_progress" {
		doc = append(doc, "completed_at", iso(t.Add(time.Second)))
	}
	return append(doc, "summary", O{"total_duration_ms", t.Sub(g.t).Milliseconds() + 1000, "tool_calls_count", n, "files_created", []any{}, "files_modified", []any{}})
}

// planexec: a plan execution record with agent executions and think/act steps.
func (g *gen) planexec() O {
	t := g.t
	agents := 2 + g.r.IntN(3)
	var steps, statuses, stepAgents []string
	execs := make([]any, 0, agents)
	completed := g.r.IntN(10) < 7
	for a := range agents {
		name := g.pick(agentNames...)
		req := short(g.r)
		steps, stepAgents = append(steps, "["+name+"] "+req), append(stepAgents, name)
		status := "COMPLETED"
		if !completed && a == agents-1 {
			status = g.pick("RUNNING", "FAILED")
		}
		statuses = append(statuses, map[string]string{"COMPLETED": "completed", "RUNNING": "in_progress", "FAILED": "blocked"}[status])
		start := t
		n := 2 + g.r.IntN(4)
		tas := make([]any, 0, n)
		for i := range n {
			think := time.Duration(g.millis(900)) * time.Millisecond
			act := time.Duration(g.millis(2500)) * time.Millisecond
			st := "completed"
			if g.r.IntN(12) == 0 {
				st = "failed"
			}
			tas = append(tas, O{
				"id", int64(g.t.UnixMilli()) + int64(a*100+i), "thinkStartTime", localISO(t), "thinkEndTime", localISO(t.Add(think)),
				"actStartTime", localISO(t.Add(think)), "actEndTime", localISO(t.Add(think + act)),
				"thinkInput", text(g.r, 400+g.r.IntN(1200)), "thinkOutput", text(g.r, 200+g.r.IntN(600)),
				"actionNeeded", true, "actionDescription", short(g.r), "actionResult", text(g.r, 300+g.r.IntN(1500)),
				"status", st, "toolName", g.pick(planTools...), "toolParameters", `{"query": "` + short(g.r) + `"}`,
			})
			t = t.Add(think + act)
		}
		execs = append(execs, O{
			"id", g.t.UnixMilli() + int64(a), "agentName", name, "agentDescription", short(g.r),
			"startTime", localISO(start), "endTime", localISO(t), "maxSteps", n + 2, "currentStep", n,
			"status", status, "isCompleted", status == "COMPLETED", "isStuck", false, "agentRequest", req,
			"result", text(g.r, 200), "thinkActSteps", tas,
		})
	}
	return O{
		"id", g.t.UnixMilli(), "planId", g.id("plan"), "title", "Plan for: " + short(g.r), "userRequest", text(g.r, 150),
		"startTime", localISO(g.t), "endTime", localISO(t), "completed", completed, "summary", text(g.r, 200),
		"steps", steps, "stepStatuses", statuses, "stepAgents", stepAgents, "agentExecutionSequence", execs,
	}
}

// bundleState is a debug bundle's state object, without its events.
func (g *gen) bundleState(end time.Time, toolCalls, errs int, steps []any) O {
	return O{
		"id", g.id("run"),
		"conversation", O{"messages", []any{O{"role", "user", "content", text(g.r, 300), "timestamp", g.t.UnixMilli()}}, "toolResultsSummary", []any{}},
		"task", O{"goal", short(g.r), "plan", text(g.r, 300), "steps", steps, "currentNode", "tool-runner", "progress", 100},
		"telemetry", O{"totalDuration", end.Sub(g.t).Milliseconds(), "tokenCount", 500 + g.r.IntN(20000), "toolCallCount", toolCalls, "errorCount", errs, "retryCount", g.r.IntN(3)},
		"policy", O{"maxToolCalls", toolCalls + g.r.IntN(40), "maxDuration", 600000, "maxRetries", 3},
		"createdAt", g.t.UnixMilli(), "updatedAt", end.UnixMilli(),
	}
}

// bundlePair returns the i-th tool call and result events, from t on.
func (g *gen) bundlePair(i int, t time.Time, payload int) (call, result O, next time.Time, failed bool) {
	tool := g.pick(planTools...)
	call = O{"id", fmt.Sprintf("evt-%d-a", i), "timestamp", t.UnixMilli(), "type", "tool_call", "nodeId", "tool-runner", "status", "info",
		"summary", "tool_call " + tool, "metadata", O{"toolName", tool, "input", O{"query", text(g.r, payload)}}}
	t = t.Add(time.Duration(g.millis(600)) * time.Millisecond)
	st := "success"
	if g.r.IntN(15) == 0 {
		st, failed = "failure", true
	}
	result = O{"id", fmt.Sprintf("evt-%d-b", i), "timestamp", t.UnixMilli(), "type", "tool_result", "nodeId", "tool-runner", "status", st,
		"summary", "tool_result " + tool, "metadata", O{"toolName", tool, "output", text(g.r, payload)}}
	return call, result, t, failed
}

func (g *gen) bundleSteps() []any {
	n := 2 + g.r.IntN(5)
	steps := make([]any, 0, n)
	for i := range n {
		steps = append(steps, O{"id", fmt.Sprintf("step-%d", i+1), "description", short(g.r), "status", g.pick("completed", "completed", "completed", "failed", "skipped")})
	}
	return steps
}

// bundle: a small debug bundle (state plus events).
func (g *gen) bundle() O {
	n, payload := 5+g.r.IntN(25), 200+g.r.IntN(800)
	var events []any
	t, errs := g.t, 0
	for i := range n {
		call, result, next, failed := g.bundlePair(i, t, payload)
		events, t = append(events, call, result), next
		if failed {
			errs++
		}
	}
	return O{"version", "0.1.0", "timestamp", t.UnixMilli(), "state", g.bundleState(t, n, errs, g.bundleSteps()), "events", O{"events", events}}
}

// claudeLines appends the lines of one Claude Code session to emit: a user
// prompt, then assistant turns with tool uses and their results.
func (g *gen) claudeLines(session string, turns int, payload int, emit func(O) error) error {
	t := g.t
	base := func(typ string) O {
		return O{"parentUuid", nil, "isSidechain", false, "userType", "external", "cwd", "/home/dev/app", "sessionId", session,
			"version", "2.1.39", "gitBranch", "main", "type", typ, "uuid", g.uuid(), "timestamp", iso(t)}
	}
	if err := emit(append(base("user"), "message", O{"role", "user", "content", text(g.r, 200)})); err != nil {
		return err
	}
	model := g.pick("claude-sonnet-4-5-20250929", "claude-opus-4-5-20251101", "claude-haiku-4-5-20251001")
	for i := range turns {
		t = t.Add(time.Duration(g.millis(3000)) * time.Millisecond)
		useID := fmt.Sprintf("toolu_%d_%08x", i, g.r.Uint32())
		name := g.pick(codingTools...)
		usage := O{"input_tokens", 2 + g.r.IntN(50), "cache_creation_input_tokens", g.r.IntN(4000), "cache_read_input_tokens", 10000 + g.r.IntN(90000), "output_tokens", 20 + g.r.IntN(900)}
		msg := O{"id", fmt.Sprintf("msg_%08x%d", g.r.Uint32(), i), "model", model, "role", "assistant", "type", "message",
			"content", []any{O{"type", "text", "text", text(g.r, 100+g.r.IntN(400))}, O{"type", "tool_use", "id", useID, "name", name, "input", O{"command", text(g.r, 100)}}},
			"usage", usage}
		if err := emit(append(base("assistant"), "requestId", fmt.Sprintf("req_%08x%d", g.r.Uint32(), i), "message", msg)); err != nil {
			return err
		}
		d := g.millis(900)
		t = t.Add(time.Duration(d) * time.Millisecond)
		isErr := g.outcome() == "failed"
		res := O{"type", "tool_result", "tool_use_id", useID, "is_error", isErr, "content", text(g.r, payload)}
		if err := emit(append(base("user"), "message", O{"role", "user", "content", []any{res}}, "toolUseResult", O{"durationMs", d, "stdout", text(g.r, 100), "interrupted", false})); err != nil {
			return err
		}
	}
	return nil
}

// codexLines: one Codex CLI rollout.
func (g *gen) codexLines(turns int, emit func(O) error) error {
	t := g.t
	line := func(typ string, payload O) error {
		return emit(O{"timestamp", iso(t), "type", typ, "payload", payload})
	}
	if err := line("session_meta", O{"id", g.uuid(), "timestamp", iso(t), "cwd", "/repo", "cli_version", "0.104.0", "instructions", text(g.r, 1500)}); err != nil {
		return err
	}
	if err := line("turn_context", O{"model", g.pick("gpt-5-codex", "gpt-5.1-codex"), "cwd", "/repo"}); err != nil {
		return err
	}
	if err := line("event_msg", O{"type", "user_message", "message", text(g.r, 200)}); err != nil {
		return err
	}
	var in, cached, out int
	for i := range turns {
		t = t.Add(time.Duration(g.millis(2000)) * time.Millisecond)
		id := fmt.Sprintf("call_%d_%06x", i, g.r.Uint32()&0xffffff)
		if err := line("response_item", O{"type", "function_call", "name", "shell", "call_id", id, "arguments", `{"command":["bash","-lc","go test ./..."]}`}); err != nil {
			return err
		}
		d := float64(g.millis(800)) / 1000
		t = t.Add(time.Duration(d * float64(time.Second)))
		code := 0
		if g.outcome() == "failed" {
			code = 1
		}
		outJSON := string(appendJSON(nil, O{"output", text(g.r, 300+g.r.IntN(2000)), "metadata", O{"exit_code", code, "duration_seconds", d}}))
		if err := line("response_item", O{"type", "function_call_output", "call_id", id, "output", outJSON}); err != nil {
			return err
		}
		in, cached, out = in+3000+g.r.IntN(5000), cached+2000+g.r.IntN(3000), out+50+g.r.IntN(500)
		usage := O{"input_tokens", in + cached, "cached_input_tokens", cached, "output_tokens", out, "reasoning_output_tokens", out / 3, "total_tokens", in + cached + out}
		if err := line("event_msg", O{"type", "token_count", "info", O{"total_token_usage", usage, "last_token_usage", O{}}}); err != nil {
			return err
		}
	}
	return nil
}

// gemini: a Gemini CLI session document.
func (g *gen) gemini() O {
	t := g.t
	msgs := []any{O{"id", "m0", "timestamp", iso(t), "type", "user", "content", []any{O{"text", text(g.r, 200)}}}}
	for i := range 5 + g.r.IntN(30) {
		t = t.Add(time.Duration(g.millis(4000)) * time.Millisecond)
		in, cached, outT := 2000+g.r.IntN(20000), g.r.IntN(2000), 20+g.r.IntN(800)
		calls := []any{}
		for j := range g.r.IntN(3) {
			st := map[string]string{"success": "success", "failed": "error", "": "cancelled"}[g.outcome()]
			calls = append(calls, O{"id", fmt.Sprintf("c%d-%d", i, j), "name", g.pick("run_shell_command", "read_file", "write_file", "glob", "search_file_content"),
				"args", O{"command", text(g.r, 120)}, "result", []any{O{"functionResponse", O{"response", O{"output", text(g.r, 800)}}}}, "status", st})
		}
		msgs = append(msgs, O{"id", fmt.Sprintf("m%d", i+1), "timestamp", iso(t), "type", "gemini", "model", "gemini-2.5-pro", "content", text(g.r, 300),
			"thoughts", []any{O{"subject", short(g.r), "description", text(g.r, 400)}},
			"tokens", O{"input", in, "output", outT, "cached", cached, "thoughts", outT / 4, "tool", 0, "total", in + outT + outT/4}, "toolCalls", calls})
	}
	return O{"sessionId", g.uuid(), "projectHash", fmt.Sprintf("%016x", g.r.Uint64()), "startTime", iso(g.t), "lastUpdated", iso(t), "messages", msgs}
}

// otelTrace: one OTLP/JSON export line holding one agent invocation.
func (g *gen) otelTrace() O {
	ns := func(t time.Time) string { return fmt.Sprint(t.UnixNano()) }
	attr := func(k string, v any) O {
		if s, ok := v.(string); ok {
			return O{"key", k, "value", O{"stringValue", s}}
		}
		return O{"key", k, "value", O{"intValue", fmt.Sprint(v)}}
	}
	trace := fmt.Sprintf("%016x%016x", g.r.Uint64(), g.r.Uint64())
	t := g.t
	var spans []any
	root := fmt.Sprintf("%016x", g.r.Uint64())
	in, out := 0, 0
	for i := range 2 + g.r.IntN(10) {
		d := time.Duration(g.millis(1500)) * time.Millisecond
		id := fmt.Sprintf("%016x", g.r.Uint64())
		if i%2 == 0 {
			pi, po := 500+g.r.IntN(5000), 20+g.r.IntN(400)
			in, out = in+pi, out+po
			spans = append(spans, O{"traceId", trace, "spanId", id, "parentSpanId", root, "name", "chat gpt-4o", "kind", 3, "startTimeUnixNano", ns(t), "endTimeUnixNano", ns(t.Add(d)),
				"attributes", []any{attr("gen_ai.operation.name", "chat"), attr("gen_ai.request.model", "gpt-4o"), attr("gen_ai.usage.input_tokens", pi), attr("gen_ai.usage.output_tokens", po), attr("gen_ai.prompt", text(g.r, 1000))}})
		} else {
			status := O{}
			if g.outcome() == "failed" {
				status = O{"code", 2, "message", "tool failed"}
			}
			spans = append(spans, O{"traceId", trace, "spanId", id, "parentSpanId", root, "name", "execute_tool", "kind", 1, "startTimeUnixNano", ns(t), "endTimeUnixNano", ns(t.Add(d)),
				"attributes", []any{attr("gen_ai.operation.name", "execute_tool"), attr("gen_ai.tool.name", g.pick("search", "fetch", "calculator", "db_query"))}, "status", status})
		}
		t = t.Add(d)
	}
	agent := O{"traceId", trace, "spanId", root, "parentSpanId", "", "name", "invoke_agent support", "kind", 1, "startTimeUnixNano", ns(g.t), "endTimeUnixNano", ns(t),
		"attributes", []any{attr("gen_ai.operation.name", "invoke_agent"), attr("gen_ai.agent.name", "support"), attr("gen_ai.usage.input_tokens", in), attr("gen_ai.usage.output_tokens", out)}}
	spans = append([]any{agent}, spans...)
	return O{"resourceSpans", []any{O{"resource", O{"attributes", []any{attr("service.name", "support-bot")}}, "scopeSpans", []any{O{"scope", O{"name", "synth"}, "spans", spans}}}}}
}

// planagent: a plan, one BatchResult per executed batch, and a PlanProgress.
func (g *gen) planagent() (plan O, batches map[string]O, progress O) {
	id := g.id("plan")
	nb := 2 + g.r.IntN(3)
	batches = map[string]O{}
	var planned []any
	t := g.t
	done := 0
	for b := range nb {
		bid := fmt.Sprintf("%s-batch-%d", id, b+1)
		var tasks, executed []any
		var total int64
		for k := range 1 + g.r.IntN(4) {
			tid, tool := fmt.Sprintf("%s-t%d", bid, k), g.pick("GET /users", "POST /orders", "GET /health", "DELETE /cache")
			tasks = append(tasks, O{"taskId", tid, "toolName", tool, "parameters", O{"body", text(g.r, 300)}})
			d := g.millis(1200)
			total += d
			st := map[string]string{"success": "success", "failed": "failed", "": "skipped"}[g.outcome()]
			executed = append(executed, O{"taskId", tid, "toolName", tool, "status", st, "executionTime", d, "output", text(g.r, 600)})
		}
		status := "assigned"
		if b < nb-1 || g.r.IntN(3) > 0 {
			status, done = "completed", done+1
			batches[bid] = O{"batchId", bid, "status", "completed", "executionTime", total, "executedTasks", executed, "metrics", O{"successCount", len(executed)}}
		}
		planned = append(planned, O{"batchId", bid, "planId", id, "priority", b + 1, "estimatedDuration", 60000, "status", status, "tasks", tasks})
		t = t.Add(time.Duration(total) * time.Millisecond)
	}
	status := "executing"
	if done == nb {
		status = "completed"
	}
	plan = O{"planId", id, "sessionId", g.id("sess"), "status", status, "createdAt", iso(g.t), "updatedAt", iso(t), "plannedBatches", planned}
	progress = O{"planId", id, "totalBatches", nb, "completedBatches", done, "failedBatches", 0, "overallSuccessRate", "90.00", "lastUpdated", iso(t)}
	return plan, batches, progress
}

// structmsg: a request-phase-task message with rounds, executions and judges.
func (g *gen) structmsg() O {
	var phases []any
	for p := range 1 + g.r.IntN(3) {
		var rounds []any
		for rd := range 1 + g.r.IntN(3) {
			var tasks, execs, evals []any
			for k := range 2 + g.r.IntN(4) {
				tool := g.pick("file_operations", "web_search", "code_exec")
				tasks = append(tasks, O{"id", k + 1, "title", short(g.r), "description", text(g.r, 200), "tool", tool, "arguments", O{}, "priority", 10 - k, "dependencies", []any{}})
				ok := g.outcome() != "failed"
				execs = append(execs, O{"task_id", k + 1, "tool", tool, "arguments", O{"path", "main.py"}, "result", O{"success", ok, "content", text(g.r, 800)}, "timestamp", g.t.Unix()})
				evals = append(evals, O{"task_id", k + 1, "status", g.pick("done", "done", "done", "failed"), "quality_score", float64(50+g.r.IntN(51)) / 10, "output_valid", ok, "notes", short(g.r)})
			}
			rounds = append(rounds, O{"round_id", rd + 1, "plan", O{"tasks", tasks, "reasoning", text(g.r, 300)}, "executions", execs,
				"judge", O{"phase_completed", true, "task_evaluation", evals, "decision", O{"action", "continue", "reason", short(g.r)}, "summary", text(g.r, 200)}})
		}
		phases = append(phases, O{"id", p + 1, "name", short(g.r), "goal", short(g.r), "rounds", rounds, "status", g.pick("done", "done", "failed"), "summary", text(g.r, 200)})
	}
	return O{"id", g.id("msg"), "timestamp", g.t.Unix(), "architecture", "request-phase-task",
		"request", O{"original_input", text(g.r, 300), "core_goal", short(g.r), "requirements", []string{short(g.r), short(g.r)}, "constraints", []string{short(g.r)}},
		"phases", phases, "summary", text(g.r, 300)}
}

// Package otel reads OpenTelemetry trace exports in OTLP/JSON (one request
// per line, or one document) through the GenAI semantic conventions, and
// Claude Code's own claude_code.* spans. Spans are joined by trace id across
// the tree: every invoke_agent span is a run, else every trace is one.
package otel

import (
	"cmp"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/join"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/agentstat/agentstat/model"
)

// Format is otel's entry in the registry.
var Format = reader.Format[Doc]{
	Name:      "otel",
	Title:     "OpenTelemetry GenAI spans, OTLP/JSON traces (also Claude Code's claude_code.* spans)",
	Signature: "an object with resourceSpans",
	Match:     func(d Doc) bool { return d.ResourceSpans != nil },
	Read:      read,
}

// Doc is what otel reads of a document.
type Doc struct {
	*reader.Shared
	*Fields
}

// Fields are the members only an OTLP/JSON trace export has.
type Fields struct {
	ResourceSpans []otlpResourceSpans `json:"resourceSpans"`
}

type otlpResourceSpans struct {
	Resource   *otlpResource    `json:"resource"`
	ScopeSpans []otlpScopeSpans `json:"scopeSpans"`
}

type otlpResource struct {
	Attributes []otlpAttr `json:"attributes"`
}

type otlpScopeSpans struct {
	Spans []otlpSpan `json:"spans"`
}

type otlpSpan struct {
	TraceID      jsonscan.Str `json:"traceId"`
	SpanID       jsonscan.Str `json:"spanId"`
	ParentSpanID jsonscan.Str `json:"parentSpanId"`
	Name         jsonscan.Str `json:"name"`
	Start        jsonscan.Str `json:"startTimeUnixNano"`
	End          jsonscan.Str `json:"endTimeUnixNano"`
	Attributes   []otlpAttr   `json:"attributes"`
	Status       *otlpStatus  `json:"status"`
}

type otlpStatus struct {
	Code    jsonscan.Str `json:"code"`
	Message jsonscan.Str `json:"message"`
}

type otlpAttr struct {
	Key   jsonscan.Str `json:"key"`
	Value otlpValue    `json:"value"`
}

// otlpValue is an AnyValue; only scalars matter here.
type otlpValue struct {
	Text string
	Set  bool
}

// otlpAnyValue is an AnyValue as it is written.
type otlpAnyValue struct {
	String jsonscan.Str `json:"stringValue"`
	Int    jsonscan.Str `json:"intValue"`
	Double jsonscan.Str `json:"doubleValue"`
	Bool   jsonscan.Str `json:"boolValue"`
}

var anyValuePlan = jsonscan.PlanOf(reflect.TypeFor[otlpAnyValue]())

func (v *otlpValue) set(o *otlpAnyValue) {
	for _, s := range []jsonscan.Str{o.String, o.Int, o.Double, o.Bool} {
		if s.Set {
			v.Text, v.Set = s.V, true
			break
		}
	}
}

func (v *otlpValue) DecodeFlex(dec *jsontext.Decoder, w jsonscan.Warner, opts json.Options) error {
	if dec.PeekKind() != '{' {
		return dec.SkipValue()
	}
	var o otlpAnyValue
	if err := json.UnmarshalDecode(dec, &o, opts); err != nil {
		return err
	}
	v.set(&o)
	return nil
}

// ScanFlex reads an AnyValue as DecodeFlex does.
func (v *otlpValue) ScanFlex(s *jsonscan.Scanner, w *jsonscan.WarnList) bool {
	if s.Peek() != '{' {
		return s.Skip()
	}
	var o otlpAnyValue
	ok := anyValuePlan.Read(s, unsafe.Pointer(&o), w)
	v.set(&o)
	return ok
}

// spanLog is a file's spans of one trace.
type spanLog = join.EntryLog[Span]

// newFileLogs starts the logs of the file being read, by trace.
func newFileLogs() *map[string]*spanLog { return new(map[string]*spanLog) }

// Span is one span, kept compact.
type Span struct {
	trace, id, parent string
	name, op          string
	agent, toolName   string
	model             string
	start, end        time.Time
	failed, ok        bool
	errText           string
	tokens            model.Tokens
	service           string
	project           string // the resource's process.cwd, else its service.name
	input             string // a tool span's key argument, from gen_ai.tool.call.arguments
}

func attrs(list []otlpAttr) map[string]string {
	m := make(map[string]string, len(list))
	for _, a := range list {
		if a.Value.Set {
			m[a.Key.V] = a.Value.Text
		}
	}
	return m
}

func nanoTime(s jsonscan.Str) time.Time {
	n, err := strconv.ParseInt(strings.TrimSpace(s.V), 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

func atoi(s string) int64 {
	n, _ := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return n
}

// firstAttr returns the value of the first of keys present (current names before deprecated ones).
func firstAttr(m map[string]string, keys ...string) string {
	for _, k := range keys {
		if v, ok := m[k]; ok && v != "" {
			return v
		}
	}
	return ""
}

func read(d Doc, c *reader.Ctx) {
	for _, rs := range d.ResourceSpans {
		service, project := "", ""
		if rs.Resource != nil {
			res := attrs(rs.Resource.Attributes)
			service = res["service.name"]
			project = cmp.Or(res["process.cwd"], service)
		}
		for _, ss := range rs.ScopeSpans {
			for i := range ss.Spans {
				sp := &ss.Spans[i]
				a := attrs(sp.Attributes)
				s := Span{trace: sp.TraceID.V, id: sp.SpanID.V, parent: sp.ParentSpanID.V, name: sp.Name.V,
					start: nanoTime(sp.Start), end: nanoTime(sp.End), service: service, project: project,
					op:    firstAttr(a, "gen_ai.operation.name"),
					agent: firstAttr(a, "gen_ai.agent.name"), toolName: firstAttr(a, "gen_ai.tool.name", "tool_name", "tool.name"),
					model: firstAttr(a, "gen_ai.response.model", "gen_ai.request.model", "model"), input: reader.ArgsInput(a["gen_ai.tool.call.arguments"])}
				switch {
				case s.op == "" && strings.HasPrefix(s.name, "claude_code.llm_request"):
					s.op = "chat"
				case s.op == "" && s.name == "claude_code.tool":
					s.op = "execute_tool"
				case s.op == "" && strings.HasPrefix(s.name, "execute_tool"):
					s.op = "execute_tool"
				case s.op == "" && strings.HasPrefix(s.name, "invoke_agent"):
					s.op = "invoke_agent"
				}
				code := ""
				if sp.Status != nil {
					code = strings.ToUpper(sp.Status.Code.V)
					s.errText = sp.Status.Message.V
				}
				errType := firstAttr(a, "error.type")
				s.failed = code == "2" || code == "STATUS_CODE_ERROR" || errType != "" || firstAttr(a, "gen_ai.tool.status") == "error"
				s.ok = !s.failed && (code == "1" || code == "STATUS_CODE_OK" || firstAttr(a, "gen_ai.tool.status") == "success")
				if s.errText == "" {
					s.errText = errType
				}
				if strings.HasPrefix(s.name, "claude_code.") {
					// Claude Code's own spans count input without the cache, as Anthropic does.
					s.tokens = model.Tokens{Input: atoi(a["input_tokens"]), Output: atoi(a["output_tokens"]),
						CacheRead: atoi(a["cache_read_tokens"]), CacheCreation: atoi(a["cache_creation_tokens"])}
				} else {
					cacheRead := atoi(firstAttr(a, "gen_ai.usage.cache_read_input_tokens", "gen_ai.usage.cache_read.input_tokens"))
					cacheWrite := atoi(firstAttr(a, "gen_ai.usage.cache_creation_input_tokens", "gen_ai.usage.cache_creation.input_tokens", "gen_ai.usage.cache_write_input_tokens"))
					input := atoi(firstAttr(a, "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"))
					// GenAI input tokens include the cached ones: take them out so kinds never overlap.
					s.tokens = model.Tokens{Input: max(0, input-cacheRead-cacheWrite), Output: atoi(firstAttr(a, "gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens")),
						CacheRead: cacheRead, CacheCreation: cacheWrite}
				}
				key := s.trace
				if key == "" {
					key = c.FallbackID()
				}
				reader.LogFor(c, reader.FileState(c, newFileLogs), key, codec, func(l *spanLog) *join.Fragment {
					return &join.Fragment{Kind: join.FragmentOtel, Key: key, Records: l}
				}).Push(c.Spill, s)
			}
		}
	}
}

// isModelCall reports a span that is one model call: the only spans whose
// usage is counted (agent spans repeat their children's totals).
func (s *Span) isModelCall() bool {
	switch s.op {
	case "chat", "text_completion", "generate_content", "completion", "embeddings":
		return true
	}
	return false
}

// joinTraces makes the runs of every trace: its invoke_agent spans, or the
// trace itself when it has none. A span belongs to its nearest invoke_agent ancestor.
// A fragment holds a file's spans of one trace, which may feed several runs.
func joinTraces(frags []*join.Fragment, w jsonscan.Warner, emit func(*model.Run, []*join.Fragment)) {
	for fs, held := range join.Loaded[Span](frags) {
		trace := fs[0].Key
		var runs []*model.Run
		spans := map[string]*Span{}
		for i := range fs {
			for k := range held[i] {
				s := &held[i][k]
				if s.id != "" {
					if _, dup := spans[s.id]; dup {
						continue // the same span exported twice
					}
					spans[s.id] = s
				}
			}
		}
		runOf := map[*Span]*model.Run{}
		var traceRun *model.Run
		newRun := func(id string, s *Span) *model.Run {
			r := &model.Run{ID: id, Format: "otel", Source: fs[0].Source, Status: model.StatusUnknown}
			if s != nil {
				r.Agent, r.Title = cmp.Or(s.agent, s.service), cmp.Or(s.agent, s.name)
				r.Project = s.project
				r.Span = reader.SpanOf(s.start, s.end, w)
				switch {
				case s.failed:
					r.Status = model.StatusFailed
				case s.ok:
					r.Status = model.StatusSuccess
				}
			}
			runs = append(runs, r)
			return r
		}
		ids := make([]string, 0, len(spans))
		for id := range spans {
			ids = append(ids, id)
		}
		slices.SortFunc(ids, func(a, b string) int {
			return cmpOrInt(spans[a].start.Compare(spans[b].start), strings.Compare(a, b))
		})
		for _, id := range ids {
			if s := spans[id]; s.op == "invoke_agent" {
				runOf[s] = newRun(trace+"/"+id, s)
			}
		}
		find := func(s *Span) *model.Run {
			for p, hops := s, 0; p != nil && hops < 1000; hops++ {
				if r := runOf[p]; r != nil {
					return r
				}
				p = spans[p.parent]
			}
			if traceRun == nil {
				traceRun = newRun(trace, nil)
			}
			return traceRun
		}
		perModel := map[*model.Run]map[string]int64{}
		for _, id := range ids {
			s := spans[id]
			if s.op == "invoke_agent" {
				continue
			}
			r := find(s)
			switch {
			case s.op == "execute_tool":
				call := model.ToolCall{Name: cmp.Or(s.toolName, strings.TrimSpace(strings.TrimPrefix(s.name, "execute_tool"))), Agent: r.Agent, Span: reader.SpanOf(s.start, s.end, w), Input: s.input}
				// A tool span left UNSET succeeded: instrumentation sets ERROR on failure
				// and leaves OK for an explicit verdict (a run's status needs one).
				call.Outcome = model.OutcomeOK
				if s.failed {
					call.Outcome, call.Error = model.OutcomeError, s.errText
				}
				r.ToolCalls = append(r.ToolCalls, call)
			case s.isModelCall():
				r.AddRequest(model.Request{Model: s.model, At: s.start, Tokens: s.tokens})
				if perModel[r] == nil {
					perModel[r] = map[string]int64{}
				}
				perModel[r][s.model] += s.tokens.Total()
			}
		}
		if traceRun != nil { // a trace without agent spans spans all of its spans
			for _, id := range ids {
				s := spans[id]
				if runOf[s] == nil && find(s) == traceRun {
					if traceRun.Started.IsZero() || s.start.Before(traceRun.Started) {
						traceRun.Started = s.start
					}
					if s.end.After(traceRun.Ended) {
						traceRun.Ended = s.end
					}
				}
			}
			traceRun.Span = reader.SpanOf(traceRun.Started, traceRun.Ended, w)
			traceRun.Title = trace
		}
		for r, m := range perModel {
			r.Model = reader.TopModel(m)
		}
		from := map[*model.Run][]*join.Fragment{} // the files that fed each run, each once
		for i, f := range fs {
			for k := range held[i] {
				r := find(&held[i][k])
				if got := from[r]; len(got) == 0 || got[len(got)-1] != f {
					from[r] = append(got, f)
				}
			}
		}
		for _, r := range runs {
			emit(r, from[r])
		}
	}
}

func cmpOrInt(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

func init() { join.RegisterEntries(join.FragmentOtel, codec, joinTraces) }

var codec = &join.EntryCodec[Span]{
	Encode: func(b []byte, s *Span, loc *time.Location) []byte {
		for _, v := range []string{s.trace, s.id, s.parent, s.name, s.op, s.agent, s.toolName, s.model, s.errText, s.service, s.project, s.input} {
			b = recordspill.AppendText(b, v)
		}
		b = recordspill.AppendTime(b, s.start, loc)
		b = recordspill.AppendTime(b, s.end, loc)
		b = recordspill.AppendBool(b, s.failed)
		b = recordspill.AppendBool(b, s.ok)
		return recordspill.AppendTokens(b, &s.tokens)
	},
	Decode: func(r *recordspill.Reader, loc *time.Location) (s Span) {
		for _, p := range []*string{&s.trace, &s.id, &s.parent, &s.name, &s.op, &s.agent, &s.toolName, &s.model, &s.errText, &s.service, &s.project, &s.input} {
			*p = r.Text()
		}
		s.start, s.end = r.Time(loc), r.Time(loc)
		s.failed, s.ok = r.Bool(), r.Bool()
		s.tokens = r.Tokens()
		return s
	},
	Withhold: func(s *Span) { join.WithholdText(&s.errText, &s.input) },
}

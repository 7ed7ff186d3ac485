package jsonscan

import (
	"reflect"
	"slices"
	"testing"
	"unsafe"

	"github.com/go-json-experiment/json"
)

// line is a log line of many members, some nested, for the scanner's tests.
type line struct {
	Type          Str            `json:"type"`
	UUID          Str            `json:"uuid"`
	ParentUUID    Str            `json:"parentUuid"`
	SessionID     Str            `json:"sessionId"`
	Cwd           Str            `json:"cwd"`
	Version       Str            `json:"version"`
	GitBranch     Str            `json:"gitBranch"`
	UserType      Str            `json:"userType"`
	Title         Str            `json:"title"`
	Summary       Str            `json:"summary"`
	Status        Str            `json:"status"`
	Model         Str            `json:"model"`
	Error         Str            `json:"error"`
	Project       Str            `json:"project"`
	Branch        Str            `json:"branch"`
	Repository    Str            `json:"repository"`
	Source        Str            `json:"source"`
	Agent         Str            `json:"agent"`
	Tool          Str            `json:"tool"`
	Command       Str            `json:"command"`
	Timestamp     Time           `json:"timestamp"`
	Started       Time           `json:"started_at"`
	Ended         Time           `json:"ended_at"`
	IsSidechain   bool           `json:"isSidechain"`
	IsMeta        bool           `json:"isMeta"`
	Input         Num            `json:"input_tokens"`
	Output        Num            `json:"output_tokens"`
	CacheRead     Num            `json:"cache_read_input_tokens"`
	CacheCreation Num            `json:"cache_creation_input_tokens"`
	Cost          Num            `json:"cost_usd"`
	Duration      Num            `json:"duration_ms"`
	Steps         Num            `json:"steps"`
	Retries       Num            `json:"retries"`
	Attempt       Num            `json:"attempt"`
	Score         Num            `json:"score"`
	Usage         map[string]Num `json:"usage"`
	Message       *struct {
		ID           Str `json:"id"`
		Role         Str `json:"role"`
		StopReason   Str `json:"stop_reason"`
		StopSequence Str `json:"stop_sequence"`
		Content      []struct {
			Kind      Str   `json:"type"`
			ID        Str   `json:"id"`
			Name      Str   `json:"name"`
			Text      Str   `json:"text"`
			ToolUseID Str   `json:"tool_use_id"`
			Thinking  Str   `json:"thinking"`
			Signature Str   `json:"signature"`
			IsError   *bool `json:"is_error"`
		} `json:"content"`
	} `json:"message"`
	Payload *struct {
		Arguments      Str `json:"arguments"`
		CallID         Str `json:"call_id"`
		Effort         Str `json:"effort"`
		ApprovalPolicy Str `json:"approval_policy"`
	} `json:"payload"`
	Events []struct {
		Kind     Str `json:"kind"`
		ParentID Str `json:"parent_id"`
		TraceID  Str `json:"trace_id"`
		SpanID   Str `json:"span_id"`
		Name     Str `json:"name"`
	} `json:"events"`
}

// linePlan is made before the index, as a package variable.
var linePlan = PlanOf(reflect.TypeFor[line]())

func init() { Index() }

// The reflective decoder reads neither of two fields one member name
// belongs to at one depth, and only the shallower of two at different
// depths: a plan refuses both, so that a format's Fields cannot take a
// member another format's reader reads.
func TestRawPlanRefusesAMemberNamedTwice(t *testing.T) {
	type own struct {
		ID Str `json:"id"`
	}
	type union struct {
		ID Str `json:"id"`
		own
	}
	defer func() {
		if recover() == nil {
			t.Error("a plan took two fields named id")
		}
	}()
	new(Plan).addFields(reflect.TypeFor[union](), 0)
}

// A struct field tagged embed is read as the document's own members by the
// plan and by the reflective decoder alike (as a Go-embedded one is); a
// field with no JSON name, which the reflective decoder would read under
// its Go name, is refused.
func TestRawPlanEmbedsTaggedStructs(t *testing.T) {
	type own struct {
		A Str `json:"a"`
	}
	type union struct {
		B   Str `json:"b"`
		Own own `json:",embed"`
	}
	p := new(Plan)
	p.addFields(reflect.TypeFor[union](), 0)
	var names []string
	for _, f := range p.fields {
		names = append(names, f.name)
	}
	if !slices.Equal(names, []string{"b", "a"}) {
		t.Errorf("plan fields %q, want b, a", names)
	}
	var u union
	if err := json.Unmarshal([]byte(`{"a":"x","b":"y"}`), &u, DecodeOptions(&WarnList{})); err != nil || u.Own.A.V != "x" || u.B.V != "y" {
		t.Errorf("reflective decoder: %+v, %v", u, err)
	}
	type unnamed struct {
		Own own `json:",omitempty"`
	}
	defer func() {
		if recover() == nil {
			t.Error("a plan took a field with no JSON name")
		}
	}()
	new(Plan).addFields(reflect.TypeFor[unnamed](), 0)
}

// The scanner reads a line by its plan as the reflective decoder reads it,
// warnings included, or gives up where it is unsure (the reflective
// decoder then reads the line).
func TestScanSameAsReflective(t *testing.T) {
	for _, tc := range []struct {
		line  string
		scans bool
	}{
		{`{"type":"assistant","uuid":"u1","timestamp":"2026-03-05T10:00:00Z","isMeta":false,"message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash"}],"stop_reason":null},"usage":{"input_tokens":10,"output_tokens":5}}`, true},
		{`{"type":1,"status":true,"started_at":1702886400000,"ended_at":"2025-03-28T14:14"}`, true},
		{`{"events":[{"kind":"span","trace_id":"a"}],"x":{"deep":[1,2,{"y":null}]}}`, true},
		{`{"model":{"name":"x"},"timestamp":"yesterday","payload":{"call_id":7,"arguments":"{\"a\":1}"}}`, true}, // two warnings
		{`{"duration_ms":"12.5"}`, false},         // a quoted number
		{`{"steps":[1]}`, false},                  // a value of an unexpected kind
		{`{"message":{"content":"text"}}`, false}, // the same, in a nested struct
		{`{"message":{"content":[null]}}`, false}, // a struct's null in a slice
		{`{"usage":{"a":"5"}}`, false},            // a quoted number in a map
		{`{"uuid":"a","uuid":"b"}`, false},        // a name written twice
		{`{"type":"a"} x`, false},                 // more after the object
	} {
		var want line
		var ww WarnList
		err := json.Unmarshal([]byte(tc.line), &want, DecodeOptions(&ww))
		var got line
		var gw WarnList
		s := Scanner{B: []byte(tc.line)}
		if scanned := s.Whole(linePlan, unsafe.Pointer(&got), &gw); scanned != tc.scans {
			t.Errorf("%s: scanned %v", tc.line, scanned)
		} else if scanned && (err != nil || !reflect.DeepEqual(got, want) || !slices.Equal(gw.Kinds, ww.Kinds)) {
			t.Errorf("%s:\nscanned    %+v %v\nreflective %+v %v (%v)", tc.line, got, gw.Kinds, want, ww.Kinds, err)
		}
	}
}

package logformat

import (
	"slices"
	"testing"

	"github.com/agentstat/agentstat/logformat/jsonscan"
)

// A flexible type without ScanFlex makes the raw scanner give up on every
// line or document that holds it: a new one must have its raw twin, or be
// listed here as read by the reflective decoder alone.
func TestFlexibleTypesHaveRawTwins(t *testing.T) {
	reflectiveOnly := []string{
		"debugbundle.eventsField", // a debug bundle's events, read by the raw document path's window
		"logformat.embedded",      // a message's structured_context (structmsg)
		"structmsg.score",         // structmsg's quality_score
		"structmsg.tri",           // structmsg's success and output_valid
	}
	var got []string
	for _, typ := range jsonscan.GivesUp() {
		got = append(got, typ.String())
	}
	slices.Sort(got)
	if !slices.Equal(got, reflectiveOnly) {
		t.Errorf("flexible types the raw scanner gives up on: %q, want %q", got, reflectiveOnly)
	}
}

// An embedded struct's fields, in Go or tagged embed, are read at their place in the union.
func TestRawPlanReadsEmbeddedFields(t *testing.T) {
	var d document
	var w jsonscan.WarnList
	if !decodeLineRaw([]byte(`{"type":"user","uuid":"u1","instructions":"x","resourceSpans":[]}`), &d, &w, nil) {
		t.Fatal("the raw scanner gave up")
	}
	if d.Type.V != "user" || d.Claude.UUID.V != "u1" || d.Codex.Instructions.V != "x" || d.Otel.ResourceSpans == nil {
		t.Errorf("read %+v", d)
	}
}

// The index of member names finds each within a few slots of its own.
func TestKeyIndexProbesShort(t *testing.T) {
	if n := jsonscan.MaxProbe(); n > 3 {
		t.Errorf("a member name sits %d slots past its own: choose keySlot's factors anew", n)
	}
}

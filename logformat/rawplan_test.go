package logformat

import (
	"reflect"
	"slices"
	"testing"
)

// A flexible type without rawFlex makes the raw scanner give up on every
// line or document that holds it: a new one must have its raw twin, or be
// listed here as read by the reflective decoder alone.
func TestFlexibleTypesHaveRawTwins(t *testing.T) {
	reflectiveOnly := []string{
		"logformat.embedded",    // a message's structured_context (structmsg)
		"logformat.eventsField", // a debug bundle's events, read by the raw document path's window
		"logformat.score",       // structmsg's quality_score
		"logformat.tri",         // structmsg's success and output_valid
	}
	var got []string
	for typ := range rawReaders {
		pt := reflect.PointerTo(typ)
		if pt.Implements(flexibleType) && !pt.Implements(rawFlexibleType) {
			got = append(got, typ.String())
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, reflectiveOnly) {
		t.Errorf("flexible types the raw scanner gives up on: %q, want %q", got, reflectiveOnly)
	}
}

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
	new(rawStruct).addFields(reflect.TypeFor[union](), 0)
}

// An embedded struct's fields are read at their place in the union.
func TestRawPlanReadsEmbeddedFields(t *testing.T) {
	var d document
	var w warnList
	if !decodeLineRaw([]byte(`{"type":"user","uuid":"u1","instructions":"x","resourceSpans":[]}`), &d, &w, nil) {
		t.Fatal("the raw scanner gave up")
	}
	if d.Type.V != "user" || d.UUID.V != "u1" || d.Instructions.V != "x" || d.ResourceSpans == nil {
		t.Errorf("read %+v", d)
	}
}

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

package model

import (
	"fmt"
	"strings"
	"testing"
)

// With KeepTwo a part stays as it was made until the call after the next;
// without, the next part is made over it.
func TestCallPartsKeepTwo(t *testing.T) {
	made := func() *CallParts {
		return PartsOf(8, 10, 3, func(i int) (ToolCall, bool) { return ToolCall{Name: fmt.Sprint(i)}, i != 4 && i != 7 })
	}
	names := func(part []ToolCall) string {
		var s []string
		for _, c := range part {
			s = append(s, c.Name)
		}
		return strings.Join(s, " ")
	}
	p := made()
	p.KeepTwo()
	var parts []string
	prev := p.Next()
	for part := p.Next(); part != nil; part = p.Next() {
		parts = append(parts, names(prev))
		prev = part
	}
	parts = append(parts, names(prev))
	if got, want := strings.Join(parts, " | "), "0 1 2 | 3 5 6 | 8 9"; got != want {
		t.Errorf("with KeepTwo, each part after the next was made: %q, want %q", got, want)
	}
	p = made()
	first := p.Next()
	p.Next()
	if got := names(first); got != "3 5 6" {
		t.Errorf("without KeepTwo, the first part after the second was made: %q, want the second's", got)
	}
}

package logformat

import (
	"strings"
	"testing"

	"github.com/agentstat/agentstat/logformat/formattest"
	"github.com/agentstat/agentstat/logformat/reader"
)

// The decoder accepts drift: quoted numbers, numeric ids, huge numbers, objects
// where strings were expected, and duplicate keys, counting what it ignored.
func TestTolerantDecoding(t *testing.T) {
	doc := `{"planId": 12345, "userRequest": "r", "title": {"zh": "标题"}, "progress": "66.67",
	 "statusCounts": {"completed": 1e400}, "steps": "not a list", "stepStatuses": [{"x": 1}, "completed"],
	 "agentExecutionSequence": {"oops": true}, "completed": "yes", "completed": true}`
	c := formattest.NewCollector()
	if err := Read(strings.NewReader(doc), "x.json", Options{}, c); err != nil {
		t.Fatal(err)
	}
	r := c.Runs[0]
	if r.ID != "12345" || r.Title != "r" {
		t.Errorf("id %q title %q", r.ID, r.Title)
	}
	// title, steps, stepStatuses[0], agentExecutionSequence and the first "completed"
	checkWarnings(t, "tolerant", c.Warnings, map[string]int{reader.WarnTypeMismatch: 5, reader.WarnBadNumber: 1})
}

package metrics

import (
	"testing"
	"time"

	"github.com/agentstat/agentstat/model"
)

// A scope is [Since, Until): a run started at Since is kept, one started at
// Until is not; with a bound set, a run of no known start is not kept.
func TestScopeKeeps(t *testing.T) {
	since, until := at("2026-01-02T00:00:00Z"), at("2026-01-03T00:00:00Z")
	run := func(started time.Time, project string) *model.Run {
		return &model.Run{Span: model.Span{Started: started}, Project: project, Source: "x.json"}
	}
	for _, c := range []struct {
		scope Scope
		r     *model.Run
		want  bool
	}{
		{Scope{}, run(time.Time{}, ""), true},
		{Scope{Since: since}, run(since, ""), true},
		{Scope{Since: since}, run(since.Add(-time.Nanosecond), ""), false},
		{Scope{Until: until}, run(until, ""), false},
		{Scope{Until: until}, run(until.Add(-time.Nanosecond), ""), true},
		{Scope{Since: since, Until: until}, run(time.Time{}, ""), false},
		{Scope{Project: "/home/dev/shop/"}, run(time.Time{}, "/home/dev/shop"), true},
		{Scope{Project: "/home/dev/shop"}, run(since, "/home/dev/app"), false},
		{Scope{Since: since, Project: "/home/dev/shop"}, run(since.Add(-time.Hour), "/home/dev/shop"), false},
	} {
		if got := c.scope.Keeps(c.r); got != c.want {
			t.Errorf("%+v keeps a run started %v of %q: %v, want %v", c.scope, c.r.Started, c.r.Project, got, c.want)
		}
	}
}

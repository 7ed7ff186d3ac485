package metrics

import (
	"maps"
	"path/filepath"
	"testing"

	"github.com/agentstat/agentstat/model"
)

func TestProjectOf(t *testing.T) {
	for _, c := range []struct {
		r    model.Run
		want string
	}{
		{model.Run{Project: "/home/dev/app", Source: "x/y.jsonl"}, "/home/dev/app"},
		{model.Run{Source: "team-a/2026/run.json"}, "team-a"},
		{model.Run{Source: "run.json"}, "."},
		{model.Run{Source: "../escape/run.json"}, "."},
	} {
		if got := ProjectOf(&c.r); got != c.want {
			t.Errorf("ProjectOf(%+v) = %q, want %q", c.r, got, c.want)
		}
	}
}

// Labels are the last two path elements, more where two would collide.
func TestProjectLabels(t *testing.T) {
	got := projectLabels([]string{"/home/a/work/app", "/home/b/work/app", "/srv/shop", `C:\Users\me\site`, "team-a", "."})
	want := map[string]string{"/home/a/work/app": "a/work/app", "/home/b/work/app": "b/work/app", "/srv/shop": "srv/shop",
		`C:\Users\me\site`: "me/site", "team-a": "team-a", ".": "."}
	if !maps.Equal(got, want) {
		t.Errorf("labels = %v, want %v", got, want)
	}
	// A path that is the tail of another keeps its whole self.
	got = projectLabels([]string{"/x/a/b", "/a/b"})
	if got["/a/b"] != "/a/b" || got["/x/a/b"] != "x/a/b" {
		t.Errorf("labels = %v", got)
	}
}

// --project keeps one project's runs; a threshold can limit one project.
func TestProjectFilterAndThreshold(t *testing.T) {
	root := filepath.Join(testdataLogs, "claudecode")
	all := reportOf(t, Settings{}, root).Summary
	if len(all.Projects) != 2 || all.Projects[0].Project != "/home/dev/app" || all.Projects[1].Label != "dev/shop" {
		t.Fatalf("projects = %+v", all.Projects)
	}
	one := reportOf(t, Settings{Scope: Scope{Project: "/home/dev/shop/"}}, root).Summary
	if one.Runs.Total != 1 || len(one.Projects) != 1 || one.Inputs.RunsFiltered != 1 || one.Window == nil || one.Window.Project != "/home/dev/shop/" {
		t.Errorf("--project: %d runs, projects %+v, filtered %d, window %+v", one.Runs.Total, one.Projects, one.Inputs.RunsFiltered, one.Window)
	}
	th, err := ParseThreshold(flagNamed("max-cost"), "project:dev/shop=0.1")
	if err != nil {
		t.Fatal(err)
	}
	res := Check(&all, []Threshold{th})
	if res.Passed || res.Thresholds[0].Scope() != "project:dev/shop" || *res.Thresholds[0].Actual < 0.26 {
		t.Errorf("per-project cost: %+v", res.Thresholds[0])
	}
	for _, bad := range [][2]string{{"max-p95", "project:x=5s"}, {"max-error-rate", "project:=0.1"}, {"max-error-rate", "project:x"}} {
		if _, err := ParseThreshold(flagNamed(bad[0]), bad[1]); err == nil {
			t.Errorf("--%s %s accepted", bad[0], bad[1])
		}
	}
}

package reader

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/agentstat/agentstat/logformat/formattest"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/model"
)

func TestSpanOf(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name       string
		start, end time.Time
		ms         float64
		has        bool
		ended      time.Time
		warn       string
	}{
		{"both", at, at.Add(1500 * time.Millisecond), 1500, true, at.Add(1500 * time.Millisecond), ""},
		{"no end", at, time.Time{}, 0, false, time.Time{}, ""},
		{"end before start", at, at.Add(-time.Second), 0, false, time.Time{}, WarnNegativeDuration},
		{"eleven years", at, at.AddDate(11, 0, 0), 0, false, at.AddDate(11, 0, 0), WarnImpossibleDuration},
	} {
		w := formattest.NewCollector()
		s := SpanOf(tc.start, tc.end, w)
		if s.DurationMS != tc.ms || s.HasDuration != tc.has || !s.Ended.Equal(tc.ended) || !s.Started.Equal(tc.start) {
			t.Errorf("%s: %+v", tc.name, s)
		}
		want := map[string]int{}
		if tc.warn != "" {
			want[tc.warn] = 1
		}
		if !maps.Equal(w.Warnings, want) {
			t.Errorf("%s: warnings %v, want %v", tc.name, w.Warnings, want)
		}
	}
}

func TestStatusWords(t *testing.T) {
	w := formattest.NewCollector()
	for word, want := range map[string]model.StepStatus{"COMPLETED": model.StepCompleted, "failed": model.StepFailed, "": model.StepOther, "weird": model.StepOther} {
		if got := StepStatus(word, w); got != want {
			t.Errorf("StepStatus(%q) = %v, want %v", word, got, want)
		}
	}
	if want := map[string]int{WarnMissingStatus: 1, WarnOtherStepStatus: 1}; !maps.Equal(w.Warnings, want) {
		t.Errorf("step warnings %v, want %v", w.Warnings, want)
	}
	w.Warnings = map[string]int{}
	for word, want := range map[jsonscan.Str]model.Outcome{
		{V: "completed", Set: true}: model.OutcomeOK,
		{V: "FAILED", Set: true}:    model.OutcomeError,
		{}:                          model.OutcomeUnknown,
		{V: "weird", Set: true}:     model.OutcomeUnknown,
	} {
		if got := CallOutcome(word, w); got != want {
			t.Errorf("CallOutcome(%q) = %v, want %v", word.V, got, want)
		}
	}
	if want := map[string]int{WarnUnknownStatus: 1}; !maps.Equal(w.Warnings, want) {
		t.Errorf("call warnings %v, want %v", w.Warnings, want)
	}
}

func TestClippedTexts(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdef", 3, "abc…"},
		{"ab中文", 4, "ab…"}, // 中 is three bytes: the cut backs off to its start
	} {
		if got := ClipString(tc.s, tc.n); got != tc.want {
			t.Errorf("ClipString(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
	for args, want := range map[string]string{
		`{"command":["git","status"]}`:  "git status",
		`{"cmd":"ls -l","path":"/x"}`:   "ls -l",
		`{"path":"/x","pattern":"y"}`:   "/x",
		`{"other":1}`:                   "",
		`not json`:                      "",
		`{"command":[1,2]}`:             "",
		`{"query":"` + long + `"}`:      long[:InputClip] + "…",
		`{"file_path":"a","query":"b"}`: "a",
	} {
		if got := ArgsInput(args); got != want {
			t.Errorf("ArgsInput(%s) = %q, want %q", args, got, want)
		}
	}
}

var long = strings.Repeat("q", 400)

func TestCtx(t *testing.T) {
	em := formattest.NewCollector()
	c := NewCtx("dir/run-7.jsonl.gz", time.UTC, nil, em)
	if got := c.FallbackID(); got != "run-7" {
		t.Errorf("FallbackID = %q", got)
	}
	c.Ord = 2
	if got := c.FallbackID(); got != "run-7#3" {
		t.Errorf("FallbackID of the third document = %q", got)
	}
	c.Run(&model.Run{ID: "a"})
	if c.Emits() != 1 || len(em.Runs) != 1 || em.Runs[0].Source != "dir/run-7.jsonl.gz" {
		t.Errorf("emits %d, runs %+v", c.Emits(), em.Runs)
	}
	type state struct{ n int }
	FileState(c, func() *state { return &state{} }).n++
	if got := FileState(c, func() *state { return &state{n: 100} }).n; got != 1 {
		t.Errorf("a file's state made again: n = %d", got)
	}
}

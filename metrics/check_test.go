package metrics

import (
	"testing"
	"time"
)

func flagNamed(name string) ThresholdFlag {
	for _, f := range ThresholdFlags {
		if f.Flag == name {
			return f
		}
	}
	panic(name)
}

func TestParseThreshold(t *testing.T) {
	for _, tc := range []struct {
		flag, text, metric, tool string
		limit                    float64
	}{
		{"max-error-rate", "0.05", "tool_calls.error_rate", "", 0.05},
		{"max-error-rate", "5%", "tool_calls.error_rate", "", 0.05},
		{"max-error-rate", "Bash=0.1", "tools.error_rate", "Bash", 0.1},
		{"max-p95", "5s", "tool_calls.duration_ms.p95", "", 5000},
		{"max-p95", "Bash=1m30s", "tools.duration_ms.p95", "Bash", 90000},
		{"max-p95", "250", "tool_calls.duration_ms.p95", "", 250},
		{"max-run-p95", "10m", "runs.duration_ms.p95", "", 600000},
		{"min-success-rate", "90%", "runs.success_rate", "", 0.9},
		{"min-completion-rate", "0.5", "steps.completion_rate", "", 0.5},
		{"min-quality", "7.5", "quality.mean", "", 7.5},
		{"max-cost", "25", "cost.usd", "", 25},
		{"max-cost", "$0.5", "cost.usd", "", 0.5},
		{"max-run-cost-p95", "$1", "runs.cost_usd.p95", "", 1},
	} {
		th, err := ParseThreshold(flagNamed(tc.flag), tc.text)
		if err != nil || th.Metric != tc.metric || th.Tool != tc.tool || th.Limit != tc.limit {
			t.Errorf("--%s %s = %+v %v", tc.flag, tc.text, th, err)
		}
	}
	for _, bad := range [][2]string{{"max-error-rate", "1.5"}, {"max-error-rate", "lots"}, {"max-p95", "fast"},
		{"min-success-rate", "Bash=0.5"}, {"min-quality", "11"}, {"max-error-rate", "=0.1"}, {"max-p95", "-5s"},
		{"max-cost", "lots"}, {"max-cost", "-1"}, {"max-cost", "NaN"}, {"max-cost", "Inf"}, {"max-run-cost-p95", "Bash=1"}} {
		if _, err := ParseThreshold(flagNamed(bad[0]), bad[1]); err == nil {
			t.Errorf("--%s %s accepted", bad[0], bad[1])
		}
	}
}

func TestCheck(t *testing.T) {
	s := summarize(time.UTC, handRuns()) // success 0.5, error rate 2/3, Read error rate 0.5, call p95 300, quality 7
	mk := func(flag, text string) Threshold {
		th, err := ParseThreshold(flagNamed(flag), text)
		if err != nil {
			t.Fatal(err)
		}
		return th
	}
	for _, tc := range []struct {
		th       Threshold
		violated bool
		noData   bool
	}{
		{mk("max-error-rate", "0.5"), true, false},
		{mk("max-error-rate", "0.7"), false, false},
		{mk("max-error-rate", "Read=0.5"), false, false},
		{mk("max-error-rate", "Read=0.4"), true, false},
		{mk("max-error-rate", "Nope=0.1"), false, true},
		{mk("min-success-rate", "0.6"), true, false},
		{mk("min-success-rate", "50%"), false, false},
		{mk("min-completion-rate", "0.7"), true, false},
		{mk("min-quality", "7"), false, false},
		{mk("min-quality", "7.1"), true, false},
		{mk("max-p95", "299ms"), true, false},
		{mk("max-p95", "Read=300"), false, false},
		{mk("max-run-p95", "2s"), true, false},
	} {
		res := Check(&s, []Threshold{tc.th})
		r := res.Thresholds[0]
		if r.Violated != tc.violated || (r.Actual == nil) != tc.noData || res.Passed == tc.violated {
			t.Errorf("%+v: violated %v actual %v passed %v", tc.th, r.Violated, r.Actual, res.Passed)
		}
	}
	empty := summarize(time.UTC, nil)
	if res := Check(&empty, []Threshold{mk("min-success-rate", "0.9")}); !res.Passed || res.NoData != 1 {
		t.Errorf("no data must not fail: %+v", res)
	}
}

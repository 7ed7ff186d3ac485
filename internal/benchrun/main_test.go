//go:build unix

package main

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// A case is judged against the floor of its own round: a slow round slows
// both, and the ratio of the medians would mix rounds.
func TestMedianRatio(t *testing.T) {
	s := time.Second
	ws, floor := []time.Duration{2 * s, 4 * s, 9 * s}, []time.Duration{1 * s, 1 * s, 3 * s}
	if got := medianRatio(ws, floor); got != 3 {
		t.Errorf("medianRatio = %v, want 3 (the ratios are 2, 4 and 3)", got)
	}
	if got := ratios(ws, floor); got != "2.0, 4.0, 3.0" {
		t.Errorf("ratios = %q, want them in round order", got)
	}
	if got := medianOf(ws); got != 4*s || ws[2] != 9*s {
		t.Errorf("medianOf = %v (ws %v), want 4s and ws unsorted", got, ws)
	}
}

// Every case runs once in each round, in the cases' order.
func TestRounds(t *testing.T) {
	var order []string
	cases := []benchCase{
		{"a", func(run int) []string { order = append(order, "a"); return []string{"true"} }},
		{"b", func(run int) []string { order = append(order, "b"); return []string{"true"} }},
	}
	ms, err := measureRounds(cases, 3, func() error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if got := len(ms[0]) + len(ms[1]); got != 6 || len(ms[0]) != 3 {
		t.Errorf("%d measurements, want 3 of each case", got)
	}
	if want := "ababab"; strings.Join(order, "") != want {
		t.Errorf("runs in the order %s, want %s", strings.Join(order, ""), want)
	}
}

// A run's CPU is its process tree's: a grandchild's busy loop counts, as
// cat's does under find and xargs, and no more than the cores allow.
func TestMeasureCPU(t *testing.T) {
	m, err := measure([]string{"sh", "-c", `sh -c 'i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done'`})
	if err != nil {
		t.Fatal(err)
	}
	if m.cpu < 10*time.Millisecond || m.cpu > time.Duration(runtime.NumCPU())*m.wall+10*time.Millisecond {
		t.Errorf("CPU %v in %v of wall time", m.cpu, m.wall)
	}
}

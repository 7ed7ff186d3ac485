package jsonscan

import (
	"math/rand/v2"
	"testing"
)

// fieldSlot finds exactly the keys of fieldKeys: each key, and names near
// one (cut, grown, a byte changed), which share its slot or the next.
func TestFieldKey(t *testing.T) {
	check := func(name string) {
		t.Helper()
		want, wantOK := fieldKeys[name]
		got, ok := "", false
		if slot, found := fieldSlot([]byte(name)); found {
			got, ok = keyIndex[slot], true
		}
		if got != want || ok != wantOK {
			t.Fatalf("fieldSlot(%q) finds %q, %v; the map has %q, %v", name, got, ok, want, wantOK)
		}
	}
	check("")
	if len(fieldKeys) < 50 {
		t.Fatalf("only %d keys", len(fieldKeys))
	}
	for k := range fieldKeys {
		check(k)
		check(k + "x")
		check(k[:len(k)-1])
		for i := range len(k) {
			check(k[:i] + "_" + k[i+1:])
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 100000 {
		b := make([]byte, 1+rng.IntN(20))
		for i := range b {
			b[i] = "abcdefgilmnoprstuyIST_"[rng.IntN(22)]
		}
		check(string(b))
	}
}

// time reads a string as timeText reads str's, escapes, null and other
// kinds included.
func TestRawTimeAsStr(t *testing.T) {
	for _, in := range []string{`"user"`, `"us\u0065r"`, `"claude-x"`, `""`, `"\""`,
		`null`, `1`, `"2026-08-23T16:47:15.670Z"`, `"2026-08-23T16:47:15\u002e670Z"`, `"yesterday"`, `"user`, `"中文"`} {
		b := []byte(in + ",")
		var want Str
		ws := Scanner{B: b}
		wantOK := ws.Str(&want)
		var wantTime Time
		if wantOK && want.Set {
			timeText(want.V, &wantTime, &WarnList{})
		}
		var got Time
		s := Scanner{B: b}
		if ok := s.time(&got, &WarnList{}); wantOK && in[0] == '"' && (!ok || got != wantTime || s.i != ws.i) {
			t.Errorf("time(%s) = %+v, %v at %d; timeText of str: %+v at %d", in, got, ok, s.i, wantTime, ws.i)
		}
	}
}

// A line's time is read without allocating.
func TestRawTimeAllocatesNothing(t *testing.T) {
	var at Time
	var w WarnList
	b, s := []byte(`"2026-08-23T16:47:15.670Z"`), new(Scanner)
	got := testing.AllocsPerRun(100, func() {
		if *s = (Scanner{B: b}); !s.time(&at, &w) {
			t.Fatal("not read")
		}
	})
	if got != 0 {
		t.Errorf("%v allocations, want 0", got)
	}
}

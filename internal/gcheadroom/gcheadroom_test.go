package gcheadroom

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func TestPercent(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		live, headroom uint64
		user, want     int
	}{
		{0, 6 * mib, 100, 100},           // nothing measured yet
		{3 * mib, 6 * mib, 100, 100},     // a small heap keeps the user's target
		{6 * mib, 6 * mib, 100, 100},     // the bound reached
		{8 * mib, 6 * mib, 100, 75},      // past it: grows by 6 MiB
		{12 * mib, 6 * mib, 100, 50},     // at 50%
		{16 * mib, 6 * mib, 100, 37},     // the renderers' at 1 GB of logs: still 6 MiB
		{40 * mib, 6 * mib, 100, 25},     // never under 25%
		{8 * mib, 6 * mib, 60, 60},       // a lower GOGC stays
		{3 * mib, 6 * mib, 400, 200},     // a higher one is bounded too
		{1, 1 << 62, 100, 100},           // no overflow
		{8 * mib, 6 * mib, 20, 20},       // under 25 is the user's
		{100 * mib, 60 * mib, 100, 60},   // the bound scales with headroom
		{100 * mib, 200 * mib, 150, 150}, // and stops at the user's
	} {
		if got := Percent(tc.live, tc.headroom, tc.user); got != tc.want {
			t.Errorf("Percent(%d MiB live, %d MiB, GOGC %d) = %d, want %d", tc.live/mib, tc.headroom/mib, tc.user, got, tc.want)
		}
	}
}

// gcPercent is the GC target now.
func gcPercent() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}

// While bound, a live heap past the headroom lowers the target after a
// collection; stop restores the user's, and no later collection moves it.
func TestBound(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	live := make([]byte, 16<<20)
	for i := range live {
		live[i] = byte(i)
	}
	stop := Bound(1 << 20)
	for deadline := time.Now().Add(10 * time.Second); gcPercent() == 100; {
		if time.Now().After(deadline) {
			stop()
			t.Fatal("the target never moved with 16 MiB live and 1 MiB of headroom")
		}
		runtime.GC()
		time.Sleep(time.Millisecond) // cleanups run on a goroutine of their own
	}
	if got := gcPercent(); got != 25 {
		t.Errorf("target %d with 16 MiB live, want 25 (the floor)", got)
	}
	stop()
	runtime.KeepAlive(live)
	for range 3 {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if got := gcPercent(); got != 100 {
		t.Errorf("target %d after stop, want the user's 100", got)
	}

	// Overlapping bounds: the last stopped restores the first's target.
	outer := Bound(1 << 20)
	inner := Bound(1 << 20)
	for deadline := time.Now().Add(10 * time.Second); gcPercent() == 100; {
		if time.Now().After(deadline) {
			t.Fatal("overlapping bounds never moved the target")
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	outer()
	outer() // twice: counted once
	runtime.GC()
	time.Sleep(time.Millisecond)
	if got := gcPercent(); got == 100 {
		t.Error("one of two bounds stopped ended both")
	}
	inner()
	if got := gcPercent(); got != 100 {
		t.Errorf("target %d after both bounds stopped, want 100", got)
	}
	runtime.KeepAlive(live)

	debug.SetGCPercent(-1) // off: left alone
	Bound(1 << 20)()
	if got := debug.SetGCPercent(100); got != -1 {
		t.Errorf("GOGC off became %d", got)
	}
}

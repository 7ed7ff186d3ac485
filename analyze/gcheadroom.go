package analyze

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// readHeadroom bounds how far the heap may grow past its live part while
// files are read. What is live then grows with the tree (each file's
// fragments, paths, the run index: ~8 MB at 1 GB of logs, ~5 at 100 MB),
// and the default target lets the heap grow by as much again before each
// collection, so peak RSS grew with the tree twice over. Past 6 MiB of
// live heap the target is lowered so that the heap grows by 6 MiB at
// most (never under 50%): the 1 GB corpus read -f json peaked at 37
// instead of 39-40 MiB, at the same CPU; below it nothing changes.
const readHeadroom = 6 << 20

// boundHeadroom keeps the GC target at headroomPercent after every
// collection until stop is called, which restores the target it found. A
// user's GOGC below what it would set (or off) is left alone.
func boundHeadroom(headroom uint64) (stop func()) {
	user := debug.SetGCPercent(100)
	debug.SetGCPercent(user)
	if user <= 0 {
		return func() {}
	}
	var mu sync.Mutex
	stopped := false
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var arm func()
	// A cleanup runs once its object is collected (16 bytes: a smaller
	// one may share a block and outlive it): one new object after each
	// cycle is a callback per collection.
	arm = func() {
		runtime.AddCleanup(new([16]byte), func(struct{}) {
			mu.Lock()
			defer mu.Unlock()
			if stopped {
				return
			}
			metrics.Read(sample)
			debug.SetGCPercent(headroomPercent(sample[0].Value.Uint64(), headroom, user))
			arm()
		}, struct{}{})
	}
	arm()
	return func() {
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		debug.SetGCPercent(user)
	}
}

// headroomPercent is the GC target that lets a heap of live bytes grow by
// headroom at most, between 50 and the user's target.
func headroomPercent(live, headroom uint64, user int) int {
	if live == 0 {
		return user
	}
	return min(user, max(50, int(min(float64(headroom)*100/float64(live), 1<<20))))
}

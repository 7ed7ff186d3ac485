// Package gcheadroom bounds how far the heap may grow past its live part
// between collections.
package gcheadroom

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Size is the headroom the stages that run at the default GC target (the
// read and the renderers) are held to. What is live in them grows with
// the tree (while files are read, each file's fragments, paths and the
// run index: ~9 MB at 1 GB of logs, ~5.5 at 100 MB; while reports are
// written, the run index, the merge of the run details and the outputs'
// buffers: ~16 and ~12 MB), and the default target lets the heap grow by
// as much again before each collection, so peak RSS grew with the tree
// twice over. Past 6 MiB live the target is lowered so that the heap
// grows by 6 MiB at most (never under 25%); below it nothing changes.
// The join keeps its own, tighter target.
const Size = 6 << 20

// Bound keeps the GC target at Percent after every collection until stop
// is called, which restores the target it found. A user's GOGC below what
// it would set (or off) is left alone. Bounds may overlap (concurrent
// runs in one process): they share one callback and the headroom of the
// first, and the last one stopped restores the target the first found.
func Bound(headroom uint64) (stop func()) {
	state.mu.Lock()
	defer state.mu.Unlock()
	if state.bounds == 0 {
		state.user = debug.SetGCPercent(100)
		debug.SetGCPercent(state.user)
		state.headroom = headroom
	}
	state.bounds++
	if state.user > 0 && !state.armed {
		state.armed = true
		arm()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			state.mu.Lock()
			defer state.mu.Unlock()
			if state.bounds--; state.bounds == 0 && state.user > 0 {
				debug.SetGCPercent(state.user)
			}
		})
	}
}

var state struct {
	mu       sync.Mutex
	bounds   int    // not stopped yet
	user     int    // the target the first found
	headroom uint64 // the first's
	armed    bool   // a callback is waiting for the next collection
}

// arm sets the target again after the next collection, and so on while a
// bound lasts. A cleanup runs once its object is collected (16 bytes: a
// smaller one may share a block and outlive it): one new object after
// each cycle is a callback per collection.
func arm() {
	runtime.AddCleanup(new([16]byte), func(struct{}) {
		state.mu.Lock()
		defer state.mu.Unlock()
		if state.bounds == 0 {
			state.armed = false
			return
		}
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(sample)
		debug.SetGCPercent(Percent(sample[0].Value.Uint64(), state.headroom, state.user))
		arm()
	}, struct{}{})
}

// Percent is the GC target that lets a heap of live bytes grow by headroom
// at most, between 25 and the user's target. The floor keeps a large live
// heap from collecting without pause; at 50 it let the renderers' 16 MB at
// 1 GB of logs grow by 8 MiB, and their peak with the tree.
func Percent(live, headroom uint64, user int) int {
	if live == 0 {
		return user
	}
	return min(user, max(25, int(min(float64(headroom)*100/float64(live), 1<<20))))
}

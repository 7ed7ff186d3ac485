package claudecode

import (
	"cmp"
	"encoding/binary"
	"runtime"
	"slices"
	"sort"

	"github.com/agentstat/agentstat/logformat/reader"
)

// The Claude Code join's sort of ids by their bytes, on both cores.

// both runs f and g at once when they work on bothMin items or more: the
// join is serial, and its sorts are most of a long session's join. Every
// key sorted is unique, so the result does not depend on the schedule.
func both(n int, f, g func()) {
	if n < bothMin || runtime.GOMAXPROCS(0) < 2 {
		f()
		g()
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		g()
	}()
	f()
	<-done
}

// bothHalves runs f over items [0, n) in two halves at once (both, on
// work items of work), or whole when there is a single one.
func bothHalves(work, n int, f func(lo, hi int)) {
	if n < 2 {
		f(0, n)
		return
	}
	half := n / 2
	both(work, func() { f(0, half) }, func() { f(half, n) })
}

// bothMin is the least work both shares (a variable for tests).
var bothMin = 1 << 12

// sortIDKeys sorts keys. A long slice (a long session's uuids, tool-use
// ids) is sorted in place by the id's first byte, American-flag style (ids
// are hashes: about as many in each of the 256 buckets), the buckets on
// both cores, half each, and each bucket by its second byte the same way:
// what is left to compare is a few keys, or repeats of one id.
func sortIDKeys(keys []idKey) {
	if len(keys) < 1<<13 {
		slices.SortFunc(keys, cmpIDKey)
		return
	}
	count := flagSort(keys, 0)
	sortBuckets := func(lo, hi int) {
		for b := lo; b < hi; b++ {
			sortByteBucket(keys[count[b]:count[b+1]])
		}
	}
	// Half the keys each, wherever their first bytes lie.
	mid := sort.Search(256, func(b int) bool { return count[b] >= len(keys)/2 })
	both(len(keys), func() { sortBuckets(0, mid) }, func() { sortBuckets(mid, 256) })
}

// sortByteBucket sorts keys whose ids share their first byte.
func sortByteBucket(keys []idKey) {
	if len(keys) < 1<<8 {
		slices.SortFunc(keys, cmpIDKey)
		return
	}
	count := flagSort(keys, 1)
	for b := range 256 {
		if k := keys[count[b]:count[b+1]]; len(k) <= 12 {
			insertionSortIDKeys(k)
		} else {
			slices.SortFunc(k, cmpIDKey)
		}
	}
}

// flagSort orders keys in place by their ids' byte at, and returns where
// each bucket starts: bucket b is keys[count[b]:count[b+1]].
func flagSort(keys []idKey, at int) (count [257]int) {
	var next [257]int
	for i := range keys {
		count[int(keys[i].id[at])+1]++
	}
	for b := 1; b <= 256; b++ {
		count[b] += count[b-1]
	}
	copy(next[:], count[:])
	for b := range 256 {
		for i := next[b]; i < count[b+1]; {
			if d := int(keys[i].id[at]); d == b {
				i++
				next[b] = i
			} else {
				keys[i], keys[next[d]] = keys[next[d]], keys[i]
				next[d]++
			}
		}
	}
	return count
}

func insertionSortIDKeys(keys []idKey) {
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && cmpIDKey(keys[j], keys[j-1]) < 0; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
}

// idKey is an id and the number of what bears it, for sorting by id.
// The id is its digest's first 96 bits: 16 bytes a key rather than 20,
// and a long session's joins sort hundreds of thousands of them (its
// peak of memory). Two ids of a session alike in 96 bits: about 1 in
// 10^18 for a million.
type idKey struct {
	id keyID
	i  int32
}

// keyID is the first 96 bits of a digest.
type keyID [12]byte

func keyOf(d reader.Digest) keyID { return keyID(d[:12]) }

func cmpIDKey(a, b idKey) int {
	if c := cmpKeyID(&a.id, &b.id); c != 0 {
		return c
	}
	return cmp.Compare(a.i, b.i)
}

// cmpKeyID orders ids as bytes.Compare does, eight bytes and four at a time.
func cmpKeyID(a, b *keyID) int {
	if x, y := binary.BigEndian.Uint64(a[:8]), binary.BigEndian.Uint64(b[:8]); x != y {
		return cmp.Compare(x, y)
	}
	return cmp.Compare(binary.BigEndian.Uint32(a[8:]), binary.BigEndian.Uint32(b[8:]))
}

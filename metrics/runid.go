package metrics

import (
	"bytes"
	"slices"

	"github.com/zeebo/xxh3"
)

// runID is a run's format and id as a 128-bit digest: the duplicate check
// keeps one for each run read, 16 bytes where a map keyed by the two would
// take ~90 and an id of any length. Two different runs would share one with a
// probability of about n²/2¹²⁹ (10⁻²⁷ for a million runs), as the Claude
// Code join's uuid digests do.
type runID [16]byte

func runIDOf(format, id string) runID {
	var buf [96]byte // a format and an id: on the stack
	b := append(append(append(buf[:0], format...), 0), id...)
	return xxh3.Hash128(b).Bytes()
}

// duplicateRuns is how many runs repeat the format and id of an earlier
// one: the runs less the distinct ids. It sorts ids.
func duplicateRuns(ids []runID) int64 {
	slices.SortFunc(ids, func(a, b runID) int { return bytes.Compare(a[:], b[:]) })
	var dup int64
	for i := 1; i < len(ids); i++ {
		if ids[i] == ids[i-1] {
			dup++
		}
	}
	return dup
}

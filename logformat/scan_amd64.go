//go:build !purego

package logformat

import "golang.org/x/sys/cpu"

// longStrings says skipString may hand long strings to skipLong: it needs
// AVX2 (a variable for tests).
var longStrings = cpu.X86.HasAVX2

// stopWindow finds the first 64-byte window of b, from its start, that
// holds a byte a string cannot hold as it is (a quote, a backslash or a
// control byte): off is where it starts, stops has bit k set for each such
// byte at off+k and highs for each byte from 0x80. Where fewer than 64
// bytes are left without one, off is their start and stops and highs are
// 0. before says whether a byte from 0x80 was in the windows passed over.
// It needs AVX2.
//
//go:noescape
func stopWindow(b []byte) (off int, stops, highs uint64, before bool)

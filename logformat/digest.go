package logformat

import "github.com/zeebo/xxh3"

// Digests of ids and bit sets of lines, with which readers and joins find
// what they saw before.

// digest stands for an id compared only for equality; 128 bits make a
// collision between the ids of one tree vanishingly unlikely.
type digest [16]byte

// idDigest is the digest of an id, zero for none.
func idDigest(id string) digest {
	if id == "" {
		return digest{}
	}
	return digestOf(id)
}

// digestOf is the digest of parts, each ended by a zero byte: XXH3's
// 128 bits, fast on ids of a few dozen bytes.
func digestOf(parts ...string) digest {
	var buf [96]byte // an id or two: on the stack
	b := buf[:0]
	for _, p := range parts {
		b = append(append(b, p...), 0)
	}
	h := xxh3.Hash128(b).Bytes()
	return digest(h)
}

// bitset marks line numbers.
type bitset []uint64

func newBitset(n int32) bitset    { return make(bitset, (n+63)/64) }
func (b bitset) set(i int32)      { b[i/64] |= 1 << (i % 64) }
func (b bitset) has(i int32) bool { return b[i/64]&(1<<(i%64)) != 0 }

// count is how many numbers in [lo, hi) are marked.
func (b bitset) count(lo, hi int32) int {
	n := 0
	for i := lo; i < hi; i++ {
		if b.has(i) {
			n++
		}
	}
	return n
}

// any reports whether any number is marked.
func (b bitset) any() bool {
	for _, w := range b {
		if w != 0 {
			return true
		}
	}
	return false
}

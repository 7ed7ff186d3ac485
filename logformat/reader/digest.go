package reader

import "github.com/zeebo/xxh3"

// Digests of ids and bit sets of lines, with which readers and joins find
// what they saw before.

// Digest stands for an id compared only for equality; 128 bits make a
// collision between the ids of one tree vanishingly unlikely.
type Digest [16]byte

// IDDigest is the digest of an id, zero for none.
func IDDigest(id string) Digest {
	if id == "" {
		return Digest{}
	}
	return DigestOf(id)
}

// DigestOf is the digest of parts, each ended by a zero byte: XXH3's
// 128 bits, fast on ids of a few dozen bytes.
func DigestOf(parts ...string) Digest {
	var buf [96]byte // an id or two: on the stack
	b := buf[:0]
	for _, p := range parts {
		b = append(append(b, p...), 0)
	}
	h := xxh3.Hash128(b).Bytes()
	return Digest(h)
}

// Bitset marks line numbers.
type Bitset []uint64

func NewBitset(n int32) Bitset    { return make(Bitset, (n+63)/64) }
func (b Bitset) Set(i int32)      { b[i/64] |= 1 << (i % 64) }
func (b Bitset) Has(i int32) bool { return b[i/64]&(1<<(i%64)) != 0 }

// Count is how many numbers in [lo, hi) are marked.
func (b Bitset) Count(lo, hi int32) int {
	n := 0
	for i := lo; i < hi; i++ {
		if b.Has(i) {
			n++
		}
	}
	return n
}

// Any reports whether Any number is marked.
func (b Bitset) Any() bool {
	for _, w := range b {
		if w != 0 {
			return true
		}
	}
	return false
}

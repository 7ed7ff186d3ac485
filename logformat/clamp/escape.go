package clamp

// The clamp's repairs inside strings: lone surrogates, escapes and UTF-8
// cut at a chunk's end.

// replacementEscape stands for a lone surrogate: U+FFFD, as many bytes as it.
var replacementEscape = []byte(`\ufffd`)

// unpaired writes the replacement for a high half held back when what
// follows it at in[pos] is known not to be an escape: only an escape (taken
// by escape, never by the common-escape shortcut while one is held) can be
// its low half.
func (c *Reader) unpaired(out *clampOut, in []byte, pos int) {
	if c.needLow && pos < len(in) && in[pos] != '\\' {
		c.loneHigh(out)
	}
}

// loneHigh writes the replacement for a high surrogate escape held back,
// when what follows it is not its low half.
func (c *Reader) loneHigh(out *clampOut) {
	if c.needLow {
		c.needLow = false
		out.add(replacementEscape...)
	}
}

// surrogate tells whether esc (a whole \uXXXX escape) is the high or the
// low half of a UTF-16 surrogate pair.
func surrogate(esc []byte) (high, low bool) {
	if len(esc) != 6 || esc[1] != 'u' {
		return false, false
	}
	v, ok := Hex4(esc[2:])
	if !ok {
		return false, false // not an escape: the decoder refuses it
	}
	return 0xD800 <= v && v < 0xDC00, 0xDC00 <= v && v < 0xE000
}

// Hex4 reads four hexadecimal digits.
func Hex4(h []byte) (v int, ok bool) {
	for _, c := range h {
		switch l := c | 0x20; {
		case '0' <= c && c <= '9':
			v = v<<4 | int(c-'0')
		case 'a' <= l && l <= 'f':
			v = v<<4 | int(l-'a'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// incompleteTail is the length of a UTF-8 sequence begun but not finished at
// the end of b (0 when b ends on a character boundary).
func incompleteTail(b []byte) int {
	for k := 1; k <= 3 && k <= len(b); k++ {
		c := b[len(b)-k]
		if c&0xC0 == 0x80 {
			continue // a continuation byte: look further back
		}
		if k < seqLen(c) {
			return k
		}
		return 0
	}
	return 0
}

// seqLen is how many bytes the UTF-8 sequence lead byte c begins claims
// (0 for an ASCII or continuation byte).
func seqLen(c byte) int {
	switch {
	case c < 0xC0:
		return 0
	case c >= 0xF0:
		return 4
	case c >= 0xE0:
		return 3
	}
	return 2
}

// escape collects the rest of an escape sequence (\x, or \uXXXX), emits it
// whole or drops it whole, and returns how many bytes of in it used.
func (c *Reader) escape(in []byte, out *clampOut) int {
	used := 0
	for used < len(in) {
		if in[used] == '\n' { // the line ends inside the escape: keep what there is, the string ends
			c.loneHigh(out)
			if !c.dropping {
				out.add(c.esc...)
			}
			c.esc = c.esc[:0]
			return used
		}
		c.esc = append(c.esc, in[used])
		used++
		if (len(c.esc) == 2 && c.esc[1] != 'u') || len(c.esc) == 6 {
			break
		}
	}
	if !((len(c.esc) == 2 && c.esc[1] != 'u') || len(c.esc) == 6) {
		return used // the sequence continues in the next chunk
	}
	high, low := surrogate(c.esc)
	if c.needLow && low { // the second half of a pair whose first half was kept
		out.add(c.high[:]...)
		out.add(c.esc...)
		c.strLen += len(c.esc)
		c.needLow = false
		c.esc = c.esc[:0]
		return used
	}
	c.loneHigh(out)
	switch {
	case c.dropping || c.strLen+len(c.esc) > c.limit:
		c.dropping = true
	case high: // held back until what follows shows whether it is a pair
		copy(c.high[:], c.esc)
		c.needLow = true
		c.strLen += len(c.esc)
	case low:
		out.add(replacementEscape...)
		c.strLen += len(c.esc)
	default:
		out.add(c.esc...)
		c.strLen += len(c.esc)
	}
	c.esc = c.esc[:0]
	return used
}

// appendBare appends seg, a stretch outside strings, to out, writing null
// for each NaN, Infinity and -Infinity that stands alone, and doing with the
// part of any run of bare bytes past the limit what past says. It returns
// how much of seg it took (all of it unless it stopped). c.bare is the
// length of the run seg continues, and is left at the length of the run it
// ends in, counting the words as written: so that a stretch gives what its
// lines give one by one, however it is cut.
func (c *Reader) appendBare(out *clampOut, seg []byte, past int) int {
	for i := 0; i < len(seg); i++ {
		if c.bare == 0 {
			if n := nonFiniteAt(seg[i:]); n > 0 && n <= c.bareLimit {
				out.add([]byte("null")...)
				c.NonFinite++
				c.bare = n
				i += n - 1
				continue
			}
		}
		b := seg[i]
		if c.countBare(b) > c.bareLimit && past != bareKeep {
			if past == bareStop {
				return i
			}
			if c.bare == c.bareLimit+1 {
				out.add(0)
			}
			continue
		}
		out.add(b)
	}
	return len(seg)
}

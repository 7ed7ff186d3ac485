// Package clamp bounds untrusted JSON text before it is decoded.
//
// A JSON decoder must hold a whole token to read it, so one string of a
// gigabyte (a file body in a transcript, a gzip bomb) would cost a gigabyte
// of memory even though metrics never look at it. A Reader sits in front
// of the decoder and truncates every string literal past MaxString bytes,
// keeping the JSON valid: it never cuts inside an escape, between the two
// halves of a surrogate pair, or inside a UTF-8 sequence. A bare token (a
// number, a literal, or garbage) longer than MaxBareToken is an error.
// Strings metrics need (names, ids, statuses, error texts) are far shorter.
//
// A raw newline ends any string: JSON strings hold none, and in JSON Lines it
// ends the line. So every line is clamped as if alone, and a broken line (a
// string left open) cannot make the clamp read the next lines inside out.
// In JSON Lines an over-long bare token costs its line only: the clamp drops
// it and writes a NUL in its place, which no decoder takes for JSON (a crash
// can leave a log's tail as kilobytes of NUL bytes). A .jsonl file's lines
// are clamped one by one as they are decoded (Reader.Line), and a line the
// raw path takes whole, with no room for a string or token the clamp would
// cut, is not clamped at all: the clamp would leave it as it is.
//
// A lone UTF-16 surrogate escape ("\ud83d" with no low half after it, or a
// low half alone) becomes "\ufffd", the replacement character. JSON's grammar
// allows it and JavaScript writes it whenever a string was cut inside an
// emoji (Claude Code and Gemini CLI cut long tool output), but the decoder
// refuses it, which cost the whole line. Raw bytes that are not UTF-8 are
// left for the decoder to refuse: that file is not UTF-8. Likewise a bare
// NaN, Infinity or -Infinity becomes null (see nonFinite).
package clamp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/bits"
)

// The clamp's bounds: a longer string is cut, a longer bare token refused.
const (
	MaxString    = 256 << 10
	MaxBareToken = 4 << 10
)

// ErrTokenTooLong is returned for a number or other bare token of absurd length.
var ErrTokenTooLong = errors.New("a JSON token longer than 4 KiB outside any string")

// Reader clamps what it reads from another reader; NewReader makes one and
// Reset points it at its input.
type Reader struct {
	Lines     bool // JSON Lines: an over-long bare token spoils its line, not the file
	NonFinite int  // NaN and Infinity tokens written as null

	r                        io.Reader
	buf                      []byte // what is read from r
	outBuf                   []byte // backing array of out when a chunk was changed, reused
	o                        clampOut
	out                      []byte // processed, not yet returned
	err                      error
	inStr, dropping, needLow bool // needLow: high holds a kept high surrogate escape, not written yet
	high                     [6]byte
	clean                    bool // the clamp is as at the start of input: outside strings, no bare token begun
	strLen, bare             int
	limit                    int    // MaxString, smaller in tests
	bareLimit                int    // MaxBareToken, smaller in tests
	esc                      []byte // an escape sequence being collected
	carry                    []byte // an incomplete UTF-8 sequence held for the next chunk
}

// NewReader is a Reader with its buffers, to be Reset before use.
func NewReader() *Reader {
	return &Reader{buf: make([]byte, 64<<10), esc: make([]byte, 0, 6)}
}

// Reset makes the reader read r from the start.
func (c *Reader) Reset(r io.Reader) {
	*c = Reader{r: r, buf: c.buf, outBuf: c.outBuf, esc: c.esc[:0], limit: MaxString, bareLimit: MaxBareToken, clean: true}
}

// Err is the error that ended the reading, io.EOF at the end of the input.
func (c *Reader) Err() error { return c.err }

func (c *Reader) Read(p []byte) (int, error) {
	for len(c.out) == 0 {
		if c.err != nil {
			return 0, c.err
		}
		k := copy(c.buf, c.carry) // a UTF-8 sequence held back from the last chunk starts this one
		c.carry = c.carry[:0]
		n, err := c.r.Read(c.buf[k:])
		if err != nil {
			c.err = err // set first: at the end nothing is held back
		}
		if perr := c.process(c.buf[:k+n]); perr != nil {
			c.err = perr
		}
	}
	n := copy(p, c.out)
	c.out = c.out[n:]
	return n, nil
}

// process filters one chunk into c.out.
func (c *Reader) process(in []byte) error {
	// Hold back a UTF-8 sequence cut by the chunk's end: a string is never
	// truncated inside a character. So is what may be the start of a NaN or
	// an Infinity, which is only replaced whole. (Holding back bytes is
	// always safe: they start the next chunk.)
	if c.err == nil {
		k := nonFiniteTail(in)
		if k == 0 {
			// A word just before a cut character does not end there.
			if k = incompleteTail(in); k > 0 {
				k += nonFiniteTail(in[:len(in)-k])
			}
		}
		c.carry = append(c.carry[:0], in[len(in)-k:]...)
		in = in[:len(in)-k]
	}
	out := &c.o
	out.start(in, c.outBuf[:0])
	if len(c.esc) == 0 { // a high half held back at the last chunk's end
		c.unpaired(out, in, 0)
	}
	for pos := 0; pos < len(in); {
		// The rest of a line the clamp would pass unchanged is passed at
		// once: most lines of most logs. Any other is clamped up to its end:
		// no token, no escape and no character runs across a newline, so the
		// clamp's state after one is what it would be with the bytes after
		// it in view.
		end := len(in)
		if nl := bytes.IndexByte(in[pos:], '\n'); nl >= 0 {
			end = pos + nl + 1
			switch {
			case nl < minPlainLine:
				// Short lines (indented JSON) are clamped in runs of a few KB:
				// line by line, finding each end cost what clamping it does.
				if far := end + minPlainLine*16; far < len(in) {
					if k := bytes.IndexByte(in[far:], '\n'); k >= 0 {
						end = far + k + 1
					}
				}
				// A run plainLine passes is passed whole, as a line is: a
				// newline ends every string, escape and bare token, so the
				// clamp, clean at the run's start, leaves each of its lines
				// as it is and is clean after the last.
				if plainRuns && c.clean && c.plainLine(in[pos:end-1]) {
					out.keep(pos, end)
					pos = end
					continue
				}
			case c.clean && c.plainLine(in[pos:end-1]):
				out.keep(pos, end)
				pos = end
				continue
			}
		}
		var err error
		if pos, err = c.machine(in[:end], pos, out); err != nil {
			c.finish(out) // what came before the error is read first
			return err
		}
		c.clean = !c.inStr && len(c.esc) == 0 && !c.needLow && c.bare == 0 // escapes and held halves are in strings: belt and braces
	}
	if c.err != nil { // the input ends: nothing can follow a high half held back
		c.loneHigh(out)
	}
	c.finish(out)
	return nil
}

// finish makes what process wrote the output to read.
func (c *Reader) finish(out *clampOut) {
	c.out = out.finish()
	if out.changed {
		c.outBuf = c.out
	}
}

// minPlainLine is the shortest line plainLine is asked about (a variable for tests).
var minPlainLine = 128

// plainRuns lets runs of short lines pass whole (a variable for tests).
var plainRuns = true

// plainLine reports whether the clamp leaves line (without its newline)
// as it is, when it is clean: no string in it can reach the limit, no
// run of bytes without a quote is long enough to be an over-long bare
// token, and it holds no surrogate escape and no NaN or Infinity, in or
// out of strings. It may say no to a line the clamp would leave alone.
func (c *Reader) plainLine(line []byte) bool {
	// What the clamp may change but for long strings and bare tokens: any
	// surrogate escape, bare NaN or Infinity.
	return ShortAndQuoted(line, c.limit, c.bareLimit) &&
		!surrogateEscape(line) && !bytes.Contains(line, []byte("NaN")) && !bytes.Contains(line, []byte("Infinity"))
}

// ShortAndQuoted reports whether line can hold no string longer than limit
// and no bare token longer than bareLimit: it is no longer than limit, and
// each stretch of bareLimit+1 bytes of it holds a quote.
func ShortAndQuoted(line []byte, limit, bareLimit int) bool {
	if len(line) > limit {
		return false
	}
	for start := 0; len(line)-start > bareLimit; { // jump to each stretch's last quote
		k := bytes.LastIndexByte(line[start:start+bareLimit+1], '"')
		if k < 0 {
			return false
		}
		start += k + 1
	}
	return true
}

// Line returns what the clamp makes of one line of JSON Lines, given
// without its newline (ended tells whether it had one: only the last line
// of a file has none): the line itself when it is plain, else the clamped
// bytes in buf (copied). nulls counts the NaN and Infinity tokens written
// as null.
func (c *Reader) Line(line, buf []byte, ended bool) (out []byte, nulls int, copied bool) {
	// plainLine reads the limits, and its test is for a line with its newline.
	c.Reset(nil)
	if ended && c.plainLine(line) {
		return line, 0, false
	}
	var in io.Reader = bytes.NewReader(line)
	if ended {
		in = io.MultiReader(in, bytes.NewReader(newline))
	}
	c.Reset(in)
	c.Lines = true
	out = buf[:0]
	for {
		if len(out) == cap(out) {
			out = append(out, 0)[:len(out)]
		}
		k, err := c.Read(out[len(out):cap(out)])
		out = out[:len(out)+k]
		if err != nil { // the end: in JSON Lines the clamp refuses nothing
			if ended {
				out = bytes.TrimSuffix(out, newline) // the clamp keeps a newline as it is
			}
			return out, c.NonFinite, true
		}
	}
}

var newline = []byte{'\n'}

// surrogateEscape reports whether line holds `\ud` or `\uD`, in one pass
// over its backslashes: a transcript has one every 66 bytes, and a search
// for each of the two words stopped at every one.
func surrogateEscape(line []byte) bool {
	for i := 0; ; {
		k := bytes.IndexByte(line[i:], '\\')
		if k < 0 {
			return false
		}
		if i += k + 1; i+1 < len(line) && line[i] == 'u' && line[i+1]|0x20 == 'd' {
			return true
		}
	}
}

// machine clamps in from pos to its end, byte by byte as the grammar
// goes, and returns where it stopped.
func (c *Reader) machine(in []byte, pos int, out *clampOut) (int, error) {
	for pos < len(in) {
		if len(c.esc) > 0 { // finishing an escape sequence begun earlier
			pos += c.escape(in[pos:], out)
			c.unpaired(out, in, pos)
			continue
		}
		if !c.inStr {
			q := bytes.IndexByte(in[pos:], '"') + pos
			if q < pos {
				q = len(in)
			}
			seg, bare := in[pos:q], c.bare
			if c.checkBare(seg) != nil {
				c.bare = bare // as before the check
				if !c.Lines {
					// What precedes the byte past the limit comes out first, as
					// it does when the input comes a byte at a time: a decoder
					// reads the same bytes before the error however the file
					// was read, and so reports the same error.
					return pos + c.appendBare(out, seg, bareStop), ErrTokenTooLong
				}
				c.appendBare(out, seg, bareDrop)
			} else if mayHoldNonFinite(seg) {
				c.bare = bare
				c.appendBare(out, seg, bareKeep)
			} else {
				out.keep(pos, q)
			}
			if q == len(in) {
				return q, nil
			}
			out.keep(q, q+1) // the opening quote
			pos = q + 1
			c.inStr, c.dropping, c.needLow, c.strLen, c.bare = true, false, false, 0, 0
			continue
		}
		j := pos + stringEnd(in[pos:])
		seg := in[pos:j]
		if !c.dropping && len(seg) > 0 {
			room := max(0, c.limit-c.strLen) // a kept surrogate pair may overshoot
			if len(seg) <= room {
				out.keep(pos, j)
				c.strLen += len(seg)
			} else {
				// Not inside a character: back to the lead byte of the one
				// seg[cut] continues, if any. A stray continuation byte ends
				// nothing, and backing off over it made the cut depend on
				// how the input was read (one byte at a time, the bytes
				// before it were written already).
				cut := room
				if k := cut; seg[k]&0xC0 == 0x80 {
					for k > 0 && cut-k < 3 && seg[k]&0xC0 == 0x80 {
						k--
					}
					if k+seqLen(seg[k]) > cut {
						cut = k
					}
				}
				out.keep(pos, pos+cut)
				c.strLen += cut
				c.dropping = true
			}
		}
		if j == len(in) {
			return j, nil
		}
		if in[j] == '"' || in[j] == '\n' {
			out.keep(j, j+1)
			c.inStr = false
			pos = j + 1
			continue
		}
		if j+1 < len(in) && in[j+1] != 'u' && in[j+1] != '\n' && !c.dropping && !c.needLow && c.strLen+2 <= c.limit {
			out.keep(j, j+2) // the common escape, whole and far from the limit
			c.strLen += 2
			pos = j + 2
			continue
		}
		c.esc = append(c.esc[:0], '\\')
		pos = j + 1
		pos += c.escape(in[pos:], out)
		c.unpaired(out, in, pos)
	}
	return pos, nil
}

// nonFinite are the words Python's json module (and others) write for
// numbers JSON has no notation for. The clamp writes null in their place
// and counts them (nonFinite), so that one NaN costs its value and a
// bad_number warning rather than the file.
var nonFinite = [][]byte{[]byte("NaN"), []byte("-Infinity"), []byte("Infinity")}

// nonFiniteTail is the length of what at the end of b may be a NaN or an
// Infinity, whole or cut by the chunk's end (0 if nothing is): the last run
// of bytes that are neither punctuation, white space nor a quote, when it
// begins one of those words. Whether a whole word stands alone is only
// known from the byte after it.
func nonFiniteTail(b []byte) int {
	k := 0
	for k < len(b) && b[len(b)-1-k] != '"' && !isStructural[b[len(b)-1-k]] {
		if k++; k > len("-Infinity") {
			return 0
		}
	}
	for _, word := range nonFinite {
		if k > 0 && bytes.HasPrefix(word, b[len(b)-k:]) {
			return k
		}
	}
	return 0
}

// mayHoldNonFinite reports whether seg, outside strings, holds an N or an
// I, which no valid JSON has there. Most such stretches are a few bytes
// (`": "`), where a loop is cheaper than two calls to IndexByte.
func mayHoldNonFinite(seg []byte) bool {
	if len(seg) > 16 {
		return bytes.IndexByte(seg, 'N') >= 0 || bytes.IndexByte(seg, 'I') >= 0
	}
	for _, b := range seg {
		if b == 'N' || b == 'I' {
			return true
		}
	}
	return false
}

// nonFiniteAt is the length of the NaN, Infinity or -Infinity at the
// start of b if it stands alone up to its end (b ends there, or punctuation
// or white space follows), else 0. Whether it stands alone from its start
// is the caller's: no bare bytes just before it.
func nonFiniteAt(b []byte) int {
	for _, word := range nonFinite {
		if bytes.HasPrefix(b, word) && (len(b) == len(word) || isStructural[b[len(word)]]) {
			return len(word)
		}
	}
	return 0
}

// What appendBare does with a token's bytes past the bare-token limit.
const (
	bareKeep = iota // writes them (checkBare found none)
	bareDrop        // drops them, with a NUL in their place once: a line no decoder takes
	bareStop        // stops before the first, and says where
)

// structural ends a bare token: JSON's punctuation and white space.
const structural = "{}[],: \t\r\n"

var isStructural = func() (t [256]bool) {
	for i := range len(structural) {
		t[structural[i]] = true
	}
	return t
}()

// countBare counts b into the current run of bare bytes and returns its length.
func (c *Reader) countBare(b byte) int {
	switch b {
	case '{', '}', '[', ']', ',', ':', ' ', '\t', '\r', '\n':
		c.bare = 0
	default:
		c.bare++
	}
	return c.bare
}

// checkBare fails on a run of more than MaxBareToken bytes outside strings
// that holds no structural character or white space.
func (c *Reader) checkBare(seg []byte) error {
	if c.bare+len(seg) <= c.bareLimit {
		i := len(seg) - 1 // the last structural byte: LastIndexAny builds its byte set on every call
		for i >= 0 && !isStructural[seg[i]] {
			i--
		}
		if i >= 0 {
			c.bare = len(seg) - 1 - i
		} else {
			c.bare += len(seg)
		}
		return nil
	}
	for _, b := range seg {
		if c.countBare(b) > c.bareLimit {
			return ErrTokenTooLong
		}
	}
	return nil
}

// clampOut is what process writes for one chunk. Runs of the chunk's own
// bytes are kept as a span of it and copied only once something else is
// written: most chunks pass unchanged and are handed out as they are.
type clampOut struct {
	in       []byte
	buf      []byte // the output so far, before the pending span, once changed
	from, to int    // the pending span of in
	changed  bool
}

func (o *clampOut) start(in, buf []byte) { *o = clampOut{in: in, buf: buf} }

// keep writes in[a:b].
func (o *clampOut) keep(a, b int) {
	if a != o.to { // bytes between were left out
		o.flush()
		o.from = a
	}
	o.to = b
}

// add writes p, which is not the chunk's next bytes.
func (o *clampOut) add(p ...byte) {
	o.flush()
	o.buf = append(o.buf, p...)
}

func (o *clampOut) flush() {
	o.buf = append(o.buf, o.in[o.from:o.to]...)
	o.from, o.changed = o.to, true
}

// finish is the chunk's output: a slice of in itself when nothing changed.
func (o *clampOut) finish() []byte {
	if !o.changed {
		return o.in[o.from:o.to]
	}
	o.flush()
	return o.buf
}

// stringEnd is the index in b of the first byte that ends a string's plain
// run: a quote, a backslash or a newline (len(b) if none). It tests eight
// bytes at a time: strings are most of a log's bytes, and their runs between
// escapes are a dozen bytes, too short for three calls to IndexByte to pay.
func stringEnd(b []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		q, s, n := w^(ones*'"'), w^(ones*'\\'), w^(ones*'\n')
		// A byte of x is zero where (x-ones)&^x has its high bit; the lowest
		// such bit is exact (borrows only reach bytes above a zero).
		if m := ((q-ones)&^q | (s-ones)&^s | (n-ones)&^n) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c == '\n' {
			return i
		}
	}
	return i
}

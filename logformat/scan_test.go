package logformat

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// wantWindow is what stopWindow gives, found a byte at a time.
func wantWindow(b []byte) (off int, stops, highs uint64, before bool) {
	for ; off+64 <= len(b); off += 64 {
		stops, highs = 0, 0
		for k, c := range b[off : off+64] {
			if c == '"' || c == '\\' || c < 0x20 {
				stops |= 1 << k
			}
			if c >= 0x80 {
				highs |= 1 << k
			}
		}
		if stops != 0 {
			return off, stops, highs, before
		}
		before = before || highs != 0
	}
	return len(b) &^ 63, 0, 0, before
}

// Every byte value at every place of inputs up to three windows long, on
// a plain background, and beside a second stop.
func TestStopWindow(t *testing.T) {
	if !longStrings {
		t.Skip("no AVX2")
	}
	for n := range 200 {
		for p := range n {
			for c := range 256 {
				b := bytes.Repeat([]byte{'a'}, n)
				b[p] = byte(c)
				check := func(what string) {
					t.Helper()
					off, stops, highs, before := stopWindow(b)
					wOff, wStops, wHighs, wBefore := wantWindow(b)
					if off != wOff || stops != wStops || highs != wHighs || before != wBefore {
						t.Fatalf("len %d, byte %#x at %d%s: stopWindow = %d, %#x, %#x, %v; want %d, %#x, %#x, %v",
							n, c, p, what, off, stops, highs, before, wOff, wStops, wHighs, wBefore)
					}
				}
				check("")
				if p+37 < n {
					b[p+37] = '\\'
					check(", a backslash 37 after")
				}
			}
		}
	}
}

func FuzzStopWindow(f *testing.F) {
	f.Add([]byte(strings.Repeat("plain text, 中文 and more; ", 6) + `"`))
	f.Add(bytes.Repeat([]byte{0x7f, 0x80, 0x1f, 0x20}, 40))
	f.Fuzz(func(t *testing.T, b []byte) {
		if !longStrings {
			t.Skip("no AVX2")
		}
		off, stops, highs, before := stopWindow(b)
		wOff, wStops, wHighs, wBefore := wantWindow(b)
		if off != wOff || stops != wStops || highs != wHighs || before != wBefore {
			t.Errorf("stopWindow(%q) = %d, %#x, %#x, %v; want %d, %#x, %#x, %v", b, off, stops, highs, before, wOff, wStops, wHighs, wBefore)
		}
	})
}

// skipBoth skips the string at the start of b with skipLong and without,
// and fails t if they differ in the answer or where they stop.
func skipBoth(t *testing.T, b []byte, asIs bool) bool {
	t.Helper()
	defer func(was bool) { longStrings = was }(longStrings)
	long := &rawScan{b: b, asIs: asIs}
	okLong := long.skipString()
	longStrings = false
	short := &rawScan{b: b, asIs: asIs}
	okShort := short.skipString()
	if okLong != okShort || okShort && long.i != short.i {
		t.Fatalf("skipString(%q): with skipLong %v at %d, without %v at %d", b, okLong, long.i, okShort, short.i)
	}
	return okShort
}

// Long strings whose faults and escapes fall at every place around the
// 64-byte windows skipLong reads, in buffers that end right after them or
// well after, answer as the eight-bytes-at-a-time scan does.
func TestSkipLongSameAsShort(t *testing.T) {
	if !longStrings {
		t.Skip("no AVX2")
	}
	pieces := []string{
		`\n`, `\"`, `\\`, `\/`, `\u00e9`, `\uD83D`, `\u12`, `\x`, `\`, "\x1f", "\t", "\x7f",
		"中", "é", "🚀", "\xe4\xb8", "\xed\xa0\x80", "\xc0\x80", "\xf5\x80\x80\x80", "\x80", "\xff",
	}
	text := []string{
		strings.Repeat("a", 200),
		strings.Repeat("中文", 70),
		strings.Repeat("mixed 文本 with \\n escapes, ", 12),
	}
	valid := 0
	for _, body := range text {
		for _, piece := range pieces {
			for at := 28; at < 200; at++ {
				// The piece at a byte offset: into the body at a
				// character's start, so that only the piece can be a fault.
				cut := at
				for cut > 0 && body[cut]&0xC0 == 0x80 {
					cut--
				}
				pre := body[:cut]
				str := `"` + strings.TrimSuffix(pre, `\`) + piece + body[len(pre):] + `"`
				for _, after := range []string{"", `,"k":1}`, strings.Repeat(" ", 150)} {
					if skipBoth(t, []byte(str+after), false) {
						valid++
					}
				}
				skipBoth(t, []byte(str[:len(str)-1]), false) // no closing quote
			}
		}
	}
	if valid == 0 {
		t.Fatal("no valid string was tried")
	}
}

// A string longer than the clamp keeps is not taken as it is, however it
// is read.
func TestSkipLongAsIs(t *testing.T) {
	if !longStrings {
		t.Skip("no AVX2")
	}
	for _, n := range []int{maxString - 1, maxString, maxString + 1} {
		b := []byte(`"` + strings.Repeat("x", n) + `"` + strings.Repeat(" ", 200)) // its end in a whole window
		if got := skipBoth(t, b, true); got != (n <= maxString) {
			t.Errorf("a string of %d bytes as it is: %v", n, got)
		}
		skipBoth(t, b, false)
	}
}

// Random strings of text, escapes and faults, skipped both ways.
func TestSkipLongRandom(t *testing.T) {
	if !longStrings {
		t.Skip("no AVX2")
	}
	parts := []string{"a", "plain words ", "中文", "é", "🚀", `\n`, `\"`, `\\`, `\u00e9`, "\xe4\xb8", "\x01", `\q`, "\xed\xa0\x80"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var sb strings.Builder
		sb.WriteByte('"')
		for n := r.IntN(120); n > 0; n-- {
			p := parts[r.IntN(len(parts))]
			if r.IntN(40) != 0 && (p == "\x01" || p == `\q` || p == "\xe4\xb8" || p == "\xed\xa0\x80") {
				p = "b" // faults now and then, so that most strings are long and valid
			}
			sb.WriteString(p)
		}
		sb.WriteString(`"` + strings.Repeat(" ", r.IntN(130)))
		skipBoth(t, []byte(sb.String()), false)
	}
}

func FuzzSkipString(f *testing.F) {
	f.Add([]byte(`"` + strings.Repeat(`text 中文 \n\"`, 20) + `"`))
	f.Add([]byte(`"` + strings.Repeat("a", 100) + "\xe4\xb8" + strings.Repeat("a", 100) + `"`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if !longStrings {
			t.Skip("no AVX2")
		}
		skipBoth(t, append([]byte{'"'}, b...), false)
	})
}

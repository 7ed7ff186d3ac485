package jsonscan

import (
	"bytes"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentstat/agentstat/logformat/clamp/clamptest"
	"github.com/go-json-experiment/json/jsontext"
)

func TestParseTimestamp(t *testing.T) {
	utc := func(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
		return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
	}
	for _, tc := range []struct {
		in    string
		want  time.Time
		naive bool
	}{
		{"2026-01-25T15:00:00Z", utc(2026, 1, 25, 15, 0, 0, 0), false},
		{"2026-01-25T07:15:00+08:00", utc(2026, 1, 24, 23, 15, 0, 0), false},
		{"2025-03-28T14:14:11.711141", utc(2025, 3, 28, 14, 14, 11, 711141000), true},
		{"2025-03-28T14:14:11.123456789Z", utc(2025, 3, 28, 14, 14, 11, 123456789), false},
		{"2025-03-28T14:14", utc(2025, 3, 28, 14, 14, 0, 0), true},
		{"2025-03-28 14:14:11", utc(2025, 3, 28, 14, 14, 11, 0), true},
		{"2025-03-28T14:14:11+0800", utc(2025, 3, 28, 6, 14, 11, 0), false},
		{"2025-03-28", utc(2025, 3, 28, 0, 0, 0, 0), true},
		{"1702886400000", utc(2023, 12, 18, 8, 0, 0, 0), false},
		{"1761406144.5", utc(2025, 10, 25, 15, 29, 4, 500000000), false},
	} {
		got, naive, ok := ParseTimestamp(tc.in)
		if !ok || !got.Equal(tc.want) || naive != tc.naive {
			t.Errorf("ParseTimestamp(%q) = %v naive=%v ok=%v, want %v naive=%v", tc.in, got, naive, ok, tc.want, tc.naive)
		}
	}
	// Every zone a timestamp can spell has a binary form (the run details
	// spill's): "-00:01" is read as the same instant in UTC.
	for _, zone := range []string{"-00:01", "+00:01", "-0001", "+23:59", "-23:59"} {
		in := "2026-03-01T10:00:00" + zone
		got, _, ok := ParseTimestamp(in)
		if !ok {
			t.Errorf("ParseTimestamp(%q) refused", in)
			continue
		}
		if _, err := got.MarshalBinary(); err != nil {
			t.Errorf("ParseTimestamp(%q) = %v: %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "yesterday", "[trimmed for fixture]", "2025-13-40T99:99", "NaN", strings.Repeat("9", 70)} {
		if _, _, ok := ParseTimestamp(bad); ok {
			t.Errorf("ParseTimestamp(%q) accepted", bad)
		}
	}
}

func TestEpochAndJackson(t *testing.T) {
	if got := epochTime(99999999999); got.Year() != 5138 {
		t.Errorf("just below 1e11 reads as seconds: %v", got)
	}
	if got := epochTime(1e11); got.Year() != 1973 {
		t.Errorf("1e11 reads as milliseconds: %v", got)
	}
	n := func(v float64) Num { return Num{V: v, Set: true} }
	if got, ok := jacksonTime([]Num{n(2025), n(3), n(28), n(14), n(14), n(11), n(711141000)}); !ok || got.Nanosecond() != 711141000 {
		t.Errorf("jackson = %v %v", got, ok)
	}
	for _, bad := range [][]Num{{n(2025), n(2), n(31)}, {n(2025), n(13), n(1)}, {n(2025)}, {n(2025), n(1), n(1.5)}} {
		if _, ok := jacksonTime(bad); ok {
			t.Errorf("jackson accepted %v", bad)
		}
	}
}

// surrogateEscapeRE finds an escape appendUnescaped leaves to jsontext.
var surrogateEscapeRE = regexp.MustCompile(`\\u[dD][89a-fA-F]`)

// checkUnquoted fails when appendUnquoted unquotes a valid string token
// otherwise than jsontext does, or when its own path gives up on one with
// no surrogate escape.
func checkUnquoted(t *testing.T, raw []byte) {
	t.Helper()
	if !jsontext.Value(raw).IsValid() || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return // only tokens a decoder accepted are unquoted
	}
	want, err := jsontext.AppendUnquote([]byte("prefix"), raw)
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	got, err := appendUnquoted([]byte("prefix"), raw)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s: %q (%v), jsontext %q", raw, got, err, want)
	}
	// Its first n bytes, for every n, are those of the whole.
	text := want[len("prefix"):]
	for n := range len(text) + 2 {
		if p, err := stringPrefix(raw, n); err != nil || p != string(text[:min(n, len(text))]) {
			t.Fatalf("%s: first %d bytes %q (%v), not %q", raw, n, p, err, text[:min(n, len(text))])
		}
	}
	// An odd run of backslashes before a u starts an escape.
	_, ok := appendUnescaped(nil, raw[1:len(raw)-1])
	if surrogate := surrogateEscapeRE.FindAllIndex(raw, -1); ok == (len(surrogate) > 0 && escapedAt(raw, surrogate)) {
		t.Fatalf("%s: own path ok %v", raw, ok)
	}
}

// escapedAt reports whether a backslash at one of the matches starts an escape.
func escapedAt(raw []byte, matches [][]int) bool {
	for _, m := range matches {
		n := 0
		for j := m[0]; j >= 0 && raw[j] == '\\'; j-- {
			n++
		}
		if n%2 == 1 {
			return true
		}
	}
	return false
}

func TestAppendUnquoted(t *testing.T) {
	for _, s := range []string{
		`""`, `"plain"`, `"日本 😀"`, `"a\"b\\c\/d\be\ff\ng\rh\ti"`, `"\u00e9\u0041\u4e2d\uFFFD\u0000"`,
		`"\\u00e9"`, `"\\\ud83d\ude00"`, `"\ud83d\ude00"`, `"x\uDBFF\uDFFFy"`, `"\\"`, `"end\\"`,
	} {
		checkUnquoted(t, []byte(s))
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 5000 {
		checkUnquoted(t, []byte(`"`+clamptest.RandString(rng)+`"`))
	}
}

func FuzzAppendUnquoted(f *testing.F) {
	for _, s := range clamptest.Pieces {
		f.Add(`"` + s + `"`)
	}
	f.Fuzz(func(t *testing.T, s string) { checkUnquoted(t, []byte(s)) })
}

// parseTimestampEveryLayout is ParseTimestamp as specified: every layout
// tried in turn, where ParseTimestamp skips those that cannot match.
func parseTimestampEveryLayout(s string) (time.Time, bool, bool) {
	if !strings.Contains(s, ":") {
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			if math.Abs(f) > maxEpoch || math.IsNaN(f) {
				return time.Time{}, false, false
			}
			return epochTime(f), false, true
		}
	}
	if len(s) < 10 || len(s) > 64 {
		return time.Time{}, false, false
	}
	for _, l := range zonedLayouts {
		if t, err := time.Parse(l, s); err == nil {
			if _, offset := t.Zone(); offset/60 == -1 { // a zone the binary form of a time cannot hold
				t = t.UTC()
			}
			return t, false, true
		}
	}
	for _, l := range naiveLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true, true
		}
	}
	return time.Time{}, false, false
}

func FuzzParseTimestamp(f *testing.F) {
	for _, s := range []string{"2026-01-25T15:00:00Z", "2025-03-28T14:14", "1702886400000", "2025-03-28 14:14:11.5+08:00",
		"2026-08-21T11:59:42.555574", "2026-01-01T10:00:00 Z", "2026-01-01T10:00-07:00", "2026-01-01 10:00:00-0700", "2026-01-01", "2026-01-01T10:00:00-00:01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ts, naive, ok := ParseTimestamp(s)
		if wantTS, wantNaive, wantOK := parseTimestampEveryLayout(s); !ts.Equal(wantTS) || ts.String() != wantTS.String() || naive != wantNaive || ok != wantOK { // a zone is made per parse
			t.Fatalf("%q: %v %v %v, every layout tried: %v %v %v", s, ts, naive, ok, wantTS, wantNaive, wantOK)
		}
	})
}

package render

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentstat/agentstat/metrics"
)

// JSON writes summary.json: indented, map keys sorted, same input same bytes.
func JSON(w io.Writer, r *metrics.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r.Summary)
}

// NA is how a figure without data is shown.
const NA = "n/a"

// Rate shows a fraction as a percentage.
func Rate(v *float64) string {
	if v == nil {
		return NA
	}
	p := *v * 100
	// Only 0 and 100 read as "none" and "all": a rate near either keeps the
	// digits that tell it from them.
	switch {
	case p == 0 || p == 100:
		return fmt.Sprintf("%.0f%%", p)
	case p > 100 || p < 0: // a share of a budget can pass it: 100.4%, 1,600%
		if math.Abs(p) < 1000 {
			return fmt.Sprintf("%.1f%%", p)
		}
		return Count(int64(math.Round(p))) + "%"
	case p < 0.005:
		return "<0.01%"
	case p > 99.995:
		return ">99.99%"
	case p < 0.1 || p > 99.9:
		return fmt.Sprintf("%.2f%%", p)
	}
	return fmt.Sprintf("%.1f%%", p)
}

// USD shows an amount in US dollars: cents from $1, four decimals below
// (a run of a small model costs a fraction of a cent).
func USD(v *float64) string {
	if v == nil {
		return NA
	}
	switch a := math.Abs(*v); {
	case a == 0:
		return "$0"
	case a < 0.0001:
		return "<$0.0001"
	case a < 1:
		return "$" + strconv.FormatFloat(*v, 'f', 4, 64)
	case a < 1000:
		return "$" + strconv.FormatFloat(*v, 'f', 2, 64)
	}
	return "$" + Count(int64(math.Round(*v)))
}

// Millis shows a duration given in milliseconds.
func Millis(v *float64) string {
	if v == nil {
		return NA
	}
	// Each unit is chosen by the value as it will be rounded, so that 999.7 ms
	// reads 1.0 s, not 1000 ms, and 59.97 s reads 1m 00s, not 60.0 s.
	ms := *v
	switch {
	case ms == 0:
		return "0 ms"
	case ms < 0.995:
		return fmt.Sprintf("%.2f ms", ms)
	case ms < 999.5:
		return fmt.Sprintf("%.0f ms", ms)
	case ms < 59_950:
		return fmt.Sprintf("%.1f s", ms/1000)
	case ms < 3_599_500:
		s := int64(math.Round(ms / 1000))
		return fmt.Sprintf("%dm %02ds", s/60, s%60)
	}
	m := int64(math.Round(ms / 60_000))
	return fmt.Sprintf("%dh %02dm", m/60, m%60)
}

// Score shows a quality score.
func Score(v *float64) string {
	if v == nil {
		return NA
	}
	return strconv.FormatFloat(*v, 'f', 2, 64)
}

// Count shows an integer with thousands separators.
// CompactCount shows a count of a million or more in three digits and a
// unit (1.88 B), which a dashboard card has room for; smaller ones as Count.
func CompactCount(n int64) string {
	units := []struct {
		size float64
		name string
	}{{1e12, "T"}, {1e9, "B"}, {1e6, "M"}}
	for _, u := range units {
		if v := float64(n) / u.size; math.Abs(v) >= 1 {
			prec := 2
			switch {
			case math.Abs(v) >= 99.95:
				prec = 0
			case math.Abs(v) >= 9.995:
				prec = 1
			}
			return strconv.FormatFloat(v, 'f', prec, 64) + " " + u.name
		}
	}
	return Count(n)
}

func Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// mdSpecial is the ASCII punctuation GitHub-flavoured Markdown may read as
// markup; CommonMark lets any of it be backslash-escaped, which keeps the raw
// text readable (a person reads /report output in a terminal).
const mdSpecial = "\\`*_[]<>&|#!~$"

// MarkdownText escapes untrusted text for one line of Markdown (a table cell
// or a list item): markup is shown literally, HTML never reaches the page, and
// line breaks and control characters are folded into spaces.
func MarkdownText(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	s = strings.Join(strings.Fields(s), " ")
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if strings.IndexByte(mdSpecial, c) >= 0 && !(c == '_' && intraword(s, i)) {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// intraword reports whether s[i] sits between two letters or digits: an
// underscore there cannot open or close emphasis in GFM (symbols and
// punctuation, U+FFFD among them, do not count).
func intraword(s string, i int) bool {
	before, _ := utf8.DecodeLastRuneInString(s[:i])
	after, _ := utf8.DecodeRuneInString(s[i+1:])
	word := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	return word(before) && word(after)
}

// clipText shortens s to at most n runes, marking the cut.
func clipText(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

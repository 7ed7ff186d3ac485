package metrics

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/agentstat/agentstat/model"
)

var (
	reHex    = regexp.MustCompile(`\b(?:0x)?[0-9a-fA-F]{8,}(?:-[0-9a-fA-F]{4,})*\b`)
	rePath   = regexp.MustCompile(`(^|[\s"'(=:])(?:[A-Za-z]:)?(?:[\\/][\w.@~+-]+)+[\\/]?|\b[\w.-]+\.(?:go|py|ts|tsx|js|jsx|json|jsonl|md|java|rs|c|h|cpp|css|html|yaml|yml|toml|txt|sh)\b`)
	reNumber = regexp.MustCompile(`\d+(?:\.\d+)?`)
	reSpace  = regexp.MustCompile(`\s+`)
)

// NormalizeError folds the parts of an error message that vary between
// occurrences of the same error: ids, paths and numbers.
func NormalizeError(msg string) string { return normalizeError(msg, normalizeHead, normalizedLen) }

const (
	normalizedLen = 200 // bytes of a normalized text kept
	normalizeHead = 512 // bytes of a longer text normalized first
)

// normalizeError is NormalizeError keeping keep bytes, which it tries to
// get from about the first head bytes of the text: a long text (1-2 KB of
// a stack trace) would take the expressions ~0.2 ms to normalize whole.
func normalizeError(msg string, head, keep int) string {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return "(no message)"
	}
	if !utf8.ValidString(msg) {
		msg = strings.ToValidUTF8(msg, "\uFFFD")
	}
	msg = clip(msg, 2000)
	// No expression's match holds whitespace but as its first byte, or all
	// whitespace (\s+), and none looks past its end but for \b, which
	// whitespace and the text's end pass alike: the text cut before a
	// whitespace byte normalizes to a prefix of what the whole text does.
	if len(msg) > head {
		if k := spaceFrom(msg, head); k >= 0 {
			if out := normalizeText(msg[:k]); len(out) > keep {
				return clip(out, keep)
			}
		}
	}
	return clip(normalizeText(msg), keep)
}

// normalizeText runs the expressions that fold ids, paths, numbers and
// whitespace over msg.
func normalizeText(msg string) string {
	// Each expression runs only on a text it may change (tested on the
	// text as the ones before left it): most error texts hold no id, many
	// no path, and each expression costs a pass of the regexp engine over
	// up to 2,000 bytes.
	if hexRun(msg, 8) {
		msg = reHex.ReplaceAllString(msg, "<id>")
	}
	if strings.ContainsAny(msg, `/\.`) { // a path has a separator, a file name a dot
		msg = rePath.ReplaceAllString(msg, "${1}<path>")
	}
	if strings.ContainsAny(msg, "0123456789") {
		msg = reNumber.ReplaceAllString(msg, "<n>")
	}
	if strings.ContainsAny(msg, "\t\n\f\r") || strings.Contains(msg, "  ") { // else every run of \s is one space
		msg = reSpace.ReplaceAllString(msg, " ")
	}
	return msg
}

// spaceFrom is the index of the first byte from i on that \s matches, -1 if none.
func spaceFrom(s string, i int) int {
	for ; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\f', '\r':
			return i
		}
	}
	return -1
}

// hexRun reports whether s holds n hexadecimal digits in a row.
func hexRun(s string, n int) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; '0' <= s[i] && s[i] <= '9' || 'a' <= c && c <= 'f' {
			if run++; run == n {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

func (a *Accumulator) addError(key string, c *model.ToolCall, r *model.Run) {
	e := a.Errors[key]
	if e == nil {
		e = &errorAcc{Tools: map[string]int64{}, ExSource: r.Source, ExRunID: r.ID}
		a.Errors[key] = e
	}
	e.Count++
	e.Tools[c.Name]++
	e.example(r.Source, r.ID)
}

// Merge adds o's count and tools, and keeps the example that sorts first.
func (e *errorAcc) Merge(o *errorAcc) {
	if e.Count == 0 {
		e.ExSource, e.ExRunID = o.ExSource, o.ExRunID
	}
	e.Count += o.Count
	if e.Tools == nil {
		e.Tools = gobMap[string, int64]{}
	}
	addCounts(e.Tools, o.Tools)
	e.example(o.ExSource, o.ExRunID)
}

// example keeps the smallest (source, id) as the example, whatever the order.
func (e *errorAcc) example(source, id string) {
	if source < e.ExSource || (source == e.ExSource && id < e.ExRunID) {
		e.ExSource, e.ExRunID = source, id
	}
}

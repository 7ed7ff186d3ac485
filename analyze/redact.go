package analyze

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentstat/agentstat/analyze/model"
)

// Redacted replaces a secret in every text agentstat shows.
const Redacted = "[redacted]"

// secretPatterns match values that look like credentials. A match keeps the
// text before the secret (group 1, when the pattern has one) and loses the
// rest. A pattern runs only on a text holding one of its hints, which every
// match holds (in lower case, for the case-insensitive ones): most texts hold
// none, and a regexp costs far more than a substring test.
var secretPatterns = []struct {
	re    *regexp.Regexp
	hints []string          // none when may is test enough
	fold  bool              // hints are looked for in the lower-cased text
	may   func(string) bool // if set, false for a text the pattern cannot match, tested before the text is lower-cased
}{
	{regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)`), []string{"PRIVATE KEY"}, false, nil},
	{regexp.MustCompile(`\bsk-[A-Za-z0-9][A-Za-z0-9_-]{15,}`), []string{"sk-"}, false, nil},                              // OpenAI, Anthropic (sk-ant-…), and the like
	{regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`), []string{"AKIA", "ASIA"}, false, nil},                          // AWS access key ids
	{regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{20,}\b`), []string{"gh"}, false, nil},                                   // GitHub tokens
	{regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{20,}`), []string{"github_pat_"}, false, nil},                          // GitHub fine-grained tokens
	{regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`), []string{"xox"}, false, nil},                                 // Slack tokens
	{regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`), []string{"AIza"}, false, nil},                                        // Google API keys
	{regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), []string{"eyJ"}, false, nil}, // JSON Web Tokens
	{regexp.MustCompile(`(?i)(\bbearer\s+)[A-Za-z0-9._~+/-]{12,}=*`), nil, false, mayBearer},                             // Authorization: Bearer …
	{regexp.MustCompile(`(?i)(\b[a-z][a-z0-9+.-]*://[^\s:/@]+:)[^\s/@]+(@)`), []string{"://"}, false, nil},               // a password in a URL
	{regexp.MustCompile(`(?i)(\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token)\s*[:=]\s*["']?)[^\s"',;]{6,}`),
		[]string{"pass", "pwd", "secret", "key", "token"}, true, mayAssignKeyword},
}

// RedactText replaces what looks like a credential; changed reports whether it did.
func RedactText(s string) (out string, changed bool) {
	out = s
	lower, loweredFrom, lowered := "", "", false
	for _, p := range secretPatterns {
		if p.may != nil && !p.may(out) {
			continue
		}
		text := out
		if p.fold {
			if !lowered || loweredFrom != out { // lower-cased once, again only after a replacement
				lower, loweredFrom, lowered = strings.ToLower(out), out, true
			}
			text = lower
		}
		if len(p.hints) > 0 && !slices.ContainsFunc(p.hints, func(h string) bool { return strings.Contains(text, h) }) {
			continue
		}
		switch p.re.NumSubexp() {
		case 2:
			out = p.re.ReplaceAllString(out, "${1}"+Redacted+"${2}")
		case 1:
			out = p.re.ReplaceAllString(out, "${1}"+Redacted)
		default:
			out = p.re.ReplaceAllLiteralString(out, Redacted)
		}
	}
	return out, out != s
}

// mayBearer is the bearer pattern's hint, "bearer" in any case, found
// without lower-casing the text: no letter of it has a non-ASCII fold.
func mayBearer(s string) bool { return containsFoldASCII(s, "bearer") }

// containsFoldASCII reports whether s holds lower, a lower-case ASCII word
// none of whose letters has a non-ASCII case fold, in any case.
func containsFoldASCII(s, lower string) bool {
	for i := 0; i+len(lower) <= len(s); i++ {
		if s[i]|0x20 == lower[0] && strings.EqualFold(s[i:i+len(lower)], lower) {
			return true
		}
	}
	return false
}

// mayAssignKeyword reports whether s holds a ':' or '=' after (and \s) one
// of the password pattern's keywords, in any case (?i) takes: the keyword's
// hints alone ("key", "token") let the regexp run on texts of code.
func mayAssignKeyword(s string) bool {
	for i := 0; ; i++ {
		j := strings.IndexAny(s[i:], ":=")
		if j < 0 {
			return false
		}
		i += j
		k := i
		for k > 0 && (s[k-1] == ' ' || s[k-1] == '\t' || s[k-1] == '\n' || s[k-1] == '\f' || s[k-1] == '\r') {
			k--
		}
		// Every keyword ends in d, t, y or n, whose only case folds are
		// their ASCII capitals.
		if k == 0 {
			continue
		}
		switch s[k-1] | 0x20 {
		case 'd', 't', 'y', 'n':
			if slices.ContainsFunc(assignKeywords, func(kw string) bool { return hasSuffixFold(s[:k], kw) }) {
				return true
			}
		}
	}
}

// assignKeywords is the password pattern's keywords, each spelling it takes.
var assignKeywords = []string{"password", "passwd", "pwd", "secret", "apikey", "api_key", "api-key",
	"accesstoken", "access_token", "access-token", "authtoken", "auth_token", "auth-token"}

// hasSuffixFold reports whether s ends with kw (lower-case ASCII) under the
// simple case folding (?i) matches with: 'k' is also the Kelvin sign, 's'
// the long s.
func hasSuffixFold(s, kw string) bool {
	for j := len(kw) - 1; j >= 0; j-- {
		r, n := utf8.DecodeLastRuneInString(s)
		if n == 0 || !foldsTo(r, rune(kw[j])) {
			return false
		}
		s = s[:len(s)-n]
	}
	return true
}

// foldsTo reports whether r is c or in c's case-folding orbit.
func foldsTo(r, c rune) bool {
	for f := c; ; {
		if f == r {
			return true
		}
		if f = unicode.SimpleFold(f); f == c {
			return false
		}
	}
}

// redactor redacts texts in place and counts the values it changed. Runs
// repeat their short texts (tool names, agents, error texts) on every call
// and from run to run: each distinct one is tested once by a worker, up to
// maxMemo of them; a run's own texts (its id, title, request) are not
// remembered.
type redactor struct {
	memo map[string]redaction
	n    int64
}

const maxMemo = 4096 // texts of up to 256 bytes: a megabyte at most

type redaction struct {
	out     string
	changed bool
}

func (x *redactor) fix(p *string) {
	if *p == "" {
		return
	}
	v, ok := x.memo[*p]
	if !ok {
		v.out, v.changed = RedactText(*p)
		if x.memo == nil {
			x.memo = map[string]redaction{}
		}
		if len(*p) <= 256 && len(x.memo) < maxMemo {
			// Neither the key nor an unchanged text (which is *p itself) may
			// keep alive a larger text *p is a piece of (a clipped error).
			kept := redaction{changed: v.changed}
			if v.changed {
				kept.out = v.out
			}
			x.memo[strings.Clone(*p)] = kept
		}
	}
	x.set(p, v)
}

// fixOnce redacts a text no other run holds, without remembering it.
func (x *redactor) fixOnce(p *string) {
	if *p == "" {
		return
	}
	var v redaction
	v.out, v.changed = RedactText(*p)
	x.set(p, v)
}

func (x *redactor) set(p *string, v redaction) {
	if v.changed {
		*p = v.out
		x.n++
	}
}

// run redacts every text of r but its calls'.
func (x *redactor) run(r *model.Run) {
	for _, p := range []*string{&r.ID, &r.Source, &r.Title, &r.Request, &r.Summary} {
		x.fixOnce(p)
	}
	x.fix(&r.Agent)
	x.fix(&r.Model)
	for i := range r.Steps {
		x.fix(&r.Steps[i].Name)
		x.fix(&r.Steps[i].Agent)
	}
	for i := range r.Quality {
		x.fix(&r.Quality[i].Phase)
		x.fix(&r.Quality[i].Tool)
		x.fix(&r.Quality[i].Task)
	}
	for i := range r.Context.Refs {
		x.fix(&r.Context.Refs[i].Type)
		x.fix(&r.Context.Refs[i].Relevance)
		x.fix(&r.Context.Refs[i].UsageMode)
	}
	for i := range r.Context.Contributions {
		x.fix(&r.Context.Contributions[i])
	}
	for i := range r.Context.Subagents {
		x.fix(&r.Context.Subagents[i].Type)
	}
}

// calls redacts the texts of calls.
func (x *redactor) calls(calls []model.ToolCall) {
	for i := range calls {
		c := &calls[i]
		x.fix(&c.Name)
		x.fix(&c.Category)
		x.fix(&c.Agent)
		x.fix(&c.Error)
	}
}

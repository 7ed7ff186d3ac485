package metrics

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentstat/agentstat/model"
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
	{regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)`), []string{"PRIVATE KEY"}, false, nil}, // PEM and PGP
	{regexp.MustCompile(`sk-(?:ant|proj)-[A-Za-z0-9_-]{16,}`), []string{"sk-ant-", "sk-proj-"}, false, nil},                                                                   // Anthropic, OpenAI project keys, even glued to a word
	{regexp.MustCompile(`\bsk-[A-Za-z0-9][A-Za-z0-9_-]{15,}`), []string{"sk-"}, false, nil},                                                                                   // other sk- keys
	{regexp.MustCompile(`(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}`), []string{"_live_", "_test_"}, false, nil},                                                                // Stripe secret and restricted keys
	{regexp.MustCompile(`whsec_[0-9A-Za-z]{24,}`), []string{"whsec_"}, false, nil},                                                                                            // Stripe webhook secrets
	{regexp.MustCompile(`(?:AKIA|ASIA)[0-9A-Z]{16}\b`), []string{"AKIA", "ASIA"}, false, nil},                                                                                 // AWS access key ids
	{regexp.MustCompile(`gh[pousr]_[A-Za-z0-9]{20,}`), []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, false, nil},                                                          // GitHub tokens
	{regexp.MustCompile(`github_pat_[A-Za-z0-9_]{20,}`), []string{"github_pat_"}, false, nil},                                                                                 // GitHub fine-grained tokens
	{regexp.MustCompile(`glpat-[0-9A-Za-z_-]{20,}`), []string{"glpat-"}, false, nil},                                                                                          // GitLab tokens
	{regexp.MustCompile(`xox[abposr]-[A-Za-z0-9-]{10,}`), []string{"xox"}, false, nil},                                                                                        // Slack tokens
	{regexp.MustCompile(`(hooks\.slack\.com/services/)[A-Za-z0-9/]{8,}`), []string{"hooks.slack.com"}, false, nil},                                                            // Slack webhooks
	{regexp.MustCompile(`(discord(?:app)?\.com/api/webhooks/)[0-9]+/[A-Za-z0-9_-]+`), []string{"/api/webhooks/"}, false, nil},                                                 // Discord webhooks
	{regexp.MustCompile(`AIza[0-9A-Za-z_-]{35}`), []string{"AIza"}, false, nil},                                                                                               // Google API keys
	{regexp.MustCompile(`hf_[A-Za-z0-9]{30,}`), []string{"hf_"}, false, nil},                                                                                                  // Hugging Face tokens
	{regexp.MustCompile(`npm_[A-Za-z0-9]{36}`), []string{"npm_"}, false, nil},                                                                                                 // npm tokens
	{regexp.MustCompile(`pypi-AgE[A-Za-z0-9_-]{50,}`), []string{"pypi-"}, false, nil},                                                                                         // PyPI tokens
	{regexp.MustCompile(`SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`), []string{"SG."}, false, nil},                                                                           // SendGrid keys
	{regexp.MustCompile(`do[opr]_v1_[a-f0-9]{64}`), []string{"_v1_"}, false, nil},                                                                                             // DigitalOcean tokens
	{regexp.MustCompile(`shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}`), []string{"shp"}, false, nil},                                                                                   // Shopify tokens
	{regexp.MustCompile(`((?:AccountKey|SharedAccessKey)=)[A-Za-z0-9+/=]{20,}`), []string{"AccountKey=", "SharedAccessKey="}, false, nil},                                     // Azure connection strings
	{regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), []string{"eyJ"}, false, nil},                                                      // JSON Web Tokens
	{regexp.MustCompile(`(?i)(\bbearer\s+)[A-Za-z0-9._~+/-]{12,}=*`), nil, false, mayBearer},                                                                                  // Authorization: Bearer …
	{regexp.MustCompile(`(?i)(\bauthorization["']?\s*[:=]\s*["']?basic\s+)[A-Za-z0-9+/]{8,}=*`), nil, false, mayBasic},                                                        // Authorization: Basic …
	{regexp.MustCompile(`(?i)(\b[a-z][a-z0-9+.-]*://[^\s:/@]+:)[^\s/@]+(@)`), []string{"://"}, false, nil},                                                                    // a password in a URL
	// password=…, DB_PASSWORD=…, AWS_SECRET_ACCESS_KEY=…, "api_key": "…": a
	// keyword anywhere in a name, the name maybe quoted.
	{regexp.MustCompile(`(?i)(\b[a-z0-9_-]*?(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token)[a-z0-9_-]*["']?\s*[:=]\s*["']?)[^\s"',;]{6,}`),
		nil, false, mayAssignKeyword},
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

// mayBasic is the basic-auth pattern's hint, "basic" in any case.
func mayBasic(s string) bool { return containsFoldASCII(s, "basic") }

// mayAssignKeyword reports whether some ':' or '=' in s follows (after \s
// and maybe a quote) a name holding one of the password pattern's
// keywords, in any case (?i) takes: the keywords' hints alone ("key",
// "token") would let the regexp run on texts of code.
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
		if k > 0 && (s[k-1] == '"' || s[k-1] == '\'') {
			k--
		}
		if name := nameBefore(s[:k]); name != "" && slices.ContainsFunc(assignKeywords, func(kw string) bool { return strings.Contains(name, kw) }) {
			return true
		}
	}
}

// nameBefore is the name s ends with (the runes [a-z0-9_-] matches under
// (?i): with the Kelvin sign and the long s), folded to lower-case ASCII.
func nameBefore(s string) string {
	var rev []byte
	for len(s) > 0 {
		r, n := utf8.DecodeLastRuneInString(s)
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '-':
		case r >= 'A' && r <= 'Z':
			r += 'a' - 'A'
		case r == '\u212a': // Kelvin sign
			r = 'k'
		case r == '\u017f': // long s
			r = 's'
		default:
			return reversed(rev)
		}
		rev = append(rev, byte(r))
		s = s[:len(s)-n]
	}
	return reversed(rev)
}

func reversed(b []byte) string {
	slices.Reverse(b)
	return string(b)
}

// assignKeywords is the password pattern's keywords, each spelling it takes.
var assignKeywords = []string{"password", "passwd", "pwd", "secret", "apikey", "api_key", "api-key",
	"accesstoken", "access_token", "access-token", "authtoken", "auth_token", "auth-token"}

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
// WithheldError stands for every error text under --no-text: errors then
// group by tool alone.
const WithheldError = "(error text withheld)"

// withholdRun drops what a log says in words rather than names and numbers
// (--no-text): the prompt, a title (often the prompt), the summary, step
// names and judged tasks. A run is then titled by its id.
func withholdRun(r *model.Run) {
	r.Title, r.Request, r.Summary = r.ID, "", ""
	for i := range r.Steps {
		r.Steps[i].Name = ""
	}
	for i := range r.Quality {
		r.Quality[i].Task = ""
	}
}

// withholdCalls drops the calls' error texts (--no-text).
func withholdCalls(calls []model.ToolCall) {
	for i := range calls {
		calls[i].Input = ""
		if c := &calls[i]; c.Error != "" {
			c.Error = ""
			if c.Outcome == model.OutcomeError {
				c.Error = WithheldError
			}
		}
	}
}

func (x *redactor) calls(calls []model.ToolCall) {
	for i := range calls {
		c := &calls[i]
		x.fix(&c.Name)
		x.fix(&c.Category)
		x.fix(&c.Agent)
		x.fix(&c.Error)
		x.fix(&c.Input)
	}
}

package analyze

import (
	"regexp"
	"strings"

	"github.com/agentstat/agentstat/analyze/model"
)

// Redacted replaces a secret in every text agentstat shows.
const Redacted = "[redacted]"

// secretPatterns match values that look like credentials. A match keeps the
// text before the secret (group 1, when the pattern has one) and loses the rest.
var secretPatterns = []*regexp.Regexp{
	regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)`),
	regexp.MustCompile(`\bsk-[A-Za-z0-9][A-Za-z0-9_-]{15,}`),                              // OpenAI, Anthropic (sk-ant-…), and the like
	regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`),                                   // AWS access key ids
	regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{20,}\b`),                                  // GitHub tokens
	regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{20,}`),                                  // GitHub fine-grained tokens
	regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`),                                 // Slack tokens
	regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`),                                         // Google API keys
	regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), // JSON Web Tokens
	regexp.MustCompile(`(?i)(\bbearer\s+)[A-Za-z0-9._~+/-]{12,}=*`),                       // Authorization: Bearer …
	regexp.MustCompile(`(?i)(\b[a-z][a-z0-9+.-]*://[^\s:/@]+:)[^\s/@]+(@)`),               // a password in a URL
	regexp.MustCompile(`(?i)(\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token)\s*[:=]\s*["']?)[^\s"',;]{6,}`),
}

// secretHints is a cheap first test: a text holding none of them holds no secret
// the patterns above would find, and is left alone without running them.
var secretHints = []string{"PRIVATE KEY", "sk-", "AKIA", "ASIA", "gh", "github_pat_", "xox", "AIza", "eyJ", "earer", "EARER", "://",
	"ass", "ASS", "wd", "WD", "ecret", "ECRET", "key", "KEY", "Key", "oken", "OKEN"}

// RedactText replaces what looks like a credential; changed reports whether it did.
func RedactText(s string) (out string, changed bool) {
	hinted := false
	for _, h := range secretHints {
		if strings.Contains(s, h) {
			hinted = true
			break
		}
	}
	if !hinted {
		return s, false
	}
	out = s
	for _, re := range secretPatterns {
		switch re.NumSubexp() {
		case 2:
			out = re.ReplaceAllString(out, "${1}"+Redacted+"${2}")
		case 1:
			out = re.ReplaceAllString(out, "${1}"+Redacted)
		default:
			out = re.ReplaceAllLiteralString(out, Redacted)
		}
	}
	return out, out != s
}

// redactRun redacts every text of a run in place and returns how many values changed.
func redactRun(r *model.Run) int64 {
	var n int64
	fix := func(p *string) {
		if *p == "" {
			return
		}
		if out, changed := RedactText(*p); changed {
			*p = out
			n++
		}
	}
	for _, p := range []*string{&r.ID, &r.Source, &r.Title, &r.Request, &r.Summary, &r.Agent, &r.Model} {
		fix(p)
	}
	for i := range r.Steps {
		fix(&r.Steps[i].Name)
		fix(&r.Steps[i].Agent)
	}
	for i := range r.ToolCalls {
		c := &r.ToolCalls[i]
		fix(&c.Name)
		fix(&c.Category)
		fix(&c.Agent)
		fix(&c.Error)
	}
	for i := range r.Quality {
		fix(&r.Quality[i].Phase)
		fix(&r.Quality[i].Tool)
		fix(&r.Quality[i].Task)
	}
	for i := range r.Context.Refs {
		fix(&r.Context.Refs[i].Type)
		fix(&r.Context.Refs[i].Relevance)
		fix(&r.Context.Refs[i].UsageMode)
	}
	for i := range r.Context.Contributions {
		fix(&r.Context.Contributions[i])
	}
	for i := range r.Context.Subagents {
		fix(&r.Context.Subagents[i].Type)
	}
	return n
}

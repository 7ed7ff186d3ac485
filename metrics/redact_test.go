package metrics

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestRedactText(t *testing.T) {
	for in, want := range map[string]string{
		"key sk-ant-api03-AbCdEfGhIjKlMnOpQrSt_uv failed":                             "key [redacted] failed",
		"export OPENAI_API_KEY=sk-proj-1234567890abcdefghij":                          "export OPENAI_API_KEY=[redacted]",
		"aws AKIAIOSFODNN7EXAMPLE in config":                                          "aws [redacted] in config",
		"token ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 rejected":                     "token [redacted] rejected",
		"github_pat_11ABCDEFG0123456789_abcdefghijklmnop":                             "[redacted]",
		"slack xoxb-1234567890-abcdefghij":                                            "slack [redacted]",
		"Authorization: Bearer abc.def-ghi_jkl~mno+pqr/stu=":                          "Authorization: Bearer [redacted]",
		"clone https://alice:hunter2hunter2@example.com/repo.git":                     "clone https://alice:[redacted]@example.com/repo.git",
		"password=s3cr3tpass and more":                                                "password=[redacted] and more",
		"-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY----- tail": "[redacted] tail",
		"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N": "jwt [redacted]",
		// Any case, for the case-insensitive patterns (a global hint list once missed these).
		"BeArEr zyxwvutsrqponmlk1":        "BeArEr [redacted]",
		"PassWord: hunter2hunter2":        "PassWord: [redacted]",
		"x Api-Key=abcdefgh and sk-short": "x Api-Key=[redacted] and sk-short",
		// Names that hold a keyword, as environments and configs write them.
		"POSTGRES_PASSWORD=pg-s3cret-value":                                                     "POSTGRES_PASSWORD=[redacted]",
		"export DB_PASSWORD='hunter22'":                                                         "export DB_PASSWORD='[redacted]'",
		"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfi":                                    "AWS_SECRET_ACCESS_KEY=[redacted]",
		"client_secret=abcdef123456":                                                            "client_secret=[redacted]",
		"SECRET_KEY = django-insecure-abc123":                                                   "SECRET_KEY = [redacted]",
		`{"password": "hunter22", "user": "bob"}`:                                               `{"password": "[redacted]", "user": "bob"}`,
		`{"api_key":"abcdefgh12345"}`:                                                           `{"api_key":"[redacted]"}`,
		`headers {"x-api-key": "abcdefgh12345"}`:                                                `headers {"x-api-key": "[redacted]"}`,
		"-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF\n-----END PGP PRIVATE KEY BLOCK----- ok": "[redacted] ok",
		// Tokens glued to a word, and other kinds.
		"tokensk-ant-api03-AbCdEfGhIjKlMnOpQrSt":                                                            "token[redacted]",
		"xghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789":                                                         "x[redacted]",
		"stripe sk_live_51H8abcdefghijklmnopqrstu and rk_live_51H8abcdefghijklmnop":                         "stripe [redacted] and [redacted]",
		"whsec_abcdefghijklmnopqrstuvwxyz012345":                                                            "[redacted]",
		"gitlab glpat-abcdefghij0123456789":                                                                 "gitlab [redacted]",
		"hf_abcdefghijklmnopqrstuvwxyzABCDEFGH":                                                             "[redacted]",
		"//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789":                         "//registry.npmjs.org/:_authToken=[redacted]",
		"SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG":                             "[redacted]",
		"pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0LXV2d3h5ejAxMjM0NTY3":                         "[redacted]",
		"post to https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXX":                           "post to https://hooks.slack.com/services/[redacted]",
		"https://discord.com/api/webhooks/123456789/abcdefghijklmnop_qrstuv":                                "https://discord.com/api/webhooks/[redacted]",
		"DefaultEndpointsProtocol=https;AccountName=x;AccountKey=abcdefghijklmnopqrstuvwxyz0123456789+/==;": "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=[redacted];",
		"Authorization: Basic dXNlcjpwYXNzd29yZA==":                                                         "Authorization: Basic [redacted]",
		"dop_v1_" + strings.Repeat("a1", 32):                                                                "[redacted]",
		"shpat_" + strings.Repeat("ab12", 8):                                                                "[redacted]",
		// Two patterns in one text, the second case-insensitive after the first replaced.
		"sk-ant-api03-AbCdEfGhIjKlMnOpQrSt then AUTH_TOKEN=abcdefgh": "[redacted] then AUTH_TOKEN=[redacted]",
	} {
		got, changed := RedactText(in)
		if got != want || !changed {
			t.Errorf("RedactText(%q) = %q, want %q", in, got, want)
		}
	}
	// Near misses stay as they are.
	for _, s := range []string{"", "ask-me-anything", "task-runner", "skip sk-short", "https://example.com/path", "the key is missing",
		"ghost_town", "AKIA too short", "bearer of bad news", "password reset sent", "读取 sk 文件",
		"basic configuration steps", "tokens: 12345678", "monkey=abcdefgh", "task-runner-integration-tests", "keyboard: abcdefgh"} {
		if got, changed := RedactText(s); changed {
			t.Errorf("RedactText(%q) changed it to %q", s, got)
		}
	}
}

func TestRedactRun(t *testing.T) {
	a := NewAccumulator(Settings{Location: time.UTC})
	// A worker's second run finds the texts of its first remembered: they
	// are redacted and counted all the same.
	for i := range 2 {
		r := handRuns()[0]
		r.Title = "deploy with sk-live0123456789abcdefghij"
		r.ToolCalls[1].Error = "401 for Bearer abcdefghijklmnopqrstuvwxyz"
		r.ToolCalls = append(r.ToolCalls, r.ToolCalls[1]) // the same text twice: redacted and counted twice
		a.addKept(r, nil, false)                          // as a file's run is folded: redacted first, in place
		if n := a.Redacted; n != 3*int64(i+1) || strings.Contains(r.Title+r.ToolCalls[1].Error+r.ToolCalls[len(r.ToolCalls)-1].Error, "abcdefghij") {
			t.Errorf("run %d: redacted %d: %q %q", i, n, r.Title, r.ToolCalls[1].Error)
		}
	}
}

// Every text a pattern matches passes its pattern's test before lower-casing.
func TestSecretPatternsMay(t *testing.T) {
	for _, s := range []string{"Bearer abcdefghijklmnop", "AUTHORIZATION: BEARER\tabc.def-ghi~jkl", "password: hunter22", "PassWord\t=\n'hunter22'",
		"my api-KEY= abcdefgh", "access_token:abcdefgh", "Auth-Token =\"abcdefgh", "pwd=abcdefgh", "PASSWD :abcdefgh", "secret=abcdefgh"} {
		matched := false
		for _, p := range secretPatterns {
			if p.may != nil && p.re.MatchString(s) {
				matched = true
				if !p.may(s) {
					t.Errorf("%q matches %v, which its test rules out", s, p.re)
				}
			}
		}
		if !matched {
			t.Errorf("%q: no pattern with a test matches it", s)
		}
	}
	// Every keyword of the password pattern, each way it may be joined and cased.
	for _, kw := range []string{"password", "passwd", "pwd", "secret", "api%skey", "access%stoken", "auth%stoken"} {
		for _, sep := range []string{"", "_", "-"} {
			title := func(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
			for _, c := range []func(string) string{strings.ToLower, strings.ToUpper, title} {
				text := c(strings.ReplaceAll(kw, "%s", sep)) + " = abcdefgh"
				if !mayAssignKeyword(text) {
					t.Errorf("%q is ruled out by the password pattern's test", text)
				}
			}
		}
	}
	for _, s := range []string{"the key is here", "token 12345678", "width=100%", "a: b", "bear with me",
		"count: 12345678", "want = \"abcdefgh\"", "monkey=abcdefgh", "the token\nid: abcdefgh", "tokens: 12345678"} {
		for _, p := range secretPatterns {
			if p.may != nil && p.may(s) {
				t.Errorf("%q passes the test of %v", s, p.re)
			}
		}
	}
}

// FuzzRedact: redaction is idempotent, keeps text valid UTF-8, and no
// pattern matches a text its test rules out.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{"Bearer abcdefghijklmnop", "https://u:p4ssw0rd@h/x", "sk-abcdefghijklmnopqrstu", "password: hunter22", "-----BEGIN PRIVATE KEY-----\nx",
		"API_KEY \t= abcdefgh", "to\u212aen:abcdefgh", "pa\u017fsword=abcdefgh"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range secretPatterns {
			if p.may != nil && p.re.MatchString(s) && !p.may(s) {
				t.Fatalf("%q matches %v, which its test rules out", s, p.re)
			}
		}
		once, _ := RedactText(s)
		twice, changed := RedactText(once)
		if changed || twice != once {
			t.Fatalf("not idempotent: %q → %q → %q", s, once, twice)
		}
		if utf8.ValidString(s) && !utf8.ValidString(once) {
			t.Fatalf("%q redacted to invalid UTF-8 %q", s, once)
		}
	})
}

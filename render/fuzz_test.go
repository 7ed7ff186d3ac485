package render

import (
	"bytes"
	"html/template"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

var gfm = goldmark.New(goldmark.WithExtensions(extension.GFM))

var safeAutolink = regexp.MustCompile(`<a href="(?:https?://|mailto:)[^"<>]*">`)

// FuzzMarkdownText: whatever a log holds, an escaped cell stays one line,
// valid UTF-8, and renders through GFM as text: no HTML element, no link.
func FuzzMarkdownText(f *testing.F) {
	for _, s := range []string{"a|b", "<script>alert(1)</script>", "[x](javascript:y)", "**b** _i_ `c`", "line\nbreak", "&lt;", "\\|", "<http://x>", "www.example.com", "![i](x)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cell := MarkdownText(s)
		if strings.ContainsAny(cell, "\n\r") || !utf8.ValidString(cell) {
			t.Fatalf("cell %q is not one valid line", cell)
		}
		var out bytes.Buffer
		if err := gfm.Convert([]byte("| h |\n|---|\n| "+cell+" |\n"), &out); err != nil {
			t.Fatal(err)
		}
		html := out.String()
		body := html[strings.Index(html, "<tbody>")+len("<tbody>"):]
		body = strings.NewReplacer("<tr>", "", "</tr>", "", "<td>", "", "</td>", "", "</tbody>", "", "</table>", "", "</a>", "").Replace(body)
		body = safeAutolink.ReplaceAllString(body, "") // GFM autolinks plain web and mail addresses, as GitHub does
		if strings.Contains(body, "<") {
			t.Fatalf("%q renders markup: %s", s, html)
		}
		if c := strings.Count(html, "<td"); c != 1 && strings.TrimSpace(cell) != "" {
			t.Fatalf("%q renders %d cells: %s", s, c, html)
		}
	})
}

// FuzzHTMLText: text from a log reaches HTML through html/template (or
// appendCallRow, held to it by FuzzCallRow), in element content and in
// attributes; it never opens a tag or leaves a quote.
func FuzzHTMLText(f *testing.F) {
	tmpl := template.Must(template.New("").Parse(`<p title="{{.}}" data-option="{{.}}">{{.}}</p>`))
	for _, s := range []string{`"><img src=x onerror=alert(1)>`, "</p><script>", "javascript:alert(1)", "'\"&<>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b bytes.Buffer
		if err := tmpl.Execute(&b, s); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		inner := out[len(`<p `) : len(out)-len(`</p>`)]
		if strings.Count(out, "<") != 2 || strings.Count(inner, `"`) != 4 {
			t.Fatalf("%q escapes its context: %s", s, out)
		}
	})
}

// callRowTemplate is the calls table's row as run.html had it before
// appendCallRow: the reference appendCallRow must match byte for byte.
var callRowTemplate = template.Must(template.New("").Parse(`<tr><td class="num">{{.N}}</td><td class="text">{{.Name}}</td><td class="outcome-{{.Outcome}}">{{.Outcome}}</td><td class="text">{{.Agent}}</td><td class="time" data-sort="{{.StartedSort}}">{{.Started}}</td><td class="num" data-sort="{{.DurationSort}}">{{.Duration}}</td><td class="text">{{.Error}}</td></tr>
`))

// FuzzCallRow: a call row written by hand is the row html/template writes,
// whatever the log put in its fields, and opens no tag of its own.
func FuzzCallRow(f *testing.F) {
	for _, s := range []string{`"><img src=x onerror=alert(1)>`, "</td><script>", "a+b&c", "'\"&<>\x00", "\xff\xfe bad utf-8", "\ufdd0\uffff", "工具 🛠", ""} {
		f.Add(7, s, s+"x")
	}
	f.Fuzz(func(t *testing.T, n int, a, b string) {
		v := callView{N: n, Name: a, Outcome: b, Agent: a + b, Started: b, StartedSort: a, Duration: b, DurationSort: b + a, Error: a}
		var want bytes.Buffer
		if err := callRowTemplate.Execute(&want, &v); err != nil {
			t.Fatal(err)
		}
		got := appendCallRow(nil, &v)
		if string(got) != want.String() {
			t.Fatalf("row\n%s\nwant\n%s", got, want.String())
		}
		if c := bytes.Count(got, []byte("<")); c != 16 {
			t.Fatalf("%d tags in %s", c, got)
		}
	})
}

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

// FuzzHTMLText: text from a log reaches HTML through html/template, in
// element content and in attributes; it never opens a tag or leaves a quote.
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

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

	"github.com/agentstat/agentstat/analyze"
	"github.com/agentstat/agentstat/analyze/model"
	"github.com/agentstat/agentstat/templates"
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
var callRowTemplate = template.Must(template.New("").Parse(`<tr><td class="num">{{.N}}</td><td class="text">{{.Name}}</td><td class="text input">{{.Input}}</td><td class="outcome-{{.Outcome}}">{{.Outcome}}</td><td class="text">{{.Agent}}</td><td class="time" data-sort="{{.StartedSort}}">{{.Started}}</td><td class="num" data-sort="{{.DurationSort}}">{{.Duration}}</td><td class="text">{{.Error}}</td></tr>
`))

// FuzzCallRow: a call row written by hand is the row html/template writes,
// whatever the log put in its fields, and opens no tag of its own.
func FuzzCallRow(f *testing.F) {
	for _, s := range []string{`"><img src=x onerror=alert(1)>`, "</td><script>", "a+b&c", "'\"&<>\x00", "\xff\xfe bad utf-8", "\ufdd0\uffff", "工具 🛠", ""} {
		f.Add(7, s, s+"x")
	}
	f.Fuzz(func(t *testing.T, n int, a, b string) {
		v := callView{N: n, Name: a, Input: b + b, Outcome: b, Agent: a + b, Started: b, StartedSort: a, Duration: b, DurationSort: b + a, Error: a}
		var want bytes.Buffer
		if err := callRowTemplate.Execute(&want, &v); err != nil {
			t.Fatal(err)
		}
		got := appendCallRow(nil, &v)
		if string(got) != want.String() {
			t.Fatalf("row\n%s\nwant\n%s", got, want.String())
		}
		if c := bytes.Count(got, []byte("<")); c != 18 {
			t.Fatalf("%d tags in %s", c, got)
		}
	})
}

// runBodyTemplate is run.html's body as the template had it before
// appendRunBody, with base.html's "chart": the reference appendRunBody
// must match byte for byte.
var runBodyTemplate = template.Must(template.Must(template.New("").ParseFS(templates.FS, "base.html")).New("body").Parse(`<nav class="runnav"><a href="../index.html">← Dashboard</a>{{with .Nav}}{{if .ListHref}} · <a href="{{.ListHref}}">Runs of {{.ProjectLabel}}</a>
{{- if .ProjectHref}} · <a href="{{.ProjectHref}}">Project {{.ProjectLabel}}</a>{{end}}
{{- if .EarlierHref}} · <a rel="prev" href="{{.EarlierHref}}">‹ Earlier: {{.EarlierName}}</a>{{end}}
{{- if .LaterHref}} · <a rel="next" href="{{.LaterHref}}">Later: {{.LaterName}} ›</a>{{end}}{{end}}{{end}}</nav>
<h1>{{.Name}}</h1>
<dl class="facts">
<dt>Status</dt><dd class="status status-{{.Status}}">{{.Status}}</dd>
<dt>Run id</dt><dd>{{.ID}}</dd>
<dt>Format</dt><dd>{{.Format}}</dd>
<dt>Source</dt><dd>{{.Source}}</dd>
{{if .Agent}}<dt>Agent</dt><dd>{{.Agent}}</dd>{{end}}
{{if .Model}}<dt>Model</dt><dd>{{.Model}}</dd>{{end}}
<dt>Started</dt><dd>{{.Started}}</dd>
<dt>Ended</dt><dd>{{.Ended}}</dd>
<dt>Duration</dt><dd>{{.Duration}}</dd>
<dt>Tool calls</dt><dd>{{.CallCount}} ({{.ErrorCount}} {{if eq .ErrorCount "1"}}error{{else}}errors{{end}})</dd>
{{if .Tokens}}<dt>Tokens</dt><dd>{{.Tokens}}</dd>{{end}}
{{if .Cost}}<dt>Cost</dt><dd>{{.Cost}}</dd>{{end}}
{{if .Window}}<dt>Context window</dt><dd>{{.Window}}</dd>{{end}}
</dl>

{{if .Request}}<h2>Request</h2><pre class="text">{{.Request}}</pre>{{end}}
{{if .Summary}}<h2>Summary</h2><div class="markdown">{{.Summary}}</div>{{end}}

{{if .Timeline}}<h2>Timeline</h2>{{template "chart" .Timeline}}{{end}}

{{if .Calls}}<h2>Tool calls</h2>{{if .CallsNote}}
<p class="meta">{{.CallsNote}}</p>{{end}}
<div class="scroll"><table class="sortable"><thead><tr><th class="num">#</th><th>Tool</th><th>Input</th><th>Outcome</th><th>Agent</th><th>Started</th><th class="num">Duration</th><th>Error</th></tr></thead><tbody>
{{.Calls}}</tbody></table></div>{{end}}

{{if .Subagents}}<h2>Subagents</h2>
<div class="scroll"><table class="sortable"><thead><tr><th>Type</th><th class="num">Tool calls</th><th class="num">Requests</th><th class="num">Tokens</th><th class="num">Cost</th></tr></thead><tbody>
{{range .Subagents}}<tr><td class="text">{{.Type}}</td><td class="num">{{.Calls}}</td><td class="num">{{.Requests}}</td><td class="num">{{.Tokens}}</td><td class="num">{{.Cost}}</td></tr>
{{end}}</tbody></table></div>{{end}}

{{if .Steps}}<h2>Steps</h2>
<div class="scroll"><table><thead><tr><th class="num">#</th><th>Step</th><th>Status</th><th>Agent</th><th class="num">Duration</th></tr></thead><tbody>
{{range .Steps}}<tr><td class="num">{{.N}}</td><td class="text">{{.Name}}</td><td class="status">{{.Status}}</td><td class="text">{{.Agent}}</td><td class="num">{{.Duration}}</td></tr>
{{end}}</tbody></table></div>{{end}}

{{if .Quality}}<h2>Quality evaluations</h2>
<div class="scroll"><table class="sortable"><thead><tr><th>Phase</th><th>Task</th><th>Tool</th><th class="num">Score</th><th>Output valid</th></tr></thead><tbody>
{{range .Quality}}<tr><td class="text">{{.Phase}}</td><td class="text">{{.Task}}</td><td class="text">{{.Tool}}</td><td class="num">{{.Score}}</td><td>{{.Valid}}</td></tr>
{{end}}</tbody></table></div>{{end}}

{{if .Refs}}<h2>Context references</h2>
<div class="scroll"><table class="sortable"><thead><tr><th>Type</th><th>Relevance</th><th>Usage mode</th></tr></thead><tbody>
{{range .Refs}}<tr><td class="text">{{.Type}}</td><td class="text">{{.Relevance}}</td><td class="text">{{.UsageMode}}</td></tr>
{{end}}</tbody></table></div>{{end}}
`))

// templateRunBody is what runBodyTemplate writes for v.
func templateRunBody(t *testing.T, v *runPageView) string {
	t.Helper()
	data := struct {
		*runPageView
		Calls template.HTML
	}{v, template.HTML(v.Calls)}
	var b bytes.Buffer
	if err := runBodyTemplate.ExecuteTemplate(&b, "body", data); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// fuzzRunView is a run page's view with every text from a, b or both, and
// the optional parts that the bits of parts select.
func fuzzRunView(parts uint16, n int, a, b string) *runPageView {
	on := func(bit int, s string) string {
		if parts&(1<<bit) == 0 {
			return ""
		}
		return s
	}
	v := &runPageView{Name: a, ID: b, Status: a + b, Format: b, Source: a, Agent: on(0, b), Model: on(1, a),
		Started: a, Ended: b, Duration: a, CallCount: b, ErrorCount: a, Tokens: on(2, b), Cost: on(12, a), Window: on(13, b), Request: on(3, a+"\n"+b),
		Summary: template.HTML(on(4, "<p>"+a+"</p>")), CallsNote: on(6, b)}
	if parts&(1<<5) != 0 {
		v.Timeline = &chartView{ID: a, Title: b, Description: a, Option: `{"x":"` + b + `"}`, Size: on(9, b)}
	}
	if parts&(1<<7) != 0 {
		v.Calls = appendCallRow(nil, &callView{N: n, Name: a, Outcome: b, Error: a})
	}
	if parts&(1<<8) != 0 {
		v.Steps = []stepView{{N: n, Name: a, Status: b, Agent: a, Duration: b}, {N: -n, Name: b}}
	}
	if parts&(1<<10) != 0 {
		v.Quality = []evalView{{Phase: a, Task: b, Tool: a, Score: b, Valid: a}, {}}
	}
	if parts&(1<<11) != 0 {
		v.Refs = []model.ContextRef{{Type: a, Relevance: b, UsageMode: a + b}, {}}
	}
	if parts&(1<<14) != 0 { // hrefs as agentstat makes them: plain paths, url.Values fragments
		v.Nav = runNav{ListHref: "../runs.html#project=a%2Fb&x=1+2", ProjectLabel: a, ProjectHref: on(0, "../projects/a_b-0123.html"),
			EarlierHref: on(1, "x-1.html"), EarlierName: b, LaterHref: on(2, "y-2.html"), LaterName: a}
	}
	if parts&(1<<15) != 0 {
		v.Subagents = []subagentView{{Type: a, Calls: b, Tokens: a, Requests: b, Cost: a}, {}}
	}
	return v
}

// FuzzRunBody: a run page's body written by hand is the body html/template
// wrote, whatever the log put in its fields and whichever parts it has.
func FuzzRunBody(f *testing.F) {
	for _, s := range []string{`"><img src=x onerror=alert(1)>`, "</dd><script>", "a+b&c", "'\"&<>\x00", "\xff\xfe bad utf-8", "\ufdd0\uffff", "工具 🛠", ""} {
		f.Add(uint16(0), 3, s, s+"x")
		f.Add(uint16(0xffff), 7, "x"+s, s)
	}
	f.Add(uint16(0), 1, "1", "1") // one error: singular
	f.Fuzz(func(t *testing.T, parts uint16, n int, a, b string) {
		v := fuzzRunView(parts, n, a, b)
		want := templateRunBody(t, v)
		if got := appendRunBody(nil, v); string(got) != want {
			t.Fatalf("body\n%s\nwant\n%s", got, want)
		}
	})
}

// Every optional part of a run page, alone and all together, with text
// that html/template escapes, written as the template wrote it.
func TestRunBodySameAsTemplate(t *testing.T) {
	for _, parts := range []uint16{0, 0xffff, 0xffff &^ (1 << 9)} {
		for bit := range 16 {
			parts := parts ^ 1<<bit
			v := fuzzRunView(parts, 42, `<a href="x">&'+`, "b\x00\"c\">")
			if got, want := string(appendRunBody(nil, v)), templateRunBody(t, v); got != want {
				t.Errorf("parts %012b: body\n%s\nwant\n%s", parts, got, want)
			}
		}
	}
}

// FuzzRunRows: run table rows written by hand are the rows base.html's
// "runrows" writes, whatever the log put in their fields, links included.
func FuzzRunRows(f *testing.F) {
	for _, s := range []string{`"><img src=x onerror=alert(1)>`, "</td><script>", "a+b&c", "'\"&<>\x00", "\xff\xfe bad utf-8", "工具 🛠", "", "javascript:alert(1)", "runs/a_b-1.html", "//x.example/y", "a b?c#d%"} {
		f.Add(s, s+"x", true)
		f.Add(s, "runs/"+s, false)
	}
	f.Fuzz(func(t *testing.T, a, b string, plain bool) {
		href := b
		if plain {
			href = strings.Map(func(r rune) rune {
				if r < 128 && plainPath(string(r)) {
					return r
				}
				return -1
			}, b)
		}
		rows := []runRowView{
			{Name: a, Href: href, Status: b, Format: a, Project: b, Started: b, StartedSort: a, Duration: b, DurationSort: a, Source: b, ToolCalls: a, Errors: b, Tokens: a, Cost: b, CostSort: a},
			{Href: "runs/" + href},
			{Name: b, Href: a},
		}
		var want bytes.Buffer
		if err := pageTemplates.ExecuteTemplate(&want, "runrows", rows); err != nil {
			t.Fatal(err)
		}
		got, err := appendRunRows(nil, rows)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want.String() {
			t.Fatalf("rows\n%s\nwant\n%s", got, want.String())
		}
	})
}

// FuzzRunFrame: a run page written into its frame is the page run.html
// writes, whatever the log put in its title, with a chart or without.
func FuzzRunFrame(f *testing.F) {
	for _, s := range []string{`"><img src=x onerror=alert(1)>`, "</title><script>", "a+b&c", "'\"&<>\x00", "\xff\xfe bad utf-8", "\ufdd0\uffff", "工具 🛠", "", frameTitle, frameBody} {
		f.Add(s, "<p>"+s+"</p>", true)
		f.Add(s+" · agentstat", "", false)
	}
	f.Fuzz(func(t *testing.T, title, body string, chart bool) {
		h := &htmlWriter{r: &analyze.Report{Summary: analyze.Summary{GeneratedAt: "2026-11-25T20:00:00Z", TZ: "UTC+8"}}}
		var want, got bytes.Buffer
		data := runPageData{h.page(title, "../assets/", "runs/x.html", chart), template.HTML(body)}
		if err := pageTemplates.ExecuteTemplate(&want, "run.html", data); err != nil {
			t.Fatal(err)
		}
		fr := h.runFrameOf(chart)
		if fr == nil {
			t.Fatal("no frame")
		}
		if err := fr.write(&got, title, []byte(body)); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("page\n%s\nwant\n%s", got.String(), want.String())
		}
	})
}

// A page under --base-url names its own address: it has no shared frame.
func TestRunFrameCanonical(t *testing.T) {
	h := &htmlWriter{r: &analyze.Report{}, o: Options{BaseURL: "https://x.example/r"}}
	if h.runFrameOf(false) != nil || h.runFrameOf(true) != nil {
		t.Fatal("a frame with a canonical link")
	}
	h.o.BaseURL = ""
	if h.runFrameOf(false) == nil || h.runFrameOf(true) == nil || h.runFrameOf(true) == h.runFrameOf(false) {
		t.Fatal("no frame for each kind of page")
	}
}

package logformat

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// constants returns the values of the string constants whose names start
// with prefix in format.go, reader's warnings.go and jsonscan's value.go
// (the kinds its decoders warn of, which warnings.go names again).
func constants(t *testing.T, prefix string) []string {
	t.Helper()
	var out []string
	for _, name := range []string{"format.go", filepath.Join("jsonscan", "value.go"), filepath.Join("reader", "warnings.go")} {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, literals(f, prefix)...)
	}
	return out
}

// literals returns the values of f's string constants named prefix….
func literals(f *ast.File, prefix string) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok && len(vs.Names) == 1 && strings.HasPrefix(vs.Names[0].Name, prefix) && len(vs.Values) == 1 {
			if lit, ok := vs.Values[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				s, _ := strconv.Unquote(lit.Value)
				out = append(out, s)
			}
		}
		return true
	})
	return out
}

// docColumn returns the first column of the docs/metrics.md table whose header
// starts with header, backticks removed.
func docColumn(t *testing.T, header string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "docs", "metrics.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	in := false
	for line := range strings.Lines(string(b)) {
		switch {
		case strings.HasPrefix(line, "| "+header+" |"):
			in = true
		case in && strings.HasPrefix(line, "|---"):
		case in && strings.HasPrefix(line, "| `"):
			cell, _, _ := strings.Cut(strings.TrimPrefix(line, "| `"), "`")
			out = append(out, cell)
		case in:
			return out
		}
	}
	return out
}

// Every skip reason and warning kind the code can report is documented in
// docs/metrics.md, and nothing else is: the reasons in the order of Reasons.
func TestReasonsAndWarningsDocumented(t *testing.T) {
	reasons := constants(t, "Reason")
	if len(reasons) < 9 || !slices.Equal(slices.Sorted(slices.Values(reasons)), slices.Sorted(slices.Values(Reasons))) {
		t.Errorf("Reasons %q, constants %q", Reasons, reasons)
	}
	if got := docColumn(t, "skip reason"); !slices.Equal(got, Reasons) {
		t.Errorf("docs/metrics.md skip reasons %q, want %q", got, Reasons)
	}
	warns := constants(t, "Warn")
	if got := docColumn(t, "warning"); len(warns) < 15 || !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(warns))) {
		t.Errorf("docs/metrics.md warnings %q, constants %q", got, warns)
	}
}

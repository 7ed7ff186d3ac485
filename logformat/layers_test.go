package logformat

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/agentstat/agentstat/"

// imports are the packages the non-test files of dir import, by file name.
func imports(t *testing.T, dir string) map[string][]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			out[name] = append(out[name], path)
		}
	}
	return out
}

// Every format is a package of its own that imports no other format, nor
// logformat: what formats share is in reader (and jsonscan, clamp). The core
// names the format packages only to make the union of their documents
// (document.go) and to list them, each with its view (format.go).
func TestFormatPackagesStandAlone(t *testing.T) {
	formats := map[string]bool{}
	for _, f := range registry {
		formats[module+"logformat/"+f.Name] = true
	}
	for _, f := range registry {
		for file, paths := range imports(t, f.Name) {
			for _, p := range paths {
				if p == module+"logformat" || formats[p] || strings.HasPrefix(p, module+"logformat/") && !slices.Contains([]string{"reader", "jsonscan", "clamp"}, strings.TrimPrefix(p, module+"logformat/")) {
					t.Errorf("%s/%s imports %s: what formats share belongs in reader", f.Name, file, p)
				}
			}
		}
	}
	if len(formats) != 9 {
		t.Fatalf("%d formats in the registry", len(formats))
	}
	for file, paths := range imports(t, ".") {
		for _, p := range paths {
			if formats[p] && file != "document.go" && file != "format.go" {
				t.Errorf("%s imports the format package %s: only the union and the registry name formats", file, p)
			}
		}
	}
}

package logformat

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
)

// formatOfFile is the format whose files a file name begins with, "" for
// the core every format reads by.
func formatOfFile(name string) string {
	for _, f := range registry {
		if strings.HasPrefix(name, f.Name) {
			return f.Name
		}
	}
	return ""
}

// A format's files use the core's names and their own, never another
// format's: what two formats share is in package reader, so that a format
// can be read, changed or moved alone. The core names formats only to list
// them (format.go's registry) and to make the union of their documents
// (document.go).
func TestFormatsUseOnlyTheCore(t *testing.T) {
	// The union's members read by several formats whose types are one
	// format's: messages (Gemini CLI's and structmsg's), and phases, whose
	// elements hold session's members and structmsg's rounds.
	coreAllowed := func(file, name string) bool {
		switch file {
		case "format.go":
			return strings.HasSuffix(name, "Format")
		case "document.go":
			return strings.HasSuffix(name, "Fields") || name == "messages" || name == "phase" || name == "round"
		}
		return false
	}

	_, files := parsePackage(t)
	declaredBy := map[string]string{} // a top-level name's format, "" for the core's
	for name, f := range files {
		for _, d := range f.Decls {
			for _, id := range topLevelNames(d) {
				declaredBy[id] = formatOfFile(name)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		own := formatOfFile(name)
		seen := map[string]bool{}
		var walk func(n ast.Node) bool
		walk = func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr: // a field or method: its type says whose it is
				ast.Inspect(n.X, walk)
				return false
			case *ast.KeyValueExpr: // a struct literal's key is a field's name
				ast.Inspect(n.Value, walk)
				return false
			case *ast.Field: // its names are the struct's, the function's
				ast.Inspect(n.Type, walk)
				return false
			}
			return inspectUse(n, own, declaredBy, seen)
		}
		ast.Inspect(files[name], walk)
		for use := range seen {
			switch {
			case own == "" && !coreAllowed(name, use):
				t.Errorf("%s, a core file, uses %s, declared by %s: a format's code stays in its files", name, use, declaredBy[use])
			case own != "":
				t.Errorf("%s uses %s, declared by %s: move what two formats share to package reader", name, use, declaredBy[use])
			}
		}
	}
}

func inspectUse(n ast.Node, own string, declaredBy map[string]string, seen map[string]bool) bool {
	if id, ok := n.(*ast.Ident); ok {
		if by, ok := declaredBy[id.Name]; ok && by != "" && by != own {
			seen[id.Name] = true
		}
	}
	return true
}

// topLevelNames are the names a declaration gives at the package's level:
// its functions (not methods, not init), types, variables and constants.
func topLevelNames(d ast.Decl) []string {
	var names []string
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil && d.Name.Name != "init" { // every file may have an init; none is named
			names = append(names, d.Name.Name)
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				names = append(names, s.Name.Name)
			case *ast.ValueSpec:
				for _, id := range s.Names {
					if id.Name != "_" {
						names = append(names, id.Name)
					}
				}
			}
		}
	}
	return names
}

// A member in a format's <name>Fields is read by that format alone: through
// a *document, no other file names it (a member two formats read belongs
// in reader.Shared). No format's file here names the Fields of a format in
// a package of its own, embedded in the union as a field of its own.
func TestFormatsReadTheirOwnMembers(t *testing.T) {
	fset, files := parsePackage(t)
	memberOf := map[string]string{} // a Fields member's Go name: its format
	for name, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || !strings.HasSuffix(ts.Name.Name, "Fields") || formatOfFile(name) == "" {
				return true
			}
			for _, field := range ts.Type.(*ast.StructType).Fields.List {
				for _, id := range field.Names {
					memberOf[id.Name] = formatOfFile(name)
				}
			}
			return false
		})
	}
	packaged := map[string]string{} // the union's field holding a format package's Fields: the package
	ast.Inspect(files["document.go"], func(n ast.Node) bool {
		if f, ok := n.(*ast.Field); ok && len(f.Names) == 1 && f.Tag != nil && strings.Contains(f.Tag.Value, ",embed") {
			if sel, ok := f.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Fields" {
				packaged[f.Names[0].Name] = sel.X.(*ast.Ident).Name
			}
		}
		return true
	})
	for _, f := range registry { // every format's members are found, here or in its package
		if !slices.Contains(slices.Collect(maps.Values(memberOf)), f.Name) && !slices.Contains(slices.Collect(maps.Values(packaged)), f.Name) {
			t.Fatalf("found no Fields of %s: the test no longer finds them", f.Name)
		}
	}
	reported := map[token.Pos]bool{}
	for name, f := range files {
		own := formatOfFile(name)
		check := func(ft *ast.FuncType, body *ast.BlockStmt) {
			docs := map[string]bool{} // the function's parameters of type *document
			for _, p := range ft.Params.List {
				if star, ok := p.Type.(*ast.StarExpr); ok {
					if id, ok := star.X.(*ast.Ident); ok && id.Name == "document" {
						for _, n := range p.Names {
							docs[n.Name] = true
						}
					}
				}
			}
			ast.Inspect(body, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok || reported[sel.Pos()] {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); ok && docs[x.Name] {
					if by := memberOf[sel.Sel.Name]; by != "" && by != own {
						reported[sel.Pos()] = true
						t.Errorf("%s reads %s.%s, a member of %s's Fields", fset.Position(sel.Pos()), x.Name, sel.Sel.Name, by)
					}
					if by := packaged[sel.Sel.Name]; by != "" && own != "" {
						reported[sel.Pos()] = true
						t.Errorf("%s reads %s.%s, package %s's Fields", fset.Position(sel.Pos()), x.Name, sel.Sel.Name, by)
					}
				}
				return true
			})
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n.Body != nil {
					check(n.Type, n.Body)
				}
			case *ast.FuncLit: // a signature's match, a decoder's callback
				check(n.Type, n.Body)
			}
			return true
		})
	}
}

// parsePackage parses the package's non-test files, by file name.
func parsePackage(t *testing.T) (*token.FileSet, map[string]*ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = f
	}
	return fset, files
}

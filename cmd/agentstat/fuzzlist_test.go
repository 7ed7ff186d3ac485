package main

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Every fuzz target runs in make test: the Makefile lists each as
// package:target, and every failing input a fuzzer saved
// (testdata/fuzz/<target>) lies beside its target, where go test replays it.
func TestFuzzTargetsListed(t *testing.T) {
	root := filepath.Join("..", "..")
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, item := range strings.Fields(fuzzTargetsOf(t, string(mk))) {
		listed[item] = true
	}

	found := map[string]bool{} // package:target of every Fuzz function
	saved := map[string]bool{} // package:target of every saved input's directory
	fuzzFunc := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(`)
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir() && (strings.HasPrefix(d.Name(), ".") && rel != "." || rel == "enginetest" || rel == "examples" || d.Name() == "node_modules"):
			return filepath.SkipDir // hidden, a module of its own, or npm's
		case d.IsDir() && filepath.Base(filepath.Dir(path)) == "fuzz" && filepath.Base(filepath.Dir(filepath.Dir(path))) == "testdata":
			pkg, _ := filepath.Rel(root, filepath.Dir(filepath.Dir(filepath.Dir(path))))
			saved[filepath.ToSlash(pkg)+":"+d.Name()] = true
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(path, "_test.go"):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range fuzzFunc.FindAllStringSubmatch(string(b), -1) {
				found[filepath.ToSlash(filepath.Dir(rel))+":"+m[1]] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) < 10 {
		t.Fatalf("only %d fuzz targets found", len(found))
	}
	if got, want := slices.Sorted(maps.Keys(listed)), slices.Sorted(maps.Keys(found)); !slices.Equal(got, want) {
		t.Errorf("the Makefile lists\n%q\nthe tests hold\n%q", got, want)
	}
	for s := range saved {
		if !found[s] {
			t.Errorf("saved inputs of %s, which has no fuzz target there: go test never replays them", s)
		}
	}
}

// fuzzTargetsOf is the Makefile's FUZZ_TARGETS, its lines joined and each
// $(addprefix p,list) written out.
func fuzzTargetsOf(t *testing.T, mk string) string {
	t.Helper()
	_, def, ok := strings.Cut(mk, "FUZZ_TARGETS :=")
	if !ok {
		t.Fatal("no FUZZ_TARGETS in the Makefile")
	}
	var b strings.Builder
	for line := range strings.Lines(def) {
		line = strings.TrimRight(line, "\n")
		cont := strings.HasSuffix(line, "\\")
		b.WriteString(strings.TrimSuffix(line, "\\") + " ")
		if !cont {
			break
		}
	}
	addprefix := regexp.MustCompile(`\$\(addprefix ([^,]+),([^)]*)\)`)
	return addprefix.ReplaceAllStringFunc(b.String(), func(m string) string {
		p := addprefix.FindStringSubmatch(m)
		var out []string
		for _, item := range strings.Fields(p[2]) {
			out = append(out, p[1]+item)
		}
		return strings.Join(out, " ")
	})
}

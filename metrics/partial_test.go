package metrics

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentstat/agentstat/discover"
	"github.com/agentstat/agentstat/internal/logsynth"
)

// outcome is everything a report is rendered from, as bytes.
type outcome struct {
	summary, index []byte
	details        []byte
	runs           int64
}

func outcomeOf(t *testing.T, acc *Accumulator) outcome {
	t.Helper()
	rep := acc.Report(time.Unix(1700000000, 0), "")
	s, err := json.Marshal(struct {
		Summary
		ToolDetails map[string]*ToolDetail
	}{rep.Summary, rep.ToolDetails})
	if err != nil {
		t.Fatal(err)
	}
	idx, err := json.Marshal(rep.Runs.Rows())
	if err != nil {
		t.Fatal(err)
	}
	var det bytes.Buffer
	enc := gob.NewEncoder(&det)
	for r, err := range rep.Details.All() {
		if err != nil {
			t.Fatal(err)
		}
		r.FileOrd = 0 // joined runs carry MaxInt, the same on both sides; keep the bytes small
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	return outcome{summary: s, index: idx, details: det.Bytes(), runs: rep.Summary.Runs.Total}
}

func samePass(t *testing.T, label string, got, want outcome) {
	t.Helper()
	if !bytes.Equal(got.summary, want.summary) {
		t.Errorf("%s: summary differs from the single pass:\n got %.600s\nwant %.600s", label, got.summary, want.summary)
	}
	if !bytes.Equal(got.index, want.index) {
		t.Errorf("%s: run index differs from the single pass", label)
	}
	if !bytes.Equal(got.details, want.details) {
		t.Errorf("%s: run details differ from the single pass (order or content)", label)
	}
}

// writePartialCovering writes a partial that says it covers shards.
func writePartialCovering(t *testing.T, acc *Accumulator, path, shards string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// Each file's name in it: the same state twice is otherwise the same bytes, refused as one partial given twice.
	if err := acc.WritePartial(f, PartialInfo{Agentstat: "test " + filepath.Base(path), Shard: shards}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// Property: any split of a tree into 1–8 shards (the files of one run
// wherever they land, shards left empty), each written as a partial and
// merged in any order and in any tree of merges, equals the single pass.
func TestPartialsMergeToSinglePass(t *testing.T) {
	defaultCallChunk := callChunk
	defer func() { callChunk = defaultCallChunk }()
	synth := t.TempDir()
	if _, err := logsynth.Generate(context.Background(), synth, logsynth.Options{Size: 3e6, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	roots := []string{testdataLogs, synth}
	if corpus := filepath.Join("..", "..", "shared", "corpus"); dirExists(corpus) {
		roots = append(roots, corpus)
	} else {
		t.Log("../shared/corpus is absent: the property is checked on testdata/ and a generated tree")
	}
	loc, _ := time.LoadLocation("Asia/Shanghai")
	type tree struct {
		root   string
		noText bool // the waiting records then travel with their texts withheld
	}
	trees := []tree{{roots[0], true}}
	for _, r := range roots {
		trees = append(trees, tree{root: r})
	}
	for _, tr := range trees {
		root := tr.root
		callChunk = defaultCallChunk
		base := Settings{Location: loc, KeepDetails: true, NoText: tr.noText}
		single := joinTree(t, base, root)
		want := outcomeOf(t, single)
		single.Close()
		if want.runs < 10 {
			t.Fatalf("%s: only %d runs", root, want.runs)
		}
		rng := rand.New(rand.NewPCG(1, uint64(len(root)+len(trees))))
		for trial := range 6 {
			// Odd trials spill and carry calls two at a time: every run of
			// more calls than that crosses chunks in the spill and the partial.
			callChunk = []int{defaultCallChunk, 2}[trial%2]
			n := 1 + rng.IntN(8)
			salt := fmt.Sprint(rng.Uint64())
			dir := t.TempDir()
			var paths []string
			for i := 1; i <= n; i++ {
				shard := discover.Shard{Index: i, Count: n, Salt: salt}
				acc := readTree(t, base, shard, root)
				p := filepath.Join(dir, fmt.Sprintf("part-%d.agentstat", i))
				writePartialCovering(t, acc, p, shard.String())
				acc.Close()
				paths = append(paths, p)
			}
			rng.Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
			label := fmt.Sprintf("%s (no text: %v), %d shards (trial %d)", filepath.Base(root), tr.noText, n, trial)
			samePass(t, label, mergedOutcome(t, paths), want)

			// Associative: merge random groups into partials until one is left.
			for round := 0; len(paths) > 1; round++ {
				k := 1 + rng.IntN(len(paths))
				first, err := MergePartials(paths[:k], true, nil)
				if err != nil {
					t.Fatal(err)
				}
				mid := filepath.Join(dir, fmt.Sprintf("merged-%d.agentstat", round))
				writePartialCovering(t, first.Acc, mid, first.Covered)
				first.Acc.Close()
				paths = append(paths[k:], mid)
				rng.Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
			}
			samePass(t, label+" in a tree of merges", mergedOutcome(t, paths), want)
		}
	}
}

// A partial made with --no-text holds none of the texts the logs' runs
// have (prompts, tool inputs, error texts), not even in the records that
// wait for a join; made without, it holds them.
func TestNoTextPartialHoldsNoText(t *testing.T) {
	acc := joinTree(t, Settings{KeepDetails: true, KeepSecrets: true}, testdataLogs)
	texts := map[string]bool{}
	for r, err := range acc.Details().All() {
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range r.ToolCalls {
			texts[c.Input], texts[c.Error] = true, true
		}
		texts[r.Request] = true
	}
	acc.Close()
	for s := range texts {
		if len(s) < 12 { // short ones are names and words any file holds
			delete(texts, s)
		}
	}
	if len(texts) < 10 {
		t.Fatalf("only %d texts to look for", len(texts))
	}
	held := func(noText bool) (n int) {
		acc := readTree(t, Settings{KeepDetails: true, KeepSecrets: true, NoText: noText}, discover.Shard{}, testdataLogs)
		p := filepath.Join(t.TempDir(), "p.agentstat")
		writePartialCovering(t, acc, p, "")
		acc.Close()
		b, _ := os.ReadFile(p)
		zr, err := gzip.NewReader(bytes.NewReader(b[len(partialMagic):]))
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		for s := range texts {
			if bytes.Contains(raw, []byte(s)) {
				if noText {
					t.Errorf("--no-text partial holds %q", s)
				}
				n++
			}
		}
		return n
	}
	if n := held(false); n < len(texts)/2 {
		t.Fatalf("a partial with texts holds only %d of %d: the search finds nothing", n, len(texts))
	}
	held(true)
}

// mergedOutcome merges the partials at paths and joins what waits, as
// agentstat merge does.
func mergedOutcome(t *testing.T, paths []string) outcome {
	t.Helper()
	m, err := MergePartials(paths, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Acc.Close()
	if err := m.Acc.Join(); err != nil {
		t.Fatal(err)
	}
	return outcomeOf(t, m.Acc)
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// Corrupt, truncated, foreign and mismatched partials are refused.
func TestPartialRefused(t *testing.T) {
	dir := t.TempDir()
	acc := joinTree(t, Settings{KeepDetails: true}, testdataLogs)
	defer acc.spill.Close()
	good := filepath.Join(dir, "good")
	writePartialCovering(t, acc, good, "")
	data, _ := os.ReadFile(good)
	berlin, _ := time.LoadLocation("Europe/Berlin")
	inBerlin := joinTree(t, Settings{Location: berlin, KeepDetails: true}, testdataLogs)
	defer inBerlin.spill.Close()
	otherTZ := filepath.Join(dir, "berlin")
	writePartialCovering(t, inBerlin, otherTZ, "")

	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	flipped := bytes.Clone(data)
	flipped[len(flipped)/2] ^= 0x40
	covering := func(name, shards string) string {
		p := filepath.Join(dir, name)
		writePartialCovering(t, acc, p, shards)
		return p
	}
	var member bytes.Buffer
	zw := gzip.NewWriter(&member)
	zw.Write([]byte("more"))
	zw.Close()
	cases := map[string]struct {
		paths []string
		want  string
	}{
		"truncated":    {[]string{write("truncated", data[:len(data)*2/3])}, "corrupt"},
		"flipped byte": {[]string{write("flipped", flipped)}, "corrupt"},
		"empty":        {[]string{write("empty", nil)}, "no agentstat.partial/v6 header"},
		"summary.json": {[]string{write("summary.json", []byte(`{"schema":"agentstat.summary/v1"}`))}, "no agentstat.partial/v6 header"},
		"older schema": {[]string{write("v1", append([]byte("agentstat.partial/v1\n"), data[len(partialMagic):]...))}, `schema "agentstat.partial/v1"`},
		"v4":           {[]string{write("v4", append([]byte("agentstat.partial/v4\n"), data[len(partialMagic):]...))}, `carries no records waiting for a join`},
		"v5":           {[]string{write("v5", append([]byte("agentstat.partial/v5\n"), data[len(partialMagic):]...))}, `its state is in an earlier form`},
		"newer schema": {[]string{write("v7", append([]byte("agentstat.partial/v7\n"), data[len(partialMagic):]...))}, `schema "agentstat.partial/v7"`},
		"other tz":     {[]string{good, otherTZ}, "--tz Europe/Berlin"},
		"given twice":  {[]string{good, good}, "the same partial as"},
		"a copy":       {[]string{good, write("copy", data)}, "the same partial as"},
		"shard twice":  {[]string{covering("a1", "1/3"), covering("b1", "1/3")}, "shard 1/3 is also in"},
		"in a merge":   {[]string{covering("m12", "1/3,2/3"), covering("c2", "2/3")}, "shard 2/3 is also in"},
		"other splits": {[]string{covering("d1", "1/3"), covering("e2", "2/4")}, "split into 4"},
		"bad shard":    {[]string{covering("f", "4/3")}, `shard "4/3"`},
		"two members":  {[]string{write("members", append(bytes.Clone(data), member.Bytes()...))}, "data after its end"},
		"none":         {nil, "no partial files"},
	}
	for name, c := range cases {
		m, err := MergePartials(c.paths, true, nil)
		if err == nil {
			m.Acc.spill.Close()
			t.Errorf("%s: merged", name)
			continue
		}
		if !errors.Is(err, ErrPartial) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q, want ErrPartial mentioning %q", name, err, c.want)
		}
	}
	if m, err := MergePartials([]string{good}, true, nil); err != nil {
		t.Errorf("good partial refused: %v", err)
	} else {
		m.Acc.spill.Close()
	}
}

// Every map the tally holds is a gobMap (or writes itself in order): gob
// writes a plain map in Go's random order, and a partial would differ in
// its bytes from one run to the next.
func TestTallyMapsInOrder(t *testing.T) {
	encoder := reflect.TypeFor[gob.GobEncoder]()
	seen := map[reflect.Type]bool{}
	var walk func(ty reflect.Type, path string)
	walk = func(ty reflect.Type, path string) {
		if seen[ty] {
			return
		}
		seen[ty] = true
		if ty.Implements(encoder) || reflect.PointerTo(ty).Implements(encoder) {
			if ty.Kind() == reflect.Map {
				walk(ty.Elem(), path+"[k]")
			}
			return
		}
		switch ty.Kind() {
		case reflect.Map:
			t.Errorf("%s is a %s, which gob writes in random order: make it a gobMap", path, ty)
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(ty.Elem(), path+"[]")
		case reflect.Struct:
			for i := range ty.NumField() {
				if f := ty.Field(i); f.IsExported() {
					walk(f.Type, path+"."+f.Name)
				}
			}
		}
	}
	walk(reflect.TypeFor[tally](), "tally")
	if !seen[reflect.TypeFor[toolAcc]()] {
		t.Error("the walk did not reach the values of a gobMap (a tool's figures)")
	}
}

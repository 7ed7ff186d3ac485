package logformat

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/join"
	"github.com/agentstat/agentstat/logformat/formattest"
	"github.com/agentstat/agentstat/model"
)

// fragmentsOf reads every file of the formats joined across files in
// testdata/logs onto spill, and returns their fragments and the runs the
// join makes of them.
func fragmentsOf(t testing.TB, spill *recordspill.File) []*join.Fragment {
	c := formattest.NewCollector()
	for _, dir := range []string{"claudecode", "codex", "otel", "gemini", "planagent"} {
		root := filepath.Join("..", "testdata", "logs", dir)
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(filepath.Join("..", "testdata", "logs"), p)
			Read(bytes.NewReader(b), filepath.ToSlash(rel), Options{Spill: spill}, c)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return c.Frags
}

func encodeFragments(t testing.TB, frags []*join.Fragment, noText bool) []byte {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	for _, f := range frags {
		if err := join.EncodeFragment(w, f, time.UTC, noText); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	return buf.Bytes()
}

func decodeFragments(data []byte, spill *recordspill.File) ([]*join.Fragment, error) {
	r := bufio.NewReader(bytes.NewReader(data))
	var frags []*join.Fragment
	for {
		if _, err := r.Peek(1); err != nil {
			return frags, nil
		}
		f, err := join.DecodeFragment(r, spill)
		if err != nil {
			return frags, err
		}
		frags = append(frags, f)
	}
}

// Fragments written into a partial and read back join to the same runs,
// whether their records waited on a spill or in memory.
func TestFragmentRoundTrip(t *testing.T) {
	for _, spilled := range []bool{true, false} {
		var src *recordspill.File
		if spilled {
			var err error
			if src, err = recordspill.New(time.UTC); err != nil {
				t.Fatal(err)
			}
			defer src.Close()
		}
		want, _ := formattest.JoinAll(fragmentsOf(t, src), formattest.NewCollector())
		frags := fragmentsOf(t, src)
		data := encodeFragments(t, frags, false)
		dst, err := recordspill.New(time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		defer dst.Close()
		back, err := decodeFragments(data, dst)
		if err != nil || len(back) != len(frags) {
			t.Fatalf("spilled %v: %d of %d fragments back: %v", spilled, len(back), len(frags), err)
		}
		got, _ := formattest.JoinAll(back, formattest.NewCollector())
		if len(want) < 5 || !reflect.DeepEqual(runsOf(got), runsOf(want)) {
			t.Errorf("spilled %v: %d runs joined from the fragments read back, %d from those read", spilled, len(got), len(want))
		}
		if err := dst.Err(); err != nil {
			t.Error(err)
		}
	}
}

func runsOf(runs []*model.Run) []model.Run {
	out := make([]model.Run, len(runs))
	for i, r := range runs {
		out[i] = *r
	}
	return out
}

// A damaged fragment is refused or read as something, never a crash, and
// nothing joined from it crashes either.
func FuzzDecodeFragment(f *testing.F) {
	spill, err := recordspill.New(time.UTC)
	if err != nil {
		f.Fatal(err)
	}
	defer spill.Close()
	frags := fragmentsOf(f, spill)
	f.Add(encodeFragments(f, frags, false))
	f.Add(encodeFragments(f, frags, true))
	for _, fr := range frags {
		f.Add(encodeFragments(f, []*join.Fragment{fr}, false))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dst, err := recordspill.New(time.UTC)
		if err != nil {
			t.Skip(err)
		}
		defer dst.Close()
		back, err := decodeFragments(data, dst)
		if err != nil && !errors.Is(err, join.ErrFragment) && !strings.HasPrefix(err.Error(), "record spill") {
			t.Fatalf("error not marked: %v", err)
		}
		runs, _ := formattest.JoinAll(back, formattest.NewCollector())
		for _, r := range runs {
			checkRunInvariants(t, r)
		}
	})
}

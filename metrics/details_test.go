package metrics

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentstat/agentstat/model"
)

// Pages gives All's runs whether a run's calls come whole or are read in
// chunks, read only in part, or not read at all.
func TestDetailPages(t *testing.T) {
	defer func(n int) { callChunk = n }(callChunk)
	callChunk = 2 // runs of several chunks
	r := reportOf(t, Settings{KeepDetails: true}, testdataLogs)
	defer r.Details.Close()
	var want []*model.Run
	for run, err := range r.Details.All() {
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, run)
	}
	for _, mode := range []string{"whole", "read", "first chunk", "skipped"} {
		whole := 0
		if mode == "whole" {
			whole = 1 << 30
		}
		i, long := 0, 0
		for pr, err := range r.Details.Pages(whole) {
			if err != nil {
				t.Fatal(err)
			}
			w := want[i]
			i++
			if pr.Calls != len(w.ToolCalls) || (pr.Read == nil) != (pr.Calls <= whole) {
				t.Fatalf("%s: run %s: %d calls, read %v", mode, w.ID, pr.Calls, pr.Read != nil)
			}
			got := pr.Run
			if pr.Read != nil {
				long++
				switch mode {
				case "read":
					err = pr.Read(func(chunk []model.ToolCall) bool { got.ToolCalls = append(got.ToolCalls, chunk...); return true })
				case "first chunk":
					err = pr.Read(func(chunk []model.ToolCall) bool { got.ToolCalls = append(got.ToolCalls, chunk[:1]...); return false })
					w = &model.Run{}
					*w = *want[i-1]
					w.ToolCalls = w.ToolCalls[:1]
				case "skipped":
					w = &model.Run{}
					*w = *want[i-1]
					w.ToolCalls = nil
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if !reflect.DeepEqual(got, w) {
				t.Fatalf("%s: run %s differs", mode, w.ID)
			}
		}
		if i != len(want) || (mode != "whole" && long == 0) {
			t.Fatalf("%s: %d runs of %d, %d long", mode, i, len(want), long)
		}
	}
}

// A run-details spill cut short gives Pages' caller an error, however it
// stops (on Read's error, or at its first long run), and never a yield
// after it stopped.
func TestDetailPagesCut(t *testing.T) {
	defer func(n int) { callChunk = n }(callChunk)
	callChunk = 2
	size := int64(0)
	for cut := int64(1); size == 0 || cut < size; cut += max(size/60, 1) {
		for _, stop := range []string{"on error", "at the first long run"} {
			r := reportOf(t, Settings{KeepDetails: true}, testdataLogs)
			f := r.Details.files[0] // the worker's: its runs come first
			if fi, err := f.Stat(); err != nil {
				t.Fatal(err)
			} else {
				size = fi.Size()
			}
			f.Truncate(cut)
			var failed error
			for pr, err := range r.Details.Pages(0) {
				if err != nil {
					failed = err
					break
				}
				if pr.Read == nil {
					continue
				}
				if stop == "at the first long run" {
					break
				}
				if err := pr.Read(func([]model.ToolCall) bool { return true }); err != nil {
					failed = err
					break
				}
			}
			r.Details.Close()
			if stop == "on error" && failed == nil {
				t.Errorf("cut at %d of %d: no error", cut, size)
			}
		}
	}
}

// Page names are never a name Windows reads as a device, with or without
// an extension.
func TestSafeNameNotDevice(t *testing.T) {
	for in, want := range map[string]string{
		"nul.html": "run-nul.html", "LPT1.txt": "run-LPT1.txt", "con": "run-con", "Aux.tar.gz": "run-Aux.tar.gz",
		"com0": "run-com0", "lpt10": "lpt10", "console": "console", "nul-1": "nul-1", "COM": "COM",
	} {
		if got := SafeName(in, 48); got != want {
			t.Errorf("SafeName(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzSafeName: a page name made from any run id is a portable, harmless file name.
func FuzzSafeName(f *testing.F) {
	for _, s := range []string{"../../etc/passwd", "CON", "a\x00b\nc", strings.Repeat("x", 5000), "..", ".hidden", "日本語", "", "nul.html", "LPT1.txt", "com7." + strings.Repeat("y", 60)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := SafeName(s, 48)
		if n == "" || len(n) > 48 || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "-") || windowsDevice(n) {
			t.Fatalf("SafeName(%q) = %q", s, n)
		}
		for _, c := range n {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
				t.Fatalf("SafeName(%q) = %q has %q", s, n, c)
			}
		}
	})
}

// write writes a run and its calls.
func (w *detailWriter) write(r *model.Run) {
	w.writeRun(r, len(r.ToolCalls))
	w.writeCalls(r.ToolCalls)
}

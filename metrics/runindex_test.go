package metrics

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentstat/agentstat/model"
)

// randomRows are rows of every shape the index packs: page names made by
// RunPage and others (from a partial), times zero and in every kind of
// zone, durations absent and present, ids longer than a block, repeats of
// source, id and start that only the page name orders.
func randomRows(rng *rand.Rand, n int, home *time.Location) []RunRow {
	parsed, err := time.Parse(time.RFC3339Nano, "2026-03-01T10:00:00.123456789+08:00")
	if err != nil {
		panic(err)
	}
	shanghai := time.FixedZone("CST", 8*3600)
	times := []time.Time{{}, parsed, parsed.UTC(), parsed.In(time.Local), parsed.In(home), parsed.In(shanghai),
		parsed.Add(time.Nanosecond), parsed.Add(-time.Nanosecond).In(shanghai),
		time.Date(1600, 1, 1, 0, 0, 0, 1, time.UTC), time.Date(2400, 12, 31, 23, 59, 59, 999999999, shanghai)}
	pick := func(s ...string) string { return s[rng.IntN(len(s))] }
	rows := make([]RunRow, n)
	for i := range rows {
		r := model.Run{Format: pick("claudecode", "codex", ""), Source: pick("a.jsonl", "b/c.json", "日志/x.json", ""),
			Seq: rng.IntN(3), ID: pick("s1", "s2", "id with spaces/和中文", "")}
		if rng.IntN(50) == 0 {
			r.ID = strings.Repeat("long", indexBlock/3)
		}
		row := RunRow{ID: r.ID, Format: r.Format, Source: r.Source, Page: RunPage(&r), Title: pick("", "fix the build", "<script>"),
			Status: pick("success", "error"), Agent: pick("", "coder"), Model: pick("", "claude"),
			Started:   times[rng.IntN(len(times))].Add(time.Duration(rng.IntN(3)) * time.Hour),
			ToolCalls: rng.IntN(1 << 20), Errors: rng.IntN(5), Steps: rng.IntN(9), Tokens: rng.Int64() - 1<<62}
		switch rng.IntN(4) {
		case 0:
			row.Page = pick("", "x.html", "run-0123456789ab.html", "s1-0123456789ab.html", "s1-0123456789AB.html")
		case 1:
			ms := rng.Float64() * 1e7
			row.DurationMS = &ms
		case 2:
			ms := 0.0
			row.DurationMS = &ms
		}
		rows[i] = row
	}
	return rows
}

func TestRunIndexRoundTrip(t *testing.T) {
	home, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no zone database:", err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rows := randomRows(rng, 400, home)
	x := RunIndex{home: home}
	for i := range rows {
		x.add(&rows[i])
	}
	if x.Len() != len(rows) {
		t.Fatalf("%d rows for %d", x.Len(), len(rows))
	}
	for i, want := range rows {
		got := x.At(i)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("row %d:\n got %+v\nwant %+v", i, got, want)
		}
		gn, go_ := got.Started.Zone()
		wn, wo := want.Started.Zone()
		if got.Started.Location() == home && want.Started.Location() != home || gn != wn || go_ != wo {
			t.Errorf("row %d: zone %s %d (%v), want %s %d (%v)", i, gn, go_, got.Started.Location(), wn, wo, want.Started.Location())
		}
	}
	if len(x.zones) > 8 {
		t.Errorf("%d zones kept for 5 kinds of times", len(x.zones))
	}
	var merged RunIndex
	var a, b RunIndex
	for i := range rows {
		if i%3 == 0 {
			a.add(&rows[i])
		} else {
			b.add(&rows[i])
		}
	}
	merged.Merge(&a)
	merged.Merge(&b)
	want := slices.Concat(a.Rows(), b.Rows())
	if got := merged.Rows(); !reflect.DeepEqual(got, want) {
		t.Error("a merge changes the rows")
	}
	if (*RunIndex)(nil).Len() != 0 || len((*RunIndex)(nil).Rows()) != 0 || len((*RunIndex)(nil).NewestFirst()) != 0 {
		t.Error("a nil index is not empty")
	}
}

// The index's orders are those of the rows themselves: by source, id,
// start and page name; and newest first, then by source and id, then in
// index order.
func TestRunIndexOrders(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		rows := randomRows(rng, 1+rng.IntN(300), time.UTC)
		x := NewRunIndex(rows...)

		newest := make([]int32, len(rows))
		for i := range newest {
			newest[i] = int32(i)
		}
		slices.SortStableFunc(newest, func(i, j int32) int {
			a, b := &rows[i], &rows[j]
			return cmp.Or(b.Started.Compare(a.Started), cmp.Compare(a.Source, b.Source), cmp.Compare(a.ID, b.ID))
		})
		if got := x.NewestFirst(); !slices.Equal(got, newest) {
			t.Fatalf("seed %d: newest first %v, want %v", seed, got[:min(10, len(got))], newest[:min(10, len(newest))])
		}

		sorted := slices.Clone(rows)
		slices.SortFunc(sorted, func(x, y RunRow) int {
			return cmp.Or(cmp.Compare(x.Source, y.Source), cmp.Compare(x.ID, y.ID), x.Started.Compare(y.Started), cmp.Compare(x.Page, y.Page))
		})
		x.sort()
		got := x.Rows()
		key := func(r RunRow) string { // what orders rows; rows equal in it may come in any order
			return fmt.Sprintf("%q %q %d.%09d %q", r.Source, r.ID, r.Started.Unix(), r.Started.Nanosecond(), r.Page)
		}
		for i := range got {
			if key(got[i]) != key(sorted[i]) {
				t.Fatalf("seed %d: sorted row %d is %s, want %s", seed, i, key(got[i]), key(sorted[i]))
			}
		}
		// Find finds each row by source, id and page: the first of rows equal in all three.
		for i, r := range got {
			at, ok := x.Find(r.Source, r.ID, r.Page)
			if first := slices.IndexFunc(got, func(o RunRow) bool { return o.Source == r.Source && o.ID == r.ID && o.Page == r.Page }); !ok || at != first {
				t.Fatalf("seed %d: Find(row %d) = %d, %v; want %d", seed, i, at, ok, first)
			}
		}
		if _, ok := x.Find("no such source", "s1", "s1.html"); ok {
			t.Fatalf("seed %d: found a run not in the index", seed)
		}
	}
}

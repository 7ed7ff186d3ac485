// Package enginetest checks the Parquet tables of `agentstat export` and
// docs/sql/metrics.sql in a real engine, DuckDB, against summary.json. It is
// a module of its own so that agentstat itself stays pure Go: DuckDB needs cgo.
package enginetest

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	_ "github.com/marcboeker/go-duckdb/v2"

	"github.com/agentstat/agentstat/discover"
	"github.com/agentstat/agentstat/internal/logsynth"
	"github.com/agentstat/agentstat/metrics"
	"github.com/agentstat/agentstat/pipeline"
	"github.com/agentstat/agentstat/render"
)

// figures reads docs/sql/metrics.sql: each statement follows a "-- figure: NAME" line.
func figures(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "docs", "sql", "metrics.sql"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	parts := regexp.MustCompile(`(?m)^-- figure: (\w+)\n`).Split(string(b), -1)
	names := regexp.MustCompile(`(?m)^-- figure: (\w+)\n`).FindAllStringSubmatch(string(b), -1)
	for i, m := range names {
		out[m[1]] = strings.TrimSuffix(strings.TrimSpace(parts[i+1]), ";")
	}
	return out
}

// rows runs a query and returns its rows as column → value maps.
func rows(t *testing.T, db *sql.DB, query string) []map[string]any {
	t.Helper()
	rs, err := db.Query(query)
	if err != nil {
		t.Fatalf("%v\n%s", err, query)
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	var out []map[string]any
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		m := map[string]any{}
		for i, c := range cols {
			m[c] = vals[i]
		}
		out = append(out, m)
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// number turns an engine value (integer, float, decimal, nil) into a float.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case nil:
		return 0, false
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	case float64:
		return x, true
	case fmt.Stringer: // decimals and big integers
		var f float64
		_, err := fmt.Sscan(x.String(), &f)
		return f, err == nil
	}
	var f float64
	_, err := fmt.Sscan(fmt.Sprint(v), &f)
	return f, err == nil
}

// lookup follows a dotted path through decoded summary.json.
func lookup(v any, path string) any {
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// check compares an engine value with a summary.json value: both null, or
// equal within tol (relative; 1e-9 covers float summation order).
func check(t *testing.T, what string, got any, want any, tol float64) {
	t.Helper()
	g, gok := number(got)
	w, wok := number(want)
	if gok != wok {
		t.Errorf("%s: SQL %v, summary.json %v", what, got, want)
		return
	}
	if gok && math.Abs(g-w) > tol*math.Max(1, math.Abs(w)) {
		t.Errorf("%s: SQL %v, summary.json %v", what, g, w)
	}
}

func TestMetricsSQLMatchesSummary(t *testing.T) {
	synth := t.TempDir()
	if _, err := logsynth.Generate(context.Background(), synth, logsynth.Options{Size: 4e6, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, root, tz string
		shards         int     // export in this many shards, copied into one tree
		pctTol         float64 // percentiles: exact while agentstat keeps values exactly, else its sketch's accuracy
	}{
		{"testdata", filepath.Join("..", "testdata", "logs"), "UTC", 1, 0},
		{"testdata in Shanghai", filepath.Join("..", "testdata", "logs"), "Asia/Shanghai", 1, 0},
		{"testdata in 3 shards", filepath.Join("..", "testdata", "logs"), "UTC", 3, 0},
		{"generated", synth, "UTC", 1, 0.005},
		{"generated in 4 shards", synth, "UTC", 4, 0.005},
	} {
		t.Run(c.name, func(t *testing.T) { compareEngine(t, c.root, c.tz, c.shards, c.pctTol) })
	}
}

// exportShards writes a partial of every shard and the tables from their
// merge (agentstat merge --tables): runs whose files other shards read are
// joined there.
func exportShards(t *testing.T, opt pipeline.Options, n int, tables string) {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for i := 1; i <= n; i++ {
		o := opt
		o.Shard, o.DeferJoin = discover.Shard{Index: i, Count: n}, true
		acc, err := pipeline.Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("part-%d.agentstat", i))
		f, err := os.Create(p)
		if err == nil {
			err = errors.Join(acc.WritePartial(f, metrics.PartialInfo{Shard: o.Shard.String()}), f.Close())
		}
		acc.Close()
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	m, err := metrics.MergePartials(paths, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Acc.Close()
	if err := m.Acc.Join(); err != nil {
		t.Fatal(err)
	}
	if err := render.Tables(context.Background(), tables, m.Acc.Details(), opt.Location, render.TablesOptions{}); err != nil {
		t.Fatal(err)
	}
}

func compareEngine(t *testing.T, root, tz string, shards int, pctTol float64) {
	loc, err := time.LoadLocation(tz)
	if err != nil {
		t.Fatal(err)
	}
	opt := pipeline.Options{Roots: []string{root}, Now: time.Unix(0, 0), Settings: metrics.Settings{Location: loc, KeepDetails: true}}
	acc, err := pipeline.Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	defer acc.Details().Close()
	tables := filepath.Join(t.TempDir(), "tables")
	if shards > 1 {
		exportShards(t, opt, shards, tables)
	} else if err := render.Tables(context.Background(), tables, acc.Details(), loc, render.TablesOptions{}); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(acc.Report(opt.Now, opt.Title).Summary)
	if err != nil {
		t.Fatal(err)
	}
	var summary any
	if err := json.Unmarshal(b, &summary); err != nil {
		t.Fatal(err)
	}

	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // views live in the one in-memory database
	for _, table := range []string{"runs", "steps", "tool_calls", "tokens", "evaluations"} {
		q := fmt.Sprintf(`CREATE VIEW %s AS SELECT * FROM read_parquet('%s', hive_partitioning = true, union_by_name = true)`,
			table, filepath.ToSlash(filepath.Join(tables, table, "*", "*.parquet")))
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	f := figures(t)
	if len(f) != 9 {
		t.Fatalf("metrics.sql has %d figures", len(f))
	}
	one := func(name string) map[string]any {
		r := rows(t, db, f[name])
		if len(r) != 1 {
			t.Fatalf("%s: %d rows", name, len(r))
		}
		return r[0]
	}

	r := one("runs")
	check(t, "runs.total", r["total"], lookup(summary, "runs.total"), 0)
	for _, s := range []string{"success", "failed", "partial", "running", "unknown"} {
		check(t, "runs."+s, r[s], lookup(summary, "runs.by_status."+s), 0)
	}
	check(t, "runs.success_rate", r["success_rate"], lookup(summary, "runs.success_rate"), 1e-12)

	stats := func(figure, path string) {
		d := one(figure)
		for _, k := range []string{"count", "sum", "mean", "max"} {
			check(t, path+"."+k, d[k], lookup(summary, path+"."+k), 1e-9)
		}
		for _, k := range []string{"p50", "p90", "p95", "p99"} {
			check(t, path+"."+k, d[k], lookup(summary, path+"."+k), pctTol)
		}
	}
	stats("run_duration_ms", "runs.duration_ms")

	c := one("tool_calls")
	for _, k := range []string{"total", "errors", "outcome_known", "cancelled"} {
		check(t, "tool_calls."+k, c[k], lookup(summary, "tool_calls."+k), 0)
	}
	check(t, "tool_calls.error_rate", c["error_rate"], lookup(summary, "tool_calls.error_rate"), 1e-12)
	stats("tool_call_duration_ms", "tool_calls.duration_ms")

	tools := rows(t, db, f["tools"])
	want, _ := lookup(summary, "tools").([]any)
	if len(tools) != len(want) {
		t.Fatalf("tools: SQL %d, summary.json %d", len(tools), len(want))
	}
	for i, row := range tools {
		w := want[i]
		if row["name"] != lookup(w, "name") {
			t.Errorf("tools[%d]: SQL %v, summary.json %v", i, row["name"], lookup(w, "name"))
			continue
		}
		for _, k := range []string{"calls", "errors", "error_rate"} {
			check(t, fmt.Sprintf("tools[%v].%s", row["name"], k), row[k], lookup(w, k), 1e-12)
		}
	}

	s := one("steps")
	check(t, "steps.total", s["total"], lookup(summary, "steps.total"), 0)
	check(t, "steps.completed", s["completed"], lookup(summary, "steps.by_status.completed"), 0)
	check(t, "steps.completion_rate", s["completion_rate"], lookup(summary, "steps.completion_rate"), 1e-12)

	tok := one("tokens")
	for _, k := range []string{"total", "input", "output", "cache_read", "cache_creation"} {
		check(t, "tokens."+k, tok[k], lookup(summary, "context.tokens."+k), 0)
	}
	check(t, "cost.usd", tok["cost_usd"], lookup(summary, "cost.usd"), 1e-9)

	q := one("quality")
	for _, k := range []string{"evaluations", "output_valid_checked"} {
		check(t, "quality."+k, q[k], lookup(summary, "quality."+k), 0)
	}
	for _, k := range []string{"mean", "output_valid_rate"} {
		check(t, "quality."+k, q[k], lookup(summary, "quality."+k), 1e-9)
	}

	days := rows(t, db, f["daily"])
	wantDays, _ := lookup(summary, "daily").([]any)
	if len(days) != len(wantDays) || len(days) == 0 {
		t.Fatalf("daily: SQL %d days, summary.json %d", len(days), len(wantDays))
	}
	for i, d := range days {
		w := wantDays[i]
		if d["run_date"] != lookup(w, "date") {
			t.Errorf("daily[%d]: SQL %v, summary.json %v", i, d["run_date"], lookup(w, "date"))
			continue
		}
		for _, k := range []string{"runs", "tool_calls", "errors", "error_rate", "success_rate"} {
			check(t, fmt.Sprintf("daily[%v].%s", d["run_date"], k), d[k], lookup(w, k), 1e-12)
		}
	}
	if tz := lookup(summary, "tz"); tz != loc.String() {
		t.Errorf("summary tz %v", tz)
	}
}

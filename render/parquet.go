package render

import (
	"bufio"
	"cmp"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	parquetzstd "github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/agentstat/agentstat/internal/tempfile"
	"github.com/agentstat/agentstat/metrics"
	"github.com/agentstat/agentstat/model"
	"github.com/agentstat/agentstat/pricing"
)

// TablesSchema names the layout of the Parquet tables (docs/tables.md).
const TablesSchema = "agentstat.tables/v2"

// The rows of the Parquet tables: the normalized model of docs/metrics.md, one
// table per kind of record, joined on run_key. Optional columns are nil
// where the log does not say. Column meanings are in docs/tables.md.
type (
	runRow struct {
		RunKey     string     `parquet:"run_key"`
		RunID      string     `parquet:"run_id"`
		Format     string     `parquet:"format,dict"`
		Source     string     `parquet:"source"`
		Title      string     `parquet:"title"`
		Agent      *string    `parquet:"agent,optional,dict"`
		Model      *string    `parquet:"model,optional,dict"`
		Project    string     `parquet:"project,dict"`
		Branch     *string    `parquet:"branch,optional,dict"`
		Status     string     `parquet:"status,dict"`
		Started    *time.Time `parquet:"started,optional,timestamp(microsecond)"`
		Ended      *time.Time `parquet:"ended,optional,timestamp(microsecond)"`
		DurationMS *float64   `parquet:"duration_ms,optional"`
		Steps      int64      `parquet:"steps"`
		ToolCalls  int64      `parquet:"tool_calls"`
		Errors     int64      `parquet:"errors"`
		Cancelled  int64      `parquet:"cancelled"`
		CostUSD    *float64   `parquet:"cost_usd,optional"`
		RunDate    *string    `parquet:"run_date,optional,dict"` // the partition's day, as a column every engine can name
	}
	stepRow struct {
		RunKey     string     `parquet:"run_key"`
		StepIndex  int64      `parquet:"step_index"`
		Name       string     `parquet:"name"`
		Agent      *string    `parquet:"agent,optional,dict"`
		Status     string     `parquet:"status,dict"`
		Started    *time.Time `parquet:"started,optional,timestamp(microsecond)"`
		Ended      *time.Time `parquet:"ended,optional,timestamp(microsecond)"`
		DurationMS *float64   `parquet:"duration_ms,optional"`
	}
	toolCallRow struct {
		RunKey     string     `parquet:"run_key"`
		CallIndex  int64      `parquet:"call_index"`
		Name       string     `parquet:"name,dict"`
		Category   *string    `parquet:"category,optional,dict"`
		Agent      *string    `parquet:"agent,optional,dict"`
		Started    *time.Time `parquet:"started,optional,timestamp(microsecond)"`
		Ended      *time.Time `parquet:"ended,optional,timestamp(microsecond)"`
		DurationMS *float64   `parquet:"duration_ms,optional"`
		Outcome    string     `parquet:"outcome,dict"`
		Error      *string    `parquet:"error,optional"`
		Input      *string    `parquet:"input,optional"`
		ThinkMS    *float64   `parquet:"think_ms,optional"`
		CallDate   *string    `parquet:"call_date,optional,dict"` // the day the call started in --tz, else its run's
	}
	// tokenRow is one request, or a run's tokens of no request (unspecified).
	tokenRow struct {
		RunKey          string     `parquet:"run_key"`
		RequestIndex    *int64     `parquet:"request_index,optional"`
		Model           *string    `parquet:"model,optional,dict"`
		At              *time.Time `parquet:"at,optional,timestamp(microsecond)"`
		Input           int64      `parquet:"input"`
		Output          int64      `parquet:"output"`
		CacheRead       int64      `parquet:"cache_read"`
		CacheCreation   int64      `parquet:"cache_creation"`
		CacheCreation1h int64      `parquet:"cache_creation_1h"`
		Unspecified     int64      `parquet:"unspecified"`
		Total           int64      `parquet:"total"`
		CostUSD         *float64   `parquet:"cost_usd,optional"`
		RequestDate     *string    `parquet:"request_date,optional,dict"` // the day of the request in --tz, else its run's
	}
	evaluationRow struct {
		RunKey      string   `parquet:"run_key"`
		Phase       *string  `parquet:"phase,optional"`
		Tool        *string  `parquet:"tool,optional,dict"`
		Task        *string  `parquet:"task,optional"`
		Score       *float64 `parquet:"score,optional"`
		OutputValid *bool    `parquet:"output_valid,optional"`
	}
)

// dayRuns is one day partition's runs, spilled while the runs stream by
// in discovery order and written as Parquet one day at a time.
type dayRuns struct {
	f   *tempfile.File
	buf *bufio.Writer
	enc *gob.Encoder
}

// NoDate is the partition of runs whose start is unknown.
const NoDate = "unknown"

// tableChunk is the most calls of a run Tables holds at once; a run of
// more comes from the spill a chunk at a time.
var tableChunk = 4096 // a variable for tests

// TablesOptions tune Tables.
type TablesOptions struct {
	Force  bool           // replace an out directory agentstat did not write
	Prices *pricing.Table // nil: the built-in table
}

// Tables writes every kept run as Parquet tables under out, partitioned by
// the day the run started in loc: out/<table>/date=YYYY-MM-DD/part-0.parquet.
// Like Write, it fills a temporary directory and swaps it into place. A
// long run's calls go through a chunk at a time (metrics.EncodeRun).
func Tables(ctx context.Context, out string, details *metrics.Details, loc *time.Location, o TablesOptions) error {
	days := map[string]*dayRuns{}
	defer func() {
		for _, d := range days {
			d.f.Close()
		}
	}()
	for pr, err := range details.Pages(tableChunk) {
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			return err
		}
		day := NoDate
		if !pr.Run.Started.IsZero() {
			day = pr.Run.Started.In(loc).Format(time.DateOnly)
		}
		d := days[day]
		if d == nil {
			f, err := tempfile.New("agentstat-tables-*.gob")
			if err != nil {
				return err
			}
			d = &dayRuns{f: f, buf: bufio.NewWriterSize(f, 16<<10)}
			d.enc = gob.NewEncoder(d.buf)
			days[day] = d
		}
		if err := metrics.EncodeRun(d.enc, pr); err != nil {
			return err
		}
	}
	for _, d := range days {
		if err := d.buf.Flush(); err != nil {
			return err
		}
	}
	order := make([]string, 0, len(days))
	for day := range days {
		order = append(order, day)
	}
	slices.Sort(order)
	return writeDir(ctx, out, o.Force, TablesSchema, func(dir *Dir) error {
		for _, day := range order {
			if err := writeDay(ctx, dir, day, days[day].f.Section(), loc, o); err != nil {
				return fmt.Errorf("tables for %s: %w", day, err)
			}
		}
		return nil
	})
}

// pageZstd is Parquet's zstd with each encoder's window cut to what a page
// can use: a page is compressed as one frame of at most PageBufferSize
// (256 KB), and parquet-go's encoders each kept an 8 MB history, the most
// of what export held (16 of 55 MB live at 1 GB).
var pageZstd = windowedZstd{window: 1 << 20}

type windowedZstd struct {
	parquetzstd.Codec // its name, and decoding
	window            int
	encoders          sync.Pool
}

func (c *windowedZstd) Encode(dst, src []byte) ([]byte, error) {
	e, _ := c.encoders.Get().(*zstd.Encoder)
	if e == nil {
		var err error
		e, err = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedDefault),
			zstd.WithZeroFrames(true), zstd.WithEncoderCRC(false), zstd.WithWindowSize(c.window))
		if err != nil {
			return nil, err
		}
	}
	defer c.encoders.Put(e)
	return e.EncodeAll(src, dst[:0]), nil
}

// tableWriter writes the rows of one table of one day.
type tableWriter[T any] struct {
	f *os.File
	w *parquet.GenericWriter[T]
}

func newParquet[T any](dir *Dir, table, day string) (*tableWriter[T], error) {
	f, err := dir.Create(fmt.Sprintf("%s/date=%s/part-0.parquet", table, day))
	if err != nil {
		return nil, err
	}
	return &tableWriter[T]{f: f, w: parquet.NewGenericWriter[T](f, parquet.Compression(&pageZstd), parquet.CreatedBy("agentstat", TablesSchema, ""))}, nil
}

func (t *tableWriter[T]) write(rows ...T) error {
	_, err := t.w.Write(rows)
	return err
}

func (t *tableWriter[T]) close() error { return errors.Join(t.w.Close(), t.f.Close()) }

func writeDay(ctx context.Context, dir *Dir, day string, spill io.Reader, loc *time.Location, o TablesOptions) (err error) {
	prices := cmp.Or(o.Prices, pricing.Builtin())
	runs, err := newParquet[runRow](dir, "runs", day)
	if err != nil {
		return err
	}
	steps, err := newParquet[stepRow](dir, "steps", day)
	if err != nil {
		return err
	}
	calls, err := newParquet[toolCallRow](dir, "tool_calls", day)
	if err != nil {
		return err
	}
	tokens, err := newParquet[tokenRow](dir, "tokens", day)
	if err != nil {
		return err
	}
	evals, err := newParquet[evaluationRow](dir, "evaluations", day)
	if err != nil {
		return err
	}
	defer func() {
		err = errors.Join(err, runs.close(), steps.close(), calls.close(), tokens.close(), evals.close())
	}()
	dec := gob.NewDecoder(bufio.NewReader(spill))
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		var (
			r      *model.Run
			key    string
			row    runRow
			called int64
			rowErr error
		)
		err := metrics.DecodeRun(dec, func(run *model.Run, n int) {
			r, key = run, strings.TrimSuffix(metrics.RunPage(run), ".html")
			row = runRow{RunKey: key, RunID: r.ID, Format: r.Format, Source: r.Source, Title: r.Title, Agent: optString(r.Agent), Model: optString(r.Model),
				Project: metrics.ProjectOf(r), Branch: optString(r.Branch),
				Status: string(r.Status), Started: optTime(r.Started), Ended: optTime(r.Ended), DurationMS: optFloat(r.DurationMS, r.HasDuration),
				Steps: int64(len(r.Steps)), ToolCalls: int64(n)}
			if day != NoDate {
				row.RunDate = new(day)
			}
			for i, s := range r.Steps {
				if rowErr = steps.write(stepRow{RunKey: key, StepIndex: int64(i + 1), Name: s.Name, Agent: optString(s.Agent), Status: string(s.Status),
					Started: optTime(s.Started), Ended: optTime(s.Ended), DurationMS: optFloat(s.DurationMS, s.HasDuration)}); rowErr != nil {
					return
				}
			}
		}, func(chunk []model.ToolCall) {
			for _, c := range chunk {
				if rowErr != nil {
					return
				}
				called++
				switch c.Outcome {
				case model.OutcomeError:
					row.Errors++
				case model.OutcomeCancelled:
					row.Cancelled++
				}
				callDate := row.RunDate
				if !c.Started.IsZero() {
					callDate = new(c.Started.In(loc).Format(time.DateOnly))
				}
				rowErr = calls.write(toolCallRow{RunKey: key, CallIndex: called, Name: c.Name, Category: optString(c.Category), Agent: optString(c.Agent),
					Started: optTime(c.Started), Ended: optTime(c.Ended), DurationMS: optFloat(c.DurationMS, c.HasDuration), Outcome: c.Outcome.String(),
					Error: optString(c.Error), Input: optString(c.Input), ThinkMS: optFloat(c.ThinkMS, c.HasThink), CallDate: callDate})
			}
		})
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err = cmp.Or(err, rowErr); err != nil {
			return err
		}
		for i, q := range r.Requests {
			t := q.Tokens
			tr := tokenRow{RunKey: key, RequestIndex: new(int64(i + 1)), Model: optString(q.Model), At: optTime(q.At), Input: t.Input, Output: t.Output,
				CacheRead: t.CacheRead, CacheCreation: t.CacheCreation, CacheCreation1h: t.CacheCreation1h, Total: t.Total(), RequestDate: row.RunDate}
			if usd, ok := prices.Cost(q.Model, t); ok {
				tr.CostUSD = &usd
			}
			if !q.At.IsZero() {
				tr.RequestDate = new(q.At.In(loc).Format(time.DateOnly))
			}
			if err := tokens.write(tr); err != nil {
				return err
			}
		}
		if n := r.Tokens.Unspecified; n > 0 {
			if err := tokens.write(tokenRow{RunKey: key, Unspecified: n, Total: n, RequestDate: row.RunDate}); err != nil {
				return err
			}
		}
		row.CostUSD = metrics.RunCost(prices, r)
		for _, e := range r.Quality {
			ev := evaluationRow{RunKey: key, Phase: optString(e.Phase), Tool: optString(e.Tool), Task: optString(e.Task), Score: optFloat(e.Score, e.HasScore)}
			if e.Valid != model.TriUnknown {
				ev.OutputValid = new(e.Valid == model.TriTrue)
			}
			if err := evals.write(ev); err != nil {
				return err
			}
		}
		if err := runs.write(row); err != nil {
			return err
		}
	}
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func optTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

func optFloat(v float64, ok bool) *float64 {
	if !ok {
		return nil
	}
	return &v
}

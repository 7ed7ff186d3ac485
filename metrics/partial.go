package metrics

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"crypto/sha256"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/agentstat/agentstat/discover"
	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/join"
	"github.com/agentstat/agentstat/model"
	"github.com/agentstat/agentstat/pricing"
)

// A partial file is one machine's aggregate state, to be merged with others
// into the report a single pass over all their files would give (docs in
// docs/partials.md):
//
//	agentstat.partial/v6\n                      the magic line: schema and version
//	gzip( gob(partialHeader)                     what was read and how
//	      gob(partialState)                      every counter, sum and sketch
//	      gob(model.Run) × header.Details        each kept run's detail, in discovery order
//	      fragment × header.Fragments )          records waiting for a join (join.EncodeFragment)
//
// gzip's CRC-32 covers everything after the magic line, so a corrupt or
// truncated file is refused, never merged.
const (
	PartialSchema = "agentstat.partial/v6"
	partialMagic  = PartialSchema + "\n"
)

// ErrPartial wraps every reason a partial file is refused.
var ErrPartial = errors.New("not a usable partial")

// partialHeader says how a partial was made; partials merge only when
// everything that shapes the figures agrees.
type partialHeader struct {
	Schema    string
	Agentstat string // the version that wrote it
	TZ        string // --tz: days are bucketed in it
	Since     time.Time
	Until     time.Time
	Shard     string   // the shards it covers: "I/N", a merge's "I/N,J/N", or "" for all files of its tree
	Pricing   string   // the price table's digest: costs and window shares were figured with it
	Project   string   // --project: only its runs were kept
	NoText    bool     // --no-text: its runs hold no text from a log
	NoRedact  bool     // --no-redact: values that look like credentials were kept
	Details   int64    // run details that follow the state
	Fragments int64    // records waiting for a join, after the details
	Pending   []string // files whose only records wait for a join: the join decides how they count

	digest [sha256.Size]byte // the file's SHA-256, computed as it is read (not written)
}

// PartialInfo describes how the runs of a partial were chosen.
type PartialInfo struct {
	Agentstat string // version of the writer
	Shard     string // the shards it covers: "I/N", "I/N,J/N" (a merge's), or ""
}

// WritePartial writes the accumulated state, with every kept run's detail
// when they were kept (Settings.KeepDetails), to w.
func (a *Accumulator) WritePartial(w io.Writer, info PartialInfo) error {
	if a.noIndex {
		return errors.New("partial state needs the run index (accumulated with Settings.NoIndex)")
	}
	if _, err := io.WriteString(w, partialMagic); err != nil {
		return err
	}
	zw, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(zw, 256<<10)
	enc := gob.NewEncoder(bw)
	h := partialHeader{Schema: PartialSchema, Agentstat: info.Agentstat, TZ: a.loc.String(), Since: a.scope.Since, Until: a.scope.Until, Shard: info.Shard, Pricing: a.prices.Digest(), Project: a.scope.Project, NoText: a.noText, NoRedact: a.keepSecrets}
	if a.spill != nil {
		h.Details = int64(a.Index.Len())
	}
	if w := a.waiting; w != nil {
		// Workers hand these over in the order they read their files: sorted, the same state is the same bytes.
		slices.Sort(w.pending)
		slices.SortStableFunc(w.frags, func(x, y *join.Fragment) int { return strings.Compare(x.Source, y.Source) })
		h.Fragments, h.Pending = int64(len(w.frags)), w.pending
	}
	if err := enc.Encode(&h); err != nil {
		return err
	}
	// Workers hand these over in the order they finish: sorted, the same tally is the same bytes.
	slices.SortFunc(a.Skipped, func(x, y SkippedFile) int {
		return cmp.Or(strings.Compare(x.Path, y.Path), strings.Compare(x.Reason, y.Reason), strings.Compare(x.Detail, y.Detail))
	})
	slices.SortFunc(a.IDs, func(x, y runID) int { return bytes.Compare(x[:], y[:]) })
	if err := enc.Encode(&a.tally); err != nil {
		return err
	}
	if a.spill != nil {
		n := int64(0)
		for pr, err := range a.spill.Pages(callChunk) {
			if err != nil {
				return fmt.Errorf("run details: %w", err)
			}
			if err := EncodeRun(enc, pr); err != nil {
				return err
			}
			n++
		}
		if n != h.Details {
			return fmt.Errorf("run details: %d spilled for %d runs", n, h.Details)
		}
	}
	if a.waiting != nil {
		for _, f := range a.waiting.frags {
			if err := join.EncodeFragment(bw, f, a.loc, a.noText); err != nil {
				return err
			}
		}
		if err := a.waiting.records.Err(); err != nil {
			return fmt.Errorf("record spill: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return zw.Close()
}

// MergedPartials is the merge of several partial files: the accumulator,
// with the settings they were made with, ready for Join and Report.
type MergedPartials struct {
	Acc     *Accumulator
	Covered string // the shards the partials covered, "I/N,J/N", or "" when none was a shard
}

// MergePartials reads and merges partial files in the order given (merging
// is associative and commutative, so any order gives the same report).
// Run details are kept in temporary files when keepDetails; close the
// result's Acc.Details() when done. A file that is corrupt, of another
// schema, or made with another --tz or window than the first is refused,
// and so are a partial given twice, a shard covered twice and shards of
// splits into different numbers: each would count files twice.
func MergePartials(paths []string, keepDetails bool, prices *pricing.Table) (m *MergedPartials, err error) {
	if prices == nil {
		prices = pricing.Builtin()
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w: no partial files named", ErrPartial)
	}
	var details *Details
	if keepDetails {
		details = new(Details)
	}
	defer func() {
		if err != nil {
			details.Close()
		}
	}()
	// Records waiting for a join go to one spill, in the zone of the first
	// partial (any other is refused below).
	var loc *time.Location
	var records *recordspill.File
	defer func() {
		if err != nil {
			records.Close()
		}
	}()
	spillFor := func(h *partialHeader) (*recordspill.File, error) {
		if records == nil {
			l, err := time.LoadLocation(h.TZ)
			if err != nil {
				return nil, fmt.Errorf("%w: time zone %q: %v", ErrPartial, h.TZ, err)
			}
			if records, err = recordspill.New(l); err != nil {
				return nil, err
			}
			loc = l
		}
		return records, nil
	}
	var waits waiting
	digests := map[[sha256.Size]byte]string{}
	shards := map[int]string{} // index → the partial that covers it
	var covered []discover.Shard
	for _, p := range paths {
		var dw *detailWriter
		if details != nil {
			if dw, err = details.writer(); err != nil {
				return nil, err
			}
		}
		h, acc, frags, err := readPartial(p, dw, prices, spillFor)
		if dw != nil {
			err = errors.Join(err, dw.close())
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if m == nil {
			if loc == nil {
				if loc, err = time.LoadLocation(h.TZ); err != nil {
					return nil, fmt.Errorf("%s: %w: time zone %q: %v", p, ErrPartial, h.TZ, err)
				}
			}
			m = &MergedPartials{Acc: NewAccumulator(Settings{Location: loc, Prices: prices, Scope: Scope{Since: h.Since, Until: h.Until, Project: h.Project}, NoText: h.NoText, KeepSecrets: h.NoRedact})}
		} else if h.NoText != m.Acc.noText {
			return nil, fmt.Errorf("%s: %w: one of %s and %s was made with --no-text, the other not", p, ErrPartial, p, paths[0])
		} else if h.NoRedact != m.Acc.keepSecrets {
			return nil, fmt.Errorf("%s: %w: one of %s and %s was made with --no-redact, the other not", p, ErrPartial, p, paths[0])
		} else if sc := m.Acc.scope; h.TZ != m.Acc.loc.String() || !h.Since.Equal(sc.Since) || !h.Until.Equal(sc.Until) || h.Project != sc.Project {
			return nil, fmt.Errorf("%s: %w: made with --tz %s, window [%v, %v), project %q; %s with --tz %s, window [%v, %v), project %q",
				p, ErrPartial, h.TZ, h.Since, h.Until, h.Project, paths[0], m.Acc.loc, sc.Since, sc.Until, sc.Project)
		}
		if h.Pricing != prices.Digest() {
			return nil, fmt.Errorf("%s: %w: made with other prices than these (%s): give merge the --pricing files its shards were given", p, ErrPartial, prices.Source)
		}
		if q, dup := digests[h.digest]; dup {
			return nil, fmt.Errorf("%s: %w: the same partial as %s", p, ErrPartial, q)
		}
		digests[h.digest] = p
		its, err := parseShards(h.Shard)
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %v", p, ErrPartial, err)
		}
		for _, s := range its {
			if len(covered) > 0 && s.Count != covered[0].Count {
				return nil, fmt.Errorf("%s: %w: shard %s of a split into %d, where %s holds shard %s of a split into %d",
					p, ErrPartial, s, s.Count, shards[covered[0].Index], covered[0], covered[0].Count)
			}
			if q, dup := shards[s.Index]; dup {
				return nil, fmt.Errorf("%s: %w: shard %s is also in %s", p, ErrPartial, s, q)
			}
			shards[s.Index] = p
			covered = append(covered, s)
		}
		if keepDetails && h.Details != int64(acc.Index.Len()) {
			return nil, fmt.Errorf("%s: %w: it holds no run details (written by a run that kept none)", p, ErrPartial)
		}
		m.Acc.Merge(acc)
		waits.frags = append(waits.frags, frags...)
		waits.pending = append(waits.pending, h.Pending...)
	}
	slices.SortFunc(covered, func(a, b discover.Shard) int { return cmp.Compare(a.Index, b.Index) })
	names := make([]string, len(covered))
	for i, s := range covered {
		names[i] = s.String()
	}
	m.Covered = strings.Join(names, ",")
	m.Acc.spill = details
	if records != nil {
		waits.records = records
		m.Acc.waiting = &waits
	}
	return m, nil
}

// parseShards reads the shards a partial covers ("" for none).
func parseShards(s string) ([]discover.Shard, error) {
	if s == "" {
		return nil, nil
	}
	var out []discover.Shard
	for _, one := range strings.Split(s, ",") {
		sh, err := discover.ParseShard(one)
		if err != nil {
			return nil, fmt.Errorf("shard %q in its header", one)
		}
		out = append(out, sh)
	}
	return out, nil
}

// readPartial reads one partial file, copying its run details to dw (or
// passing over them when dw is nil) and the records of the fragments it
// carries to the spill spillFor gives.
func readPartial(path string, dw *detailWriter, prices *pricing.Table, spillFor func(*partialHeader) (*recordspill.File, error)) (*partialHeader, *Accumulator, []*join.Fragment, error) {
	fail := func(err error) (*partialHeader, *Accumulator, []*join.Fragment, error) {
		return nil, nil, nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return fail(err)
	}
	defer f.Close()
	sum := sha256.New()
	br := bufio.NewReader(io.TeeReader(f, sum))
	magic := make([]byte, len(partialMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != partialMagic {
		if len(magic) > 0 && string(magic[:len("agentstat.partial/")]) == "agentstat.partial/" {
			return fail(schemaRefused(trimLine(magic)))
		}
		return fail(fmt.Errorf("%w: no %s header", ErrPartial, PartialSchema))
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return fail(fmt.Errorf("%w: corrupt: %v", ErrPartial, err))
	}
	zr.Multistream(false)                   // a partial is one gzip member; anything after it is refused below
	zbr := bufio.NewReaderSize(zr, 256<<10) // a ByteReader, so gob reads no further than it needs
	dec := gob.NewDecoder(zbr)
	corrupt := func(what string, err error) error { return fmt.Errorf("%w: corrupt %s: %v", ErrPartial, what, err) }
	var h partialHeader
	if err := dec.Decode(&h); err != nil {
		return fail(corrupt("header", err))
	}
	if h.Schema != PartialSchema {
		return fail(schemaRefused(h.Schema))
	}
	acc := NewAccumulator(Settings{Location: time.UTC, Prices: prices})
	acc.tally = tally{} // gob leaves what the partial holds empty as nil: acc is only merged from
	if err := dec.Decode(&acc.tally); err != nil {
		return fail(corrupt("state", err))
	}
	if n := int64(acc.Index.Len()); n != acc.Runs {
		return fail(corrupt("state", fmt.Errorf("%d runs indexed for a count of %d", n, acc.Runs)))
	}
	if h.Details != 0 && h.Details != int64(acc.Index.Len()) {
		return fail(corrupt("run details", fmt.Errorf("%d for %d runs", h.Details, acc.Index.Len())))
	}
	for range h.Details {
		if err := readPartialRun(dec, dw); err != nil {
			return fail(corrupt("run details", err))
		}
	}
	var frags []*join.Fragment
	if h.Fragments > 0 {
		records, err := spillFor(&h)
		if err != nil {
			return fail(err)
		}
		for range h.Fragments {
			frag, err := join.DecodeFragment(zbr, records)
			if err != nil {
				return fail(corrupt("records waiting for a join", err))
			}
			frags = append(frags, frag)
		}
	}
	// Read to the end: gzip checks its CRC and length only there.
	if _, err := io.Copy(io.Discard, zbr); err != nil {
		return fail(corrupt("file", err))
	}
	if _, err := br.ReadByte(); err != io.EOF {
		return fail(corrupt("file", errors.New("data after its end")))
	}
	sum.Sum(h.digest[:0])
	return &h, acc, frags, nil
}

// schemaRefused says why a partial of another schema is not merged.
func schemaRefused(schema string) error {
	why := ""
	switch schema {
	case "agentstat.partial/v5":
		why = ": its state is in an earlier form; make the partials again with this agentstat"
	case "agentstat.partial/v4":
		// v4 shards joined their own records, right only when the files of a run shared a shard.
		why = ": it carries no records waiting for a join; make the partials again with this agentstat"
	case "agentstat.partial/v3":
		why = ": it holds no tool calls by day and no tool duration histograms; make the partials again with this agentstat"
	}
	return fmt.Errorf("%w: schema %q, this agentstat reads %s%s", ErrPartial, schema, PartialSchema, why)
}

// readPartialRun reads one run's detail into dw (nil: read past it).
func readPartialRun(dec *gob.Decoder, dw *detailWriter) error {
	if dw == nil {
		return DecodeRun(dec, func(*model.Run, int) {}, func([]model.ToolCall) {})
	}
	return DecodeRun(dec, dw.writeRun, dw.writeCalls)
}

func trimLine(b []byte) string {
	for i, c := range b {
		if c == '\n' {
			return string(b[:i])
		}
	}
	return string(b)
}

// Details are the kept runs' details (nil unless Settings.KeepDetails); Close them when done.
func (a *Accumulator) Details() *Details { return a.spill }

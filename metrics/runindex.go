package metrics

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"iter"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentstat/agentstat/model"
)

// RunIndex is the compact per-run index: each run's row packed into blocks
// of bytes (strings as a length and their bytes, numbers as varints). It is
// what the dashboard and the workbook list runs from, and it grows with the
// runs read: as RunRow values with their strings a row would take ~510
// bytes (7,300 runs at 1 GB, 30,000 at 4 GB); packed it takes ~220 (1.59 MB for
// the 1 GB corpus's 7,298), holds no pointer for the collector to follow,
// and a page name made by RunPage takes 6 bytes. The zero value is empty;
// a nil *RunIndex is empty too.
type RunIndex struct {
	blocks [][]byte
	rows   []rowPos
	zones  []*time.Location // the start times' zones: UTC, Local, home, then the others
	byZone map[zoneKey]int  // the others' places in zones
	home   *time.Location   // the report's zone (--tz), kept as itself
	row    []byte           // the row add packs, before put copies it
}

// zoneKey is a zone other than UTC, Local and home: its name and offset at
// a time (a timestamp's own zone is a fixed offset, a new Location for
// each time parsed).
type zoneKey struct {
	name   string
	offset int
}

// rowPos is where a row's bytes are.
type rowPos struct{ block, off, n uint32 }

// indexBlock is the size of a block of rows: appending never copies the
// rows before, as one growing array would.
const indexBlock = 64 << 10

// Len is the number of runs.
func (x *RunIndex) Len() int {
	if x == nil {
		return 0
	}
	return len(x.rows)
}

// At is the i-th row.
func (x *RunIndex) At(i int) RunRow {
	d := rowDecoder{b: x.bytes(i)}
	var r RunRow
	r.Source, r.ID = string(d.bytes()), string(d.bytes())
	r.Page = d.page(r.ID)
	r.Title, r.Format, r.Status = string(d.bytes()), string(d.bytes()), string(d.bytes())
	r.Agent, r.Model, r.Project = string(d.bytes()), string(d.bytes()), string(d.bytes())
	r.Started, r.Ended = d.time(x.zones), d.time(x.zones)
	if d.b[0] == 1 {
		ms := math.Float64frombits(binary.LittleEndian.Uint64(d.b[1:]))
		r.DurationMS = &ms
		d.b = d.b[9:]
	} else {
		d.b = d.b[1:]
	}
	r.ToolCalls, r.Errors, r.Steps = int(d.varint()), int(d.varint()), int(d.varint())
	r.Tokens = d.varint()
	if d.b[0] == 1 {
		usd := math.Float64frombits(binary.LittleEndian.Uint64(d.b[1:]))
		r.CostUSD = &usd
		d.b = d.b[9:]
	} else {
		d.b = d.b[1:]
	}
	r.Cancelled = int(d.varint())
	r.Tools, r.ErrorTexts, r.FailedTools = string(d.bytes()), string(d.bytes()), string(d.bytes())
	return r
}

// All yields every row with its position, in index order.
func (x *RunIndex) All() iter.Seq2[int, RunRow] {
	return func(yield func(int, RunRow) bool) {
		for i := range x.Len() {
			if !yield(i, x.At(i)) {
				return
			}
		}
	}
}

// Rows is every row, in index order.
func (x *RunIndex) Rows() []RunRow {
	rows := make([]RunRow, 0, x.Len())
	for _, r := range x.All() {
		rows = append(rows, r)
	}
	return rows
}

func (x *RunIndex) bytes(i int) []byte { return x.at(x.rows[i]) }

func (x *RunIndex) at(p rowPos) []byte { return x.blocks[p.block][p.off : p.off+p.n] }

// add appends r.
func (x *RunIndex) add(r *RunRow) {
	b := appendBytes(x.row[:0], r.Source)
	b = appendBytes(b, r.ID)
	if sum, ok := pageSum(r.Page, r.ID); ok {
		b = append(append(b, 1), sum...)
	} else {
		b = appendBytes(append(b, 0), r.Page)
	}
	for _, s := range [...]string{r.Title, r.Format, r.Status, r.Agent, r.Model, r.Project} {
		b = appendBytes(b, s)
	}
	b = binary.AppendVarint(b, r.Started.Unix())
	b = binary.AppendUvarint(b, uint64(r.Started.Nanosecond()))
	b = binary.AppendUvarint(b, uint64(x.zone(r.Started)))
	b = binary.AppendVarint(b, r.Ended.Unix())
	b = binary.AppendUvarint(b, uint64(r.Ended.Nanosecond()))
	b = binary.AppendUvarint(b, uint64(x.zone(r.Ended)))
	if r.DurationMS != nil {
		b = binary.LittleEndian.AppendUint64(append(b, 1), math.Float64bits(*r.DurationMS))
	} else {
		b = append(b, 0)
	}
	for _, v := range [...]int64{int64(r.ToolCalls), int64(r.Errors), int64(r.Steps), r.Tokens} {
		b = binary.AppendVarint(b, v)
	}
	if r.CostUSD != nil {
		b = binary.LittleEndian.AppendUint64(append(b, 1), math.Float64bits(*r.CostUSD))
	} else {
		b = append(b, 0)
	}
	b = binary.AppendVarint(b, int64(r.Cancelled))
	b = appendBytes(b, r.Tools)
	b = appendBytes(b, r.ErrorTexts)
	b = appendBytes(b, r.FailedTools)
	x.put(b)
	x.row = b
}

// put stores a packed row.
func (x *RunIndex) put(row []byte) {
	n := len(x.blocks)
	if n == 0 || cap(x.blocks[n-1])-len(x.blocks[n-1]) < len(row) {
		x.blocks = append(x.blocks, make([]byte, 0, max(indexBlock, len(row))))
		n++
	}
	blk := &x.blocks[n-1]
	x.rows = append(x.rows, rowPos{uint32(n - 1), uint32(len(*blk)), uint32(len(row))})
	*blk = append(*blk, row...)
}

// zone is the place of t's zone in x.zones, added once.
func (x *RunIndex) zone(t time.Time) int {
	if x.zones == nil {
		x.zones = []*time.Location{time.UTC, time.Local, cmp.Or(x.home, time.UTC)}
	}
	if i := slices.Index(x.zones[:3], t.Location()); i >= 0 {
		return i
	}
	name, offset := t.Zone()
	k := zoneKey{name, offset}
	i, ok := x.byZone[k]
	if !ok {
		if x.byZone == nil {
			x.byZone = map[zoneKey]int{}
		}
		i = len(x.zones)
		x.zones = append(x.zones, time.FixedZone(name, offset))
		x.byZone[k] = i
	}
	return i
}

// merge appends o's rows.
// Merge adds o's rows.
func (x *RunIndex) Merge(o *RunIndex) {
	for _, r := range o.All() {
		x.add(&r)
	}
}

// sort orders the rows by source, then id, then start, then page name
// (which names each run uniquely: the order is total, whatever order the
// workers merged in).
func (x *RunIndex) sort() {
	slices.SortFunc(x.rows, func(a, b rowPos) int {
		da, db := rowDecoder{b: x.at(a)}, rowDecoder{b: x.at(b)}
		if c := bytes.Compare(da.bytes(), db.bytes()); c != 0 {
			return c
		}
		ida, idb := da.bytes(), db.bytes()
		if c := bytes.Compare(ida, idb); c != 0 {
			return c
		}
		pa, pb := da, db // the page name, for a tie
		sa, na := da.start()
		sb, nb := db.start()
		if c := cmp.Or(cmp.Compare(sa, sb), cmp.Compare(na, nb)); c != 0 {
			return c
		}
		return strings.Compare(pa.page(string(ida)), pb.page(string(idb)))
	})
}

// Find is the position of the run with this source, id and page name in
// a sorted index (as Accumulator.RunIndex gives it).
func (x *RunIndex) Find(source, id, page string) (int, bool) {
	lo, hi := 0, x.Len()
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		d := rowDecoder{b: x.bytes(m)}
		if cmp.Or(bytes.Compare(d.bytes(), []byte(source)), bytes.Compare(d.bytes(), []byte(id))) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	for i := lo; i < x.Len(); i++ {
		d := rowDecoder{b: x.bytes(i)}
		if string(d.bytes()) != source || string(d.bytes()) != id {
			break
		}
		if d.page(id) == page {
			return i, true
		}
	}
	return 0, false
}

// NewestFirst is the row positions, newest run first, then by source and
// id, then in index order: the run lists' order.
func (x *RunIndex) NewestFirst() []int32 {
	type key struct {
		sec        int64
		nsec       uint64
		source, id []byte
		i          int32
	}
	keys := make([]key, x.Len())
	for i := range keys {
		d := rowDecoder{b: x.bytes(i)}
		k := key{source: d.bytes(), id: d.bytes(), i: int32(i)}
		k.sec, k.nsec = d.start()
		keys[i] = k
	}
	slices.SortStableFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(b.sec, a.sec), cmp.Compare(b.nsec, a.nsec), bytes.Compare(a.source, b.source), bytes.Compare(a.id, b.id))
	})
	order := make([]int32, len(keys))
	for i, k := range keys {
		order[i] = k.i
	}
	return order
}

// pageSum is the six bytes of a page name that RunPage made for id.
func pageSum(page, id string) ([]byte, bool) {
	stem, ok := strings.CutSuffix(page, ".html")
	if !ok || len(stem) < 13 || stem[len(stem)-13] != '-' {
		return nil, false
	}
	sum, err := hex.DecodeString(stem[len(stem)-12:])
	if err != nil || hex.EncodeToString(sum) != stem[len(stem)-12:] || stem[:len(stem)-13] != SafeName(id, 48) {
		return nil, false
	}
	return sum, true
}

func appendBytes(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// rowDecoder reads a packed row's fields in order. Rows are only ever
// packed by add, so it does not check for short input.
type rowDecoder struct{ b []byte }

func (d *rowDecoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	d.b = d.b[n:]
	return v
}

func (d *rowDecoder) varint() int64 {
	v, n := binary.Varint(d.b)
	d.b = d.b[n:]
	return v
}

func (d *rowDecoder) bytes() []byte {
	n := d.uvarint()
	s := d.b[:n]
	d.b = d.b[n:]
	return s
}

func (d *rowDecoder) page(id string) string {
	if d.b[0] == 1 {
		sum := d.b[1:7]
		d.b = d.b[7:]
		return SafeName(id, 48) + "-" + hex.EncodeToString(sum) + ".html"
	}
	d.b = d.b[1:]
	return string(d.bytes())
}

// start reads past the page name and the five strings after it (title,
// format, status, agent, model) to the start time's seconds and
// nanoseconds, what the orders compare.
func (d *rowDecoder) start() (sec int64, nsec uint64) {
	if d.b[0] == 1 {
		d.b = d.b[7:]
	} else {
		d.b = d.b[1:]
		d.bytes()
	}
	for range 6 { // title, format, status, agent, model, project
		d.bytes()
	}
	return d.varint(), d.uvarint()
}

func (d *rowDecoder) time(zones []*time.Location) time.Time {
	sec, nsec := d.varint(), d.uvarint()
	return time.Unix(sec, int64(nsec)).In(zones[d.uvarint()])
}

// NewRunIndex is an index of rows, in their order.
func NewRunIndex(rows ...RunRow) *RunIndex {
	x := new(RunIndex)
	for i := range rows {
		x.add(&rows[i])
	}
	return x
}

// runSeen is what a run's calls add to its row in the run index: counts,
// and what the run list searches and filters by (its tools, its error
// messages as errors[] normalises them).
type runSeen struct {
	errors, cancelled int
	tools, errTexts   []string
	failed            []toolCount // the tools that failed, in the order they first did
}

type toolCount struct {
	name string
	n    int
}

// failedTools is the row's FailedTools: "name\tcount" lines, most failures first.
func (s *runSeen) failedTools() string {
	slices.SortStableFunc(s.failed, func(x, y toolCount) int { return cmp.Or(cmp.Compare(y.n, x.n), cmp.Compare(x.name, y.name)) })
	var b strings.Builder
	for i, f := range s.failed {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(f.name)
		b.WriteByte('\t')
		b.WriteString(strconv.Itoa(f.n))
	}
	return b.String()
}

// Bounds on what a row keeps to be searched: the index holds every run.
const (
	rowTools    = 24
	rowErrTexts = 8
)

// add counts c; key is its normalised error message, "" for none.
func (s *runSeen) add(c *model.ToolCall, key string, keep bool) {
	switch c.Outcome {
	case model.OutcomeError:
		s.errors++
		if keep && key != "" && len(s.errTexts) < rowErrTexts && !slices.Contains(s.errTexts, key) {
			s.errTexts = append(s.errTexts, key)
		}
		if keep && c.Name != "" {
			if i := slices.IndexFunc(s.failed, func(f toolCount) bool { return f.name == c.Name }); i >= 0 {
				s.failed[i].n++
			} else if len(s.failed) < rowTools {
				s.failed = append(s.failed, toolCount{c.Name, 1})
			}
		}
	case model.OutcomeCancelled:
		s.cancelled++
	}
	if keep && len(s.tools) < rowTools && c.Name != "" && !slices.Contains(s.tools, c.Name) {
		s.tools = append(s.tools, c.Name)
	}
}

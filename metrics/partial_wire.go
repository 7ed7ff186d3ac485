package metrics

import (
	"bytes"
	"cmp"
	"encoding/gob"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/DataDog/sketches-go/ddsketch"
	"github.com/DataDog/sketches-go/ddsketch/mapping"
	"github.com/DataDog/sketches-go/ddsketch/store"
	"github.com/agentstat/agentstat/model"
)

// The tally's parts that gob cannot write as they are, and the order that
// makes the same tally the same bytes.

// gobMap is a map that gob writes in key order: gob writes a plain map in
// Go's random iteration order, so the same state would not be the same bytes.
type gobMap[K cmp.Ordered, V any] map[K]V

func (m gobMap[K, V]) GobEncode() ([]byte, error) { return encodeSorted(m, cmp.Compare[K]) }

func (m *gobMap[K, V]) GobDecode(b []byte) (err error) {
	*m, err = decodeMap[K, V](b)
	return err
}

// GobEncode writes token use in the order of its keys, as gobMap does.
func (u usage) GobEncode() ([]byte, error) {
	return encodeSorted(u, func(a, b usageKey) int {
		return cmp.Or(strings.Compare(a.Model, b.Model), cmp.Compare(a.Tier, b.Tier))
	})
}

func (u *usage) GobDecode(b []byte) (err error) {
	*u, err = decodeMap[usageKey, model.Tokens](b)
	return err
}

// encodeSorted writes m as its keys in the order compare gives, then their values.
func encodeSorted[M ~map[K]V, K comparable, V any](m M, compare func(a, b K) int) ([]byte, error) {
	keys := slices.SortedFunc(maps.Keys(m), compare)
	vals := make([]V, len(keys))
	for i, k := range keys {
		vals[i] = m[k]
	}
	var b bytes.Buffer
	enc := gob.NewEncoder(&b)
	err := errors.Join(enc.Encode(keys), enc.Encode(vals))
	return b.Bytes(), err
}

// decodeMap reads what encodeSorted wrote.
func decodeMap[K comparable, V any](b []byte) (map[K]V, error) {
	var keys []K
	var vals []V
	dec := gob.NewDecoder(bytes.NewReader(b))
	if err := errors.Join(dec.Decode(&keys), dec.Decode(&vals)); err != nil {
		return nil, err
	}
	if len(keys) != len(vals) {
		return nil, fmt.Errorf("%d keys for %d values", len(keys), len(vals))
	}
	m := make(map[K]V, len(keys))
	for i, k := range keys {
		m[k] = vals[i]
	}
	return m, nil
}

// distWire is a Dist as a partial holds it.
type distWire struct {
	N            int64
	SumHi, SumLo uint64
	Min, Max     float64
	Exact        []float64
	Sketch       []byte // DDSketch encoding, without its index mapping (always sketchAccuracy)
}

func (d Dist) GobEncode() ([]byte, error) {
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(d.wire())
	return b.Bytes(), err
}

func (d *Dist) GobDecode(b []byte) error {
	var w distWire
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&w); err != nil {
		return err
	}
	var err error
	*d, err = distFromWire(w)
	return err
}

// GobEncode writes the rows in the order Report lists them.
func (x RunIndex) GobEncode() ([]byte, error) {
	x.rows = slices.Clone(x.rows)
	x.sort()
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(x.Rows())
	return b.Bytes(), err
}

func (x *RunIndex) GobDecode(b []byte) error {
	var rows []RunRow
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&rows); err != nil {
		return err
	}
	*x = RunIndex{home: time.UTC}
	for i := range rows {
		x.add(&rows[i])
	}
	return nil
}

func (d *Dist) wire() distWire {
	// Exact values come in the order workers read their files; no figure depends on it.
	w := distWire{N: d.n, SumHi: d.sumHi, SumLo: d.sumLo, Min: d.min, Max: d.max, Exact: slices.Sorted(slices.Values(d.exact))}
	if d.sketch != nil {
		d.sketch.Encode(&w.Sketch, true)
	}
	return w
}

func distFromWire(w distWire) (Dist, error) {
	d := Dist{n: w.N, sumHi: w.SumHi, sumLo: w.SumLo, min: w.Min, max: w.Max, exact: w.Exact}
	switch {
	case w.Sketch != nil:
		m, err := mapping.NewLogarithmicMapping(sketchAccuracy)
		if err != nil {
			return d, err
		}
		if d.sketch, err = ddsketch.DecodeDDSketch(w.Sketch, store.DenseStoreConstructor, m); err != nil {
			return d, err
		}
		if got := int64(d.sketch.GetCount() + 0.5); got != d.n || len(d.exact) > 0 {
			return d, fmt.Errorf("a sketch of %d values for a count of %d", got, d.n)
		}
	case int64(len(w.Exact)) != w.N:
		return d, fmt.Errorf("%d exact values for a count of %d", len(w.Exact), w.N)
	}
	return d, nil
}

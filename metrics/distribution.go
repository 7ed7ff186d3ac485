package metrics

import (
	"math"
	"math/bits"
	"slices"

	"github.com/DataDog/sketches-go/ddsketch"
)

// exactCap is how many values a distribution keeps exactly; past it, values
// go into a DDSketch, so memory stays flat however many values arrive.
const exactCap = 1024

// sketchAccuracy is the sketch's relative accuracy: every percentile it gives
// lies within 0.5% of the exact nearest-rank value (docs/metrics.md allows 1%).
const sketchAccuracy = 0.005

// Dist is a mergeable distribution of non-negative values. Its sum is kept in
// fixed point (millionths) in 128 bits, so that merging partial results in any
// order gives the same bytes as a single pass.
type Dist struct {
	n        int64
	sumHi    uint64 // sum of round(v·1e6), 128-bit
	sumLo    uint64
	min, max float64
	exact    []float64 // every value, while n ≤ exactCap
	sorted   bool      // exact is in order
	sketch   *ddsketch.DDSketch
}

// Add records one value; negative and non-finite values are ignored (readers
// drop them with a warning before they get here).
func (d *Dist) Add(v float64) {
	if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	if d.n == 0 || v < d.min {
		d.min = v
	}
	if d.n == 0 || v > d.max {
		d.max = v
	}
	d.n++
	d.addSum(uint64(math.Round(math.Min(v, 1.8e13) * 1e6)))
	if d.sketch != nil {
		d.sketch.Add(v)
		return
	}
	d.exact, d.sorted = append(d.exact, v), false
	if d.n > exactCap {
		d.toSketch()
	}
}

func (d *Dist) addSum(u uint64) {
	var carry uint64
	d.sumLo, carry = bits.Add64(d.sumLo, u, 0)
	d.sumHi += carry
}

func (d *Dist) toSketch() {
	s, err := ddsketch.LogUnboundedDenseDDSketch(sketchAccuracy)
	if err != nil {
		panic(err) // only for an invalid accuracy constant
	}
	for _, v := range d.exact {
		s.Add(v)
	}
	d.sketch, d.exact = s, nil
}

// Merge adds every value of o to d.
func (d *Dist) Merge(o *Dist) {
	if o.n == 0 {
		return
	}
	if d.n == 0 || o.min < d.min {
		d.min = o.min
	}
	if d.n == 0 || o.max > d.max {
		d.max = o.max
	}
	d.n += o.n
	var carry uint64
	d.sumLo, carry = bits.Add64(d.sumLo, o.sumLo, 0)
	d.sumHi += o.sumHi + carry
	switch {
	case d.sketch == nil && o.sketch == nil:
		d.exact, d.sorted = append(d.exact, o.exact...), false
		if d.n > exactCap {
			d.toSketch()
		}
	case d.sketch == nil:
		s := o.sketch.Copy()
		for _, v := range d.exact {
			s.Add(v)
		}
		d.sketch, d.exact = s, nil
	case o.sketch == nil:
		for _, v := range o.exact {
			d.sketch.Add(v)
		}
	default:
		d.sketch.MergeWith(o.sketch)
	}
}

// Count is the number of values.
func (d *Dist) Count() int64 { return d.n }

// Sum is the sum of the values (exact to a millionth).
func (d *Dist) Sum() float64 {
	return (float64(d.sumHi)*math.Exp2(64) + float64(d.sumLo)) / 1e6
}

// Mean is the arithmetic mean; ok is false when there are no values.
func (d *Dist) Mean() (float64, bool) {
	if d.n == 0 {
		return 0, false
	}
	return d.Sum() / float64(d.n), true
}

// Max is the largest value; ok is false when there are no values.
func (d *Dist) Max() (float64, bool) { return d.max, d.n > 0 }

// Quantile is the nearest-rank percentile P (0 < P ≤ 100):
// sorted[ceil(P/100·n) − 1], exact while the values fit, else within the
// sketch's accuracy. ok is false when there are no values.
func (d *Dist) Quantile(p float64) (float64, bool) {
	if d.n == 0 {
		return 0, false
	}
	k := int64(math.Ceil(p/100*float64(d.n))) - 1
	k = max(0, min(k, d.n-1))
	if d.sketch == nil {
		if !d.sorted {
			slices.Sort(d.exact)
			d.sorted = true
		}
		return d.exact[k], true
	}
	if k == d.n-1 {
		return d.max, true
	}
	// Ask the sketch for rank k+½ so that float rounding cannot land on the
	// neighbouring rank: its bins hold integral counts.
	q := math.Min(1, (float64(k)+0.5)/float64(d.n-1))
	v, err := d.sketch.GetValueAtQuantile(q)
	if err != nil {
		return 0, false
	}
	return math.Max(d.min, math.Min(v, d.max)), true
}

package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestDistNearestRank(t *testing.T) {
	var d Dist
	if _, ok := d.Quantile(50); ok {
		t.Fatal("empty distribution has a p50")
	}
	if _, ok := d.Mean(); ok {
		t.Fatal("empty distribution has a mean")
	}
	for _, v := range []float64{40, 10, 30, 20, 50} {
		d.Add(v)
	}
	// sorted 10 20 30 40 50: p50 = sorted[ceil(2.5)−1] = 30, p90 = sorted[ceil(4.5)−1] = 50,
	// p10 = sorted[ceil(0.5)−1] = 10, p20 = sorted[ceil(1.0)−1] = 10, p21 = sorted[ceil(1.05)−1] = 20.
	for p, want := range map[float64]float64{50: 30, 90: 50, 10: 10, 20: 10, 21: 20, 100: 50} {
		if got, _ := d.Quantile(p); got != want {
			t.Errorf("p%v = %v, want %v", p, got, want)
		}
	}
	if m, _ := d.Mean(); m != 30 || d.Sum() != 150 || d.Count() != 5 {
		t.Errorf("mean %v sum %v count %v", m, d.Sum(), d.Count())
	}
	var one Dist
	one.Add(7.25)
	for _, p := range []float64{50, 95, 99} {
		if got, _ := one.Quantile(p); got != 7.25 {
			t.Errorf("single value p%v = %v", p, got)
		}
	}
	d.Add(-1)
	d.Add(math.NaN())
	if d.Count() != 5 {
		t.Errorf("negative or NaN values were counted")
	}
}

func exactRank(sorted []float64, p float64) float64 {
	k := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[max(0, min(k, len(sorted)-1))]
}

func TestDistSketchAccuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{exactCap + 1, 5000, 100000} {
		var d Dist
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = math.Exp(rng.NormFloat64()*2 + 5) // long-tailed, like durations
			if i%50 == 0 {
				vals[i] = 0
			}
			d.Add(vals[i])
		}
		if d.sketch == nil {
			t.Fatalf("n=%d: still exact", n)
		}
		slices.Sort(vals)
		for _, p := range []float64{1, 10, 50, 90, 95, 99, 99.9, 100} {
			got, _ := d.Quantile(p)
			want := exactRank(vals, p)
			if math.Abs(got-want) > 0.01*want {
				t.Errorf("n=%d p%v = %v, exact %v (off by %.3f%%)", n, p, got, want, 100*math.Abs(got-want)/want)
			}
		}
	}
}

// Merging partials in any grouping and order gives the same figures as one pass.
func TestDistMergeOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	vals := make([]float64, 3000)
	for i := range vals {
		vals[i] = rng.Float64() * 1e6
	}
	var single Dist
	for _, v := range vals {
		single.Add(v)
	}
	for trial := 0; trial < 20; trial++ {
		parts := make([]Dist, 1+rng.IntN(8))
		for _, v := range vals {
			parts[rng.IntN(len(parts))].Add(v)
		}
		rng.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
		var merged Dist
		for i := range parts {
			merged.Merge(&parts[i])
		}
		if merged.Count() != single.Count() || merged.Sum() != single.Sum() {
			t.Fatalf("trial %d: count/sum %v/%v vs %v/%v", trial, merged.Count(), merged.Sum(), single.Count(), single.Sum())
		}
		for _, p := range []float64{50, 90, 95, 99} {
			a, _ := merged.Quantile(p)
			b, _ := single.Quantile(p)
			if a != b {
				t.Fatalf("trial %d p%v: merged %v single %v", trial, p, a, b)
			}
		}
	}
}

func BenchmarkDistAdd(b *testing.B) {
	var d Dist
	for i := 0; b.Loop(); i++ {
		d.Add(float64(i % 100000))
	}
}

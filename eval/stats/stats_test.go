package stats

import (
	"math"
	"testing"
)

// Published Wilson 95% intervals: 81/263 → [0.2553, 0.3662],
// 15/148 → [0.0624, 0.1605], 0/20 → [0, 0.1611] and 1/29 → [0.0061, 0.1718]
// are the examples of Newcombe (1998), "Two-sided confidence intervals for
// the single proportion", Statistics in Medicine 17:857-872, Table II
// (method 3, the score interval). 8/10 → [0.490, 0.943] is the usual
// textbook example (e.g. Wikipedia, "Binomial proportion confidence
// interval"). The 0/n and n/n rows check the exact end points.
func TestWilson(t *testing.T) {
	tests := []struct {
		k, n   int
		lo, hi float64
	}{
		{8, 10, 0.4902, 0.9433},
		{81, 263, 0.2553, 0.3662},
		{0, 10, 0, 0.2775},
		{10, 10, 0.7225, 1},
		{1, 29, 0.0061, 0.1718},
		{15, 148, 0.0624, 0.1605},
		{0, 20, 0, 0.1611},
	}
	for _, tt := range tests {
		lo, hi := Wilson(tt.k, tt.n, Z95)
		if math.Abs(lo-tt.lo) > 5e-5 || math.Abs(hi-tt.hi) > 5e-5 {
			t.Errorf("Wilson(%d, %d) = [%.4f, %.4f], want [%.4f, %.4f]", tt.k, tt.n, lo, hi, tt.lo, tt.hi)
		}
	}
	if lo, hi := Wilson(0, 0, Z95); lo != 0 || hi != 1 {
		t.Errorf("Wilson(0, 0) = [%v, %v], want [0, 1]", lo, hi)
	}
}

// Exact McNemar p-values, each the closed form 2·Σ_{i≤min(b,c)} C(n,i)/2^n:
// b=1, c=7 → 2·(1+8)/256 = 0.0703125 (the value quoted for the exact
// McNemar test on this table by Fagerland, Lydersen & Laake (2013), "The
// McNemar test for binary matched-pairs data", BMC Medical Research
// Methodology 13:91: 0.070); b=0, c=5 → 2/32; b=2, c=12 →
// 2·(1+14+91)/16384; b=10, c=25 → 0.0167 (R: binom.test(10, 35)).
func TestMcNemarExact(t *testing.T) {
	tests := []struct {
		b, c int
		p    float64
	}{
		{1, 7, 0.0703125},
		{7, 1, 0.0703125},
		{0, 5, 0.0625},
		{0, 0, 1},
		{3, 3, 1},
		{2, 12, 0.012939453125},
		{10, 25, 0.0167},
	}
	for _, tt := range tests {
		got := McNemarExact(tt.b, tt.c)
		if math.Abs(got-tt.p) > 5e-5 {
			t.Errorf("McNemarExact(%d, %d) = %.6f, want %.6f", tt.b, tt.c, got, tt.p)
		}
	}
	if !math.IsNaN(McNemarExact(-1, 2)) {
		t.Error("negative counts must give NaN")
	}
	// Large n neither overflows nor underflows.
	if p := McNemarExact(5000, 5000); p != 1 {
		t.Errorf("McNemarExact(5000, 5000) = %v, want 1", p)
	}
	if p := McNemarExact(4000, 6000); p <= 0 || p > 1e-80 {
		t.Errorf("McNemarExact(4000, 6000) = %v, want a tiny positive p", p)
	}
}

func TestPercentile(t *testing.T) {
	xs := []float64{15, 20, 35, 40, 50} // the nearest-rank example of Wikipedia "Percentile"
	tests := []struct{ p, want float64 }{{5, 15}, {30, 20}, {40, 20}, {50, 35}, {100, 50}, {90, 50}}
	for _, tt := range tests {
		if got := Percentile(xs, tt.p); got != tt.want {
			t.Errorf("Percentile(%v) = %v, want %v", tt.p, got, tt.want)
		}
	}
	if Percentile(nil, 50) != 0 {
		t.Error("empty percentile must be 0")
	}
	s := SpreadOf([]float64{3, 1, 2})
	if s.P50 != 2 || s.P90 != 3 || s.P99 != 3 {
		t.Errorf("SpreadOf = %+v", s)
	}
}

package stats

import (
	"math"
	"sort"
)

// Percentile returns the p-th percentile (0 < p ≤ 100) of xs by the
// nearest-rank method: the smallest value such that at least p% of the
// values are less than or equal to it. Nearest rank always returns an
// observed value (a p99 of token counts is a real token count), which is
// what a reader of an eval report expects. xs need not be sorted and is
// not modified; an empty xs gives 0.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return PercentileSorted(s, p)
}

// PercentileSorted is Percentile for an already ascending slice.
func PercentileSorted(s []float64, p float64) float64 {
	if len(s) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	if rank < 1 {
		rank = 1
	}
	if rank > len(s) {
		rank = len(s)
	}
	return s[rank-1]
}

// Spread is the p50/p90/p99 summary reported for tokens, cost and time.
type Spread struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
}

// SpreadOf summarises xs (which it sorts in place).
func SpreadOf(xs []float64) Spread {
	sort.Float64s(xs)
	return Spread{P50: PercentileSorted(xs, 50), P90: PercentileSorted(xs, 90), P99: PercentileSorted(xs, 99)}
}

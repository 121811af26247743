package bench

import (
	"math"
	"slices"
)

// Spread is the minimum, median and maximum of repeated measurements.
type Spread struct {
	Min, Median, Max float64
	N                int
}

// Summarize returns the spread of xs (the zero Spread for none). The
// median of an even count is the mean of the two middle values.
func Summarize(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return Spread{Min: s[0], Median: med, Max: s[n-1], N: n}
}

// Ratios divides work[i] by floor[i] pairwise: each repetition's work is
// compared with the floor measured next to it, so that the drifting load
// of a shared machine affects both sides alike. Pairs with a zero floor
// are left out.
func Ratios(work, floor []float64) []float64 {
	var out []float64
	for i := range min(len(work), len(floor)) {
		if floor[i] != 0 {
			out = append(out, work[i]/floor[i])
		}
	}
	return out
}

// FitExponent returns k of the least-squares fit log y = k·log x + c over
// the points (xs[i], ys[i]): 1 means time grows linearly with the input, 2
// quadratically. Points with a non-positive coordinate are ignored; NaN is
// returned when fewer than two distinct x remain.
func FitExponent(xs, ys []float64) float64 {
	var lx, ly []float64
	for i := range min(len(xs), len(ys)) {
		if xs[i] > 0 && ys[i] > 0 {
			lx = append(lx, math.Log(xs[i]))
			ly = append(ly, math.Log(ys[i]))
		}
	}
	n := float64(len(lx))
	if n < 2 {
		return math.NaN()
	}
	var mx, my float64
	for i := range lx {
		mx += lx[i]
		my += ly[i]
	}
	mx, my = mx/n, my/n
	var sxy, sxx float64
	for i := range lx {
		sxy += (lx[i] - mx) * (ly[i] - my)
		sxx += (lx[i] - mx) * (lx[i] - mx)
	}
	if sxx == 0 {
		return math.NaN()
	}
	return sxy / sxx
}

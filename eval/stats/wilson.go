package stats

import "math"

// Z95 is the two-sided 95% quantile of the standard normal distribution.
const Z95 = 1.959963984540054

// Wilson returns the Wilson score interval for k successes out of n trials
// at the normal quantile z (Z95 for a 95% interval). It is used instead of
// the textbook p ± z·√(p(1−p)/n) because it stays inside [0, 1] and keeps
// a useful width at 0/n and n/n, which small eval suites hit all the time.
// For n == 0 the interval is the uninformative [0, 1].
func Wilson(k, n int, z float64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	if k < 0 {
		k = 0
	}
	if k > n {
		k = n
	}
	fn := float64(n)
	p := float64(k) / fn
	z2 := z * z
	den := 1 + z2/fn
	center := (p + z2/(2*fn)) / den
	half := z / den * math.Sqrt(p*(1-p)/fn+z2/(4*fn*fn))
	lo, hi = center-half, center+half
	// The bounds are exactly 0 and 1 at k == 0 and k == n; rounding can
	// put them a hair outside.
	if k == 0 || lo < 0 {
		lo = 0
	}
	if k == n || hi > 1 {
		hi = 1
	}
	return lo, hi
}

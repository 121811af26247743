package stats

import "math"

// McNemarExact returns the two-sided p-value of the exact (binomial)
// McNemar test for paired pass/fail outcomes: b pairs passed under A and
// failed under B, c pairs failed under A and passed under B. Under the
// null hypothesis the b+c discordant pairs split as Binomial(b+c, 1/2), so
// p = min(1, 2·P[X ≤ min(b, c)]). The exact form is used rather than the
// chi-squared approximation because eval suites are small and discordant
// pairs are few, exactly where the approximation is poor. With no
// discordant pairs there is no evidence either way and p is 1.
func McNemarExact(b, c int) float64 {
	if b < 0 || c < 0 {
		return math.NaN()
	}
	n := b + c
	if n == 0 {
		return 1
	}
	k := min(b, c)
	// Sum the binomial terms in log space so that large n neither
	// overflows C(n, i) nor underflows 0.5^n.
	lgN, _ := math.Lgamma(float64(n + 1))
	ln2n := float64(n) * math.Ln2
	sum := 0.0
	for i := 0; i <= k; i++ {
		lgI, _ := math.Lgamma(float64(i + 1))
		lgNI, _ := math.Lgamma(float64(n - i + 1))
		sum += math.Exp(lgN - lgI - lgNI - ln2n)
	}
	return math.Min(1, 2*sum)
}

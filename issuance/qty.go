package issuance

import "math"

// qty is a number being read, kept as an integer mantissa and a power of
// ten so that the value printed in JSON is exactly the decimal that was
// written (87 × 10⁻³ is the double nearest 0.087, which 8.7 / 100 is not).
type qty struct {
	mant  float64 // integer-valued; exact up to 2^53
	exp   int     // value = mant × 10^exp
	place int     // tolerance is half a unit of 10^place (the last written digit)
	neg   bool
	// signed: written with an explicit sign.
	signed bool
	// intervalForm: 余/多/逾, read as [value, value + one unit of the last
	// non-zero digit].
	intervalForm bool
	// hedged: about 2,000, 约2000, 2000左右 — the tolerance widens to
	// half a unit of the last non-zero digit.
	hedged bool
	// fraction: a/b read from 分之 with a denominator that is not a power
	// of ten; the value is frac and the tolerance fracTol.
	fraction bool
	frac     float64
	// per is how many parts make the whole in the way the number was
	// written: 100 for a percent or a fraction, 1000 for ‰, 10000 for
	// basis points; 0 for a plain number.
	per float64
}

// fracTol is the tolerance of a fraction such as 三分之一 or 一半: half a
// percentage point, as if the ratio had been written with two decimals.
// A hedged fraction (近一半, nearly a third) is as precise as a hedged
// 三成: half a tenth, as if the ratio had been written with one decimal.
const (
	fracTol       = 0.005
	hedgedFracTol = 0.05
)

func pow10(e int) float64 {
	if e >= -22 && e <= 22 {
		return pow10tab[e+22]
	}
	return math.Pow10(e)
}

var pow10tab = func() (t [45]float64) {
	for i := range t {
		t[i] = math.Pow10(i - 22)
	}
	return
}()

// value is mant × 10^exp computed with a single rounding.
func (q *qty) value() float64 {
	var v float64
	switch {
	case q.fraction:
		v = q.frac
	case q.exp >= 0:
		v = q.mant * pow10(q.exp)
	default:
		if q.exp >= -22 {
			v = q.mant / pow10(-q.exp)
		} else {
			v = q.mant * pow10(q.exp)
		}
	}
	if q.neg {
		v = -v
	}
	return v
}

func (q *qty) tolerance() float64 {
	if q.fraction {
		if q.hedged {
			return hedgedFracTol
		}
		return fracTol
	}
	return 0.5 * pow10(q.place)
}

// lastNonZero is the power of ten of the last non-zero written digit.
func (q *qty) lastNonZero() int {
	tz := 0
	m := q.mant
	for m >= 10 && tz < 30 && math.Mod(m, 10) == 0 {
		m /= 10
		tz++
	}
	return q.exp + tz
}

// widen makes a hedged number as precise as its last non-zero digit:
// "about 2,000" is ±500, where "2,000" alone is ±0.5.
func (q *qty) widen() {
	if e := q.lastNonZero(); e > q.place {
		q.place = e
	}
}

// interval returns [lo, hi] for the 余/多/逾 forms: the written value up to
// one unit of its last non-zero digit (两千余 → [2000, 3000], 20多 → [20, 30]).
func (q *qty) interval() [2]float64 {
	v := q.value()
	step := pow10(q.lastNonZero())
	if q.neg {
		return [2]float64{v - step, v}
	}
	return [2]float64{v, v + step}
}

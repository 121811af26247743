package issuance

import (
	"strings"
	"unicode/utf8"
)

// superDigit is the value of a superscript digit (⁰ ¹ ² ³ ⁴ … ⁹).
func superDigit(r rune) (int, bool) {
	switch {
	case r == '¹':
		return 1, true
	case r == '²':
		return 2, true
	case r == '³':
		return 3, true
	case r == '⁰':
		return 0, true
	case r >= '⁴' && r <= '⁹':
		return int(r-'⁴') + 4, true
	}
	return 0, false
}

// superscript reads a run of superscript digits at i. A short run is a
// footnote mark (¹, ²³) and is not a quantity; a run of more than three
// digits is no footnote a document has (structure numbers are short), so
// it is read as the quantity a reader sees, and cannot hide a figure.
func (sc *scanner) superscript(i int) int {
	s := sc.s
	j := i
	mant, nd := 0.0, 0
	for j < len(s) {
		r, size := utf8.DecodeRuneInString(s[j:])
		d, ok := superDigit(r)
		if !ok {
			break
		}
		mant = mant*10 + float64(d)
		nd++
		j += size
	}
	if nd > maxStructDigits {
		q := qty{mant: mant}
		sc.emit(i, j, &q)
	}
	return j
}

// timesTenAt reads the power of ten of a number written as mantissa × 10
// to a power at j: "×10⁶", " x 10^6", "*10^-3", "·10⁻³". It returns the
// end and the exponent.
func timesTenAt(s string, j int) (int, int, bool) {
	k := skipSpaces(s, j)
	switch {
	case strings.HasPrefix(s[k:], "×"):
		k += len("×")
	case strings.HasPrefix(s[k:], "·"):
		k += len("·")
	case strings.HasPrefix(s[k:], "⋅"):
		k += len("⋅")
	case k < len(s) && (s[k] == 'x' || s[k] == 'X' || s[k] == '*'):
		k++
	default:
		return 0, 0, false
	}
	k = skipSpaces(s, k)
	if !strings.HasPrefix(s[k:], "10") {
		return 0, 0, false
	}
	k += 2
	neg := false
	d := 0
	e := 0
	if k < len(s) && s[k] == '^' {
		k++
		switch {
		case k < len(s) && (s[k] == '-' || s[k] == '+'):
			neg = s[k] == '-'
			k++
		case strings.HasPrefix(s[k:], "−"):
			neg = true
			k += len("−")
		}
		for k < len(s) && isDigit(s[k]) {
			if e < 100000 {
				e = e*10 + int(s[k]-'0')
			}
			d++
			k++
		}
	} else {
		switch {
		case strings.HasPrefix(s[k:], "⁻"):
			neg = true
			k += len("⁻")
		case strings.HasPrefix(s[k:], "⁺"):
			k += len("⁺")
		}
		for k < len(s) {
			r, size := utf8.DecodeRuneInString(s[k:])
			v, ok := superDigit(r)
			if !ok {
				break
			}
			if e < 100000 {
				e = e*10 + v
			}
			d++
			k += size
		}
	}
	if d == 0 || (k < len(s) && isAlnum(s[k])) {
		return 0, 0, false
	}
	if neg {
		e = -e
	}
	return k, e, true
}

func skipSpaces(s string, k int) int {
	for k < len(s) && s[k] == ' ' {
		k++
	}
	return k
}

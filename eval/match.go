package eval

import (
	"math"
	"strconv"
	"strings"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/issuance"
	"github.com/agentlab/agentlab/run/redact"
)

// quantities returns the numbers of text that are quantities: everything
// the issuance reader finds except dates, ordinals, quarters, vague
// counts and citation markers.
func quantities(text string) []issuance.Number {
	all := issuance.Read(text)
	out := all[:0]
	for _, n := range all {
		if n.Ignored == nil {
			out = append(out, n)
		}
	}
	return out
}

// answered lists the values of the quantities, for the report (the
// midpoint of an interval such as 两千余).
func answered(ns []issuance.Number) []float64 {
	out := make([]float64, 0, len(ns))
	for _, n := range ns {
		var v float64
		switch {
		case n.Value != nil:
			v = *n.Value
		case n.Interval != nil:
			v = (n.Interval[0] + n.Interval[1]) / 2
		default:
			continue
		}
		if secretNumber(v) {
			continue
		}
		out = append(out, v)
	}
	return out
}

// secretNumber reports whether v, written as a number, spells a secret
// the evaluation was given (a token of digits the answer wrote as
// "7,391,462,850"): the reader would otherwise write it back out whole in
// the answered numbers, in the record and the result, where redacting the
// digits later would leave neither the secret nor valid JSON.
func secretNumber(v float64) bool {
	if !redact.Active() {
		return false
	}
	return redact.Contains(strconv.FormatFloat(v, 'f', -1, 64)) || redact.Contains(canon.FormatFloat(v))
}

// found reports whether the expected value v appears among ns within the
// precision each number is written with: "1,234" stands for [1233.5,
// 1234.5], "8.7%" for 0.087 ± 0.0005 and for 8.7 ± 0.05 (an SQL result
// may hold percent points or a ratio), "两千余" for [2000, 3000]. An
// unsigned number matches a negative value too ("down 3.2%"), as the
// issuance checker reads it.
func found(v float64, ns []issuance.Number) bool {
	for i := range ns {
		if fitsNumber(v, &ns[i]) {
			return true
		}
	}
	return false
}

func fitsNumber(v float64, n *issuance.Number) bool {
	if n.Interval != nil {
		return within(v, n.Interval[0], n.Interval[1]) || (!n.Signed && within(-v, n.Interval[0], n.Interval[1]))
	}
	if n.Value == nil {
		return false
	}
	x, tol := *n.Value, n.Tolerance
	if near(v, x, tol) || (!n.Signed && near(-v, x, tol)) {
		return true
	}
	if isPercent(n.Text) {
		// The reader gives a percent as a ratio; the expectation may be in
		// percent points.
		return near(v, x*100, tol*100) || (!n.Signed && near(-v, x*100, tol*100))
	}
	return false
}

func within(v, lo, hi float64) bool { return v >= lo && v <= hi }

// near compares with the written tolerance plus a relative epsilon for
// floating-point noise in the expected value (0.1+0.2 from SQL).
func near(v, x, tol float64) bool {
	eps := 1e-9 * math.Max(1, math.Max(math.Abs(v), math.Abs(x)))
	return math.Abs(v-x) <= tol+eps
}

func isPercent(text string) bool {
	return strings.ContainsAny(text, "%％") || strings.Contains(text, "百分之") || strings.Contains(strings.ToLower(text), "percent")
}

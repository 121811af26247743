package render

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/evidence/marker"
)

// Number formatting is part of the evidence contract: the browser verifier
// re-fills every number of a report with the twin functions in
// assets/report.js and compares them with the visible text, so each rule
// here is chosen to be exactly reproducible in JavaScript.

// Fixed writes x with d decimals exactly as JavaScript's
// Number.prototype.toFixed(d) does: the exact binary value is rounded to
// the nearest multiple of 10^-d, a tie going to the larger magnitude.
// Values of magnitude 1e21 and above are written in ECMAScript form, as
// toFixed does.
func Fixed(x float64, d int) string {
	if math.Abs(x) >= 1e21 || math.IsNaN(x) || math.IsInf(x, 0) {
		return canon.FormatFloat(x)
	}
	neg := x < 0
	r := new(big.Rat).SetFloat64(math.Abs(x))
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d)), nil)
	r.Mul(r, new(big.Rat).SetInt(scale))
	r.Add(r, big.NewRat(1, 2))
	n := new(big.Int).Quo(r.Num(), r.Denom()) // floor, both positive
	s := n.String()
	if d > 0 {
		if len(s) <= d {
			s = strings.Repeat("0", d-len(s)+1) + s
		}
		s = s[:len(s)-d] + "." + s[len(s)-d:]
	}
	if neg { // toFixed keeps the sign even when the value rounds to zero
		s = "-" + s
	}
	return s
}

// group inserts thousands separators into the integer part of a decimal
// string (as produced by Fixed).
func group(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	if strings.ContainsAny(s, "e") {
		return sign + s
	}
	intPart, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if hasFrac {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return sign + b.String()
}

// FormatMetric is the text a metric marker shows: [[m:x]] without a unit
// follows the metric's format (percent: value·100 with one decimal by
// default and "%"; number and currency: the value with thousands
// separators, no decimals when whole and two otherwise, then the unit);
// [[m:x|万]] divides by the unit's factor and always shows two decimals,
// then the unit: the metric's declared decimals are the precision of its
// own unit (decimals: 0 on yuan), and applying them after scaling would
// turn 35,900 into "4万"; [[m:x|%]] shows percent points, one decimal by
// default (a ratio times 100; a metric in "%" or "‰" as its points). Declared decimals override the other defaults. ok is false when
// the metric has no value.
func FormatMetric(mv *evidence.MetricValue, unit string) (string, bool) {
	if mv == nil || mv.Value == nil {
		return "n/a", false
	}
	v := *mv.Value
	dec := func(def int) int {
		if mv.Decimals != nil && *mv.Decimals >= 0 && *mv.Decimals <= 20 {
			return *mv.Decimals
		}
		return def
	}
	if unit != "" {
		f, ok := marker.Units[unit]
		if !ok {
			return "n/a", false
		}
		if unit == "%" {
			return group(Fixed(percentPoints(v, mv.Unit), dec(1))) + "%", true
		}
		return group(Fixed(v/f, 2)) + unit, true
	}
	if mv.Format == "percent" {
		return group(Fixed(v*100, dec(1))) + "%", true
	}
	d := 2
	if v == math.Trunc(v) {
		d = 0
	}
	s := group(Fixed(v, dec(d)))
	if mv.Unit != "" {
		s += " " + mv.Unit
	}
	return s, true
}

// percentPoints is v in percent points for [[m:x|%]]: a ratio is
// multiplied by 100, but a metric whose own unit is "%" (or "‰") already
// holds points (or per-mille), and multiplying it again would print 8.7 as
// 870.0%.
func percentPoints(v float64, unit string) float64 {
	switch unit {
	case "%":
		return v
	case "‰":
		return v / 10
	}
	return v * 100
}

// FormatCell is the text of one snapshot cell: integers in decimal, reals
// in ECMAScript's shortest form, text as is, NULL as "NULL".
func FormatCell(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return canon.FormatFloat(x)
	case bool:
		return strconv.FormatBool(x)
	}
	b, err := canon.Marshal(v)
	if err != nil {
		return "?"
	}
	return string(b)
}

// FormatInput is the text of an input value: strings as is, anything else
// as canonical JSON.
func FormatInput(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if f, ok := v.(float64); ok {
		return canon.FormatFloat(f)
	}
	b, err := canon.Marshal(v)
	if err != nil {
		return "?"
	}
	return string(b)
}

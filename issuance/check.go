package issuance

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode/utf8"
)

// target is a metric reduced to what matching needs.
type target struct {
	name  string
	value float64 // base units; a percent is a ratio
	tol   float64 // from Decimals; 0 when unset
	// unitless: no unit and no percent format, so the metric may hold a
	// percent as a ratio (0.486) or in points (48.6).
	unitless bool
	// scaled: the unit starts with a scale (万元, million); raw and
	// rawTol are Value and its Decimals tolerance in that unit, which is
	// how a table with the unit in its header writes it.
	scaled      bool
	raw, rawTol float64
}

// scaleUnits are unit prefixes that multiply a metric's Value.
var scaleUnits = []struct {
	prefix string
	exp    int
}{
	{"万亿", 12}, {"千亿", 11}, {"百亿", 10}, {"亿", 8}, {"千万", 7}, {"百万", 6}, {"十万", 5}, {"万", 4}, {"千", 3},
	{"thousand", 3}, {"million", 6}, {"billion", 9}, {"trillion", 12},
	{"k", 3}, {"K", 3}, {"M", 6}, {"mn", 6}, {"bn", 9}, {"B", 9},
}

// normalise returns the metric in base units, or ok=false when its value is
// not a finite number.
func normalise(m Metric) (target, bool) {
	t := target{name: m.Name, value: m.Value}
	if math.IsNaN(m.Value) || math.IsInf(m.Value, 0) {
		return t, false
	}
	exp := 0
	unit := strings.TrimSpace(m.Unit)
	switch {
	case m.Format == "percent":
		// Value is a ratio already; Decimals counts percent digits.
		exp = -2
		t.value = m.Value
		if m.Decimals != nil {
			t.tol = 0.5 * pow10(-*m.Decimals+exp)
		}
		return t, true
	case unit == "%" || pointUnits[strings.ToLower(unit)]:
		exp = -2
	case unit == "‰":
		exp = -3
	case basisPointUnits[strings.ToLower(unit)]:
		exp = -4
	case unit == "" && m.Format != "currency":
		t.unitless = true
	default:
		for _, su := range scaleUnits {
			if strings.HasPrefix(unit, su.prefix) {
				// "k" alone or before a non-letter; "万元", "亿美元" are fine.
				rest := unit[len(su.prefix):]
				if rest == "" || !isAlpha(rest[0]) {
					exp = su.exp
					break
				}
			}
		}
	}
	t.value = m.Value * pow10(exp)
	if m.Decimals != nil {
		t.tol = 0.5 * pow10(-*m.Decimals+exp)
	}
	if exp > 0 {
		t.scaled, t.raw = true, m.Value
		if m.Decimals != nil {
			t.rawTol = 0.5 * pow10(-*m.Decimals)
		}
	}
	return t, true
}

// pointUnits and basisPointUnits are units of a metric that hold a change
// in percentage points or basis points.
var (
	pointUnits      = map[string]bool{"pp": true, "pt": true, "pts": true, "ppt": true, "percentage points": true, "percentage point": true, "个百分点": true, "百分点": true}
	basisPointUnits = map[string]bool{"bp": true, "bps": true, "basis points": true, "basis point": true, "基点": true}
)

// fits reports whether number n may have been written from metric t: as
// its value in base units; for a number written per hundred (8.7%, 三成,
// 一半) against a metric without a unit, also as the figure in points
// (48.6 for 48.6%); for a metric whose unit has a scale, also as its
// value in that unit (35 for 35 万元).
func fits(n *Number, t target) bool {
	if fitsValue(n, t.value, t.tol, 1) {
		return true
	}
	if n.Per > 0 && t.unitless && fitsValue(n, t.value, t.tol, float64(n.Per)) {
		return true
	}
	return t.scaled && n.Per == 0 && fitsValue(n, t.raw, t.rawTol, 1)
}

// fitsValue reports whether n, multiplied by k, may have been written
// from v known to ±vtol.
func fitsValue(n *Number, v, vtol, k float64) bool {
	if !n.Signed {
		v = math.Abs(v)
	}
	eps := 1e-9 * max(1, math.Abs(v))
	if n.Interval != nil {
		lo, hi := n.Interval[0]*k, n.Interval[1]*k
		if !n.Signed && lo < 0 {
			lo, hi = -hi, -lo
		}
		return v >= lo-eps && v <= hi+eps
	}
	if n.Value == nil {
		return false
	}
	if n.Signed && v != 0 && math.Signbit(*n.Value) != math.Signbit(v) {
		// A written sign must agree with the metric's, even where the
		// tolerance reaches across zero: "-0.0" is not a rate of 2.08%.
		return false
	}
	x := *n.Value * k
	if !n.Signed {
		x = math.Abs(x)
	}
	tol := max(n.Tolerance*k, vtol)
	return math.Abs(x-v) <= tol+eps
}

// Check reads text, matches every number against metrics and gives the
// verdict:
//
//   - withheld: a required metric is missing (with OnMissing "withhold",
//     the default), or Strict and a number is untraced;
//   - degraded: any other untraced number or missing metric, or the check
//     could not run fully (text not valid UTF-8, a metric without a finite
//     value, a duplicate metric name);
//   - formal: otherwise.
//
// A number fits a metric when the metric lies within the number's written
// precision (or the metric's own Decimals, whichever is wider), or inside
// its interval. A number that fits several metrics is ambiguous: it is not
// given to the first, and counts as untraced. A [[m:name]] marker mentions
// its metric, because the system fills that number in from the metric.
func Check(text string, metrics []Metric, opt Options) Result {
	res := Result{Numbers: readMarkersIn(text, opt.Markers)}
	if res.Numbers == nil {
		res.Numbers = []Number{}
	}
	incomplete := false
	if !utf8.ValidString(text) {
		incomplete = true
		res.Reasons = append(res.Reasons, "the text is not valid UTF-8, so it could not be read fully")
	}
	if k := firstBidiControl(text); k >= 0 {
		incomplete = true
		res.Reasons = append(res.Reasons, fmt.Sprintf("the text holds a bidirectional control (U+%04X) %s, which can show its digits in another order than they are read", []rune(text[k:])[0], opt.where(k)))
	}
	targets := make([]target, 0, len(metrics))
	known := make(map[string]bool, len(metrics))
	for _, m := range metrics {
		if known[m.Name] {
			incomplete = true
			res.Reasons = append(res.Reasons, fmt.Sprintf("metric %q is defined twice; numbers cannot be traced to it unambiguously", m.Name))
			continue
		}
		known[m.Name] = true
		t, ok := normalise(m)
		if !ok {
			incomplete = true
			res.Reasons = append(res.Reasons, fmt.Sprintf("metric %q has no finite value, so no number can be traced to it", m.Name))
			continue
		}
		targets = append(targets, t)
	}

	mentioned := map[string]bool{}
	// untraced keeps the first few descriptions only; a long narrative
	// with thousands of stray numbers still costs one string each less.
	const show = 5
	var untraced []string
	nUntraced := 0
	var hits []string
	var names []string // one allocation for all Matched pointers
	for k := range res.Numbers {
		n := &res.Numbers[k]
		if n.Ignored != nil {
			if *n.Ignored == IgnoredMarker {
				if name, ok := markerMetric(n.Text); ok {
					mentioned[name] = true
				}
			}
			continue
		}
		hits = hits[:0]
		for _, t := range targets {
			if fits(n, t) {
				hits = append(hits, t.name)
			}
		}
		switch len(hits) {
		case 1:
			if len(names) == cap(names) {
				names = make([]string, 0, 64)
			}
			names = append(names, hits[0])
			n.Matched = &names[len(names)-1]
			mentioned[hits[0]] = true
		case 0:
			nUntraced++
			if len(untraced) < show {
				untraced = append(untraced, fmt.Sprintf("%q %s", n.Text, opt.where(n.Start)))
			}
		default:
			n.Ambiguous = append([]string(nil), hits...)
			sort.Strings(n.Ambiguous)
			nUntraced++
			if len(untraced) < show {
				untraced = append(untraced, fmt.Sprintf("%q %s (fits %s)", n.Text, opt.where(n.Start), strings.Join(n.Ambiguous, ", ")))
			}
		}
	}
	res.Untraced = nUntraced

	seen := map[string]bool{}
	for _, r := range opt.Required {
		r = strings.TrimSpace(r)
		if r == "" || seen[r] {
			continue
		}
		seen[r] = true
		if !mentioned[r] {
			res.Missing = append(res.Missing, r)
		}
	}

	withhold := false
	if len(res.Missing) > 0 {
		for _, r := range res.Missing {
			if !known[r] {
				res.Reasons = append(res.Reasons, fmt.Sprintf("required metric %q is not in the metric set", r))
			} else {
				res.Reasons = append(res.Reasons, fmt.Sprintf("required metric %q is not mentioned by any number", r))
			}
		}
		if opt.OnMissing != "degrade" {
			withhold = true
		}
	}
	if nUntraced > 0 {
		more := ""
		if nUntraced > len(untraced) {
			more = fmt.Sprintf(" and %d more", nUntraced-len(untraced))
		}
		res.Reasons = append(res.Reasons, fmt.Sprintf("%d number(s) cannot be traced to exactly one metric: %s%s", nUntraced, strings.Join(untraced, "; "), more))
		if opt.Strict {
			withhold = true
		}
	}
	switch {
	case withhold:
		res.Tier = TierWithheld
	case incomplete || nUntraced > 0 || len(res.Missing) > 0:
		res.Tier = TierDegraded
	default:
		res.Tier = TierFormal
	}
	return res
}

// markerMetric returns the metric a [[m:name]] or [[m:name|unit]] marker
// names.
func markerMetric(text string) (string, bool) {
	inner, ok := strings.CutPrefix(text, "[[m:")
	if !ok {
		return "", false
	}
	inner = strings.TrimSuffix(inner, "]]")
	if k := strings.IndexByte(inner, '|'); k >= 0 {
		inner = inner[:k]
	}
	inner = strings.TrimSpace(inner)
	return inner, inner != ""
}

// where says where byte off of the checked text stands: "at byte 12", or
// "in field headline at byte 4" when the text was joined from Parts.
func (opt Options) where(off int) string {
	for i := len(opt.Parts) - 1; i >= 0; i-- {
		if p := opt.Parts[i]; off >= p.Start {
			return fmt.Sprintf("in %s at byte %d", p.Name, off-p.Start)
		}
	}
	return fmt.Sprintf("at byte %d", off)
}

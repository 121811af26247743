package issuance

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/evidence"
	erender "github.com/agentlab/agentlab/evidence/render"
)

// renderTemplates are report lines as a model writes them, with the
// markers the system fills in; %s stands for a marker. They carry the
// structure of a Markdown report (headings, lists, tables, footnotes,
// dates, versions) so that a filled-in value has to be told apart from it.
var renderTemplates = []string{
	"GMV for the week was %s, per the ledger [1].",
	"## 2.1 Revenue\n\nRevenue reached %s in Q3 2026.",
	"1. GMV: %s\n2. Orders: %s",
	"- Conversion: %s (v2.4.1 release)",
	"| # | Metric | Value |\n|---|---|---:|\n| 1 | GMV | %s |\n| 2 | Orders | %s |",
	"> 3) Net margin stood at %s on 2026-11-29.",
	"本周销售额为%s，环比%s[^2]。",
	"## 一、总体\n\n（1）订单量%s；\n（2）客单价%s。",
	"十一假期期间，成交额达到%s。",
	"Since 2019 the figure moved from %s to %s, see Table 3.",
	"The metric (%s) is defined in Section 4.2.",
	"据表2，华东占%s，华南占%s。",
	"Week 47: %s; week 48: %s.",
	"<sup>1</sup> %s, rounded.",
}

// renderCase is one metric with a way the report may show it.
type renderCase struct {
	mv   evidence.MetricValue
	unit string // the marker's display unit ([[m:x|万]]), "" for none
}

// randomRenderCase draws a metric of a realistic kind and a display unit
// the marker grammar allows for it.
func randomRenderCase(r *rand.Rand, name string) renderCase {
	val := func(v float64) *float64 { return &v }
	dec := func() *int {
		if r.IntN(3) == 0 {
			return nil
		}
		d := r.IntN(4)
		return &d
	}
	sign := 1.0
	if r.IntN(5) == 0 {
		sign = -1
	}
	mag := math.Pow(10, float64(r.IntN(13)-1)) // 0.1 … 1e11
	v := sign * math.Round(r.Float64()*mag*1000) / 1000
	switch r.IntN(6) {
	case 0: // a ratio shown as a percent
		x := sign * r.Float64() * 1.5
		c := renderCase{mv: evidence.MetricValue{Name: name, Value: val(x), Format: "percent", Decimals: dec()}}
		if r.IntN(2) == 0 {
			c.unit = "%"
		}
		return c
	case 1: // a unitless ratio, shown with [[m:x|%]]
		return renderCase{mv: evidence.MetricValue{Name: name, Value: val(sign * r.Float64())}, unit: "%"}
	case 2: // percent points, shown as they are or with [[m:x|%]]
		c := renderCase{mv: evidence.MetricValue{Name: name, Value: val(sign * math.Round(r.Float64()*10000) / 100), Unit: "%", Decimals: dec()}}
		if r.IntN(2) == 0 {
			c.unit = "%"
		}
		return c
	case 3: // an amount shown in a scale
		units := []string{"万", "亿", "千", "k", "K", "M", "B"}
		return renderCase{mv: evidence.MetricValue{Name: name, Value: val(v), Unit: []string{"", "元", "yuan", "USD"}[r.IntN(4)], Format: []string{"", "number", "currency"}[r.IntN(3)]}, unit: units[r.IntN(len(units))]}
	case 4: // an amount in a scaled unit
		return renderCase{mv: evidence.MetricValue{Name: name, Value: val(math.Round(v) / 100), Unit: []string{"万元", "亿元", "million", "k"}[r.IntN(4)], Decimals: dec()}}
	default: // a plain count or amount
		return renderCase{mv: evidence.MetricValue{Name: name, Value: val(v), Unit: []string{"", "元", "stores", "人"}[r.IntN(4)], Decimals: dec()}}
	}
}

// TestRenderedMarkersAreTraced is the property that filling a report's
// markers never creates a number the reader cannot trace: whatever the
// metric's value, format, unit and decimals, and whichever display unit
// the marker asks for, the text the system writes in its place is read
// as one number that fits that metric, and the structure around it is
// never taken for a quantity.
func TestRenderedMarkersAreTraced(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 2026))
	for iter := 0; iter < 3000; iter++ {
		tpl := renderTemplates[r.IntN(len(renderTemplates))]
		n := strings.Count(tpl, "%s")
		cases := make([]renderCase, n)
		var metrics []Metric
		var b strings.Builder
		type span struct {
			start, end int
			name       string
		}
		var spans []span
		parts := strings.Split(tpl, "%s")
		for k := range cases {
			name := fmt.Sprintf("m%d", k)
			cases[k] = randomRenderCase(r, name)
			mv := cases[k].mv
			metrics = append(metrics, Metric{Name: name, Value: *mv.Value, Unit: mv.Unit, Decimals: mv.Decimals, Format: mv.Format})
			b.WriteString(parts[k])
			text, ok := erender.FormatMetric(&mv, cases[k].unit)
			if !ok {
				t.Fatalf("metric %+v with unit %q does not render", mv, cases[k].unit)
			}
			spans = append(spans, span{b.Len(), b.Len() + len(text), name})
			b.WriteString(text)
		}
		b.WriteString(parts[n])
		text := b.String()
		res := Check(text, metrics, Options{})
		for _, sp := range spans {
			var found []Number
			for _, num := range res.Numbers {
				if num.Start < sp.end && num.End > sp.start {
					found = append(found, num)
				}
			}
			if len(found) != 1 {
				t.Fatalf("%q: the value %q is read as %d numbers: %s", text, text[sp.start:sp.end], len(found), render(found))
			}
			num := found[0]
			fitsOwn := num.Matched != nil && *num.Matched == sp.name
			for _, a := range num.Ambiguous {
				fitsOwn = fitsOwn || a == sp.name
			}
			if num.Ignored != nil || !fitsOwn {
				k := sp.name[1] - '0'
				mv := cases[k].mv
				d := "unset"
				if mv.Decimals != nil {
					d = fmt.Sprint(*mv.Decimals)
				}
				t.Fatalf("%q: the value %q of %s (value %v, unit %q, format %q, decimals %s; display unit %q) is read as %s and not traced to it (ambiguous %v)",
					text, text[sp.start:sp.end], sp.name, *mv.Value, mv.Unit, mv.Format, d, cases[k].unit, render(found), num.Ambiguous)
			}
		}
		for _, num := range res.Numbers {
			inside := false
			for _, sp := range spans {
				inside = inside || (num.Start < sp.end && num.End > sp.start)
			}
			if !inside && num.Ignored == nil {
				t.Fatalf("%q: the structure %q is read as a quantity", text, num.Text)
			}
		}
	}
}

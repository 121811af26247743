package render

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/evidence"
)

var calcCases = []struct {
	in   string
	want float64
	err  string
}{
	{"1 + 2 * 3", 7, ""},
	{"(1 + 2) * 3", 9, ""},
	{"-3 - -2", -1, ""},
	{"+4", 4, ""},
	{"10 / 4", 2.5, ""},
	{"1e3 + .5", 1000.5, ""},
	{"sum([1200.5, 800, 450.25, 300, 49.25])", 2800, ""},
	{"sum(1, 2, [3, [4]])", 10, ""},
	{"sum([])", 0, ""},
	{"avg([1, 2, null, 3])", 2, ""},
	{"count([1, null, 2])", 2, ""},
	{"min([3, -1, 2])", -1, ""},
	{"max(3, 9, 2)", 9, ""},
	{"abs(-2.5)", 2.5, ""},
	{"round(2.5)", 3, ""},
	{"round(-2.5)", -3, ""},
	{"round(1.005, 2)", 1, ""}, // 1.005 is 1.00499… in binary
	{"round(0.125, 2)", 0.13, ""},
	{"1200.5 / 2800", 1200.5 / 2800, ""},
	{"0.1 + 0.2", 0.30000000000000004, ""}, // not constant-folded
	{"1 / 0", 0, "division by zero"},
	{"avg([])", 0, "avg of no values"},
	{"[1, 2]", 0, "not a number"},
	{"[1] + 1", 0, "list or null"},
	{"null * 2", 0, "list or null"},
	{"-[1]", 0, "list or null"},
	{"1 +", 0, "ends too early"},
	{"(1", 0, "missing )"},
	{"foo(1)", 0, "unknown function"},
	{"x", 0, "unknown name"},
	{"1 2", 0, "unexpected"},
	{"round(1, 1.5)", 0, "whole number"},
	{"round(1, 16)", 0, "whole number"},
	{"abs(1, 2)", 0, "abs takes one number"},
	{"1e999", 0, "bad number"},
	{"1e308 * 10", 0, "finite"},
	{"sum(1,)", 0, ""},
	{strings.Repeat("(", 100) + "1" + strings.Repeat(")", 100), 0, "nested deeper"},
	{strings.Repeat("-", 100) + "1", 0, "nested deeper"},
	{"alert(1)", 0, "unknown function"},
	{"", 0, "ends too early"},
}

func TestCalc(t *testing.T) {
	for _, c := range calcCases {
		got, err := Calc(c.in)
		if c.err != "" || c.in == "sum(1,)" {
			if err == nil {
				t.Errorf("Calc(%.40q) = %v, want an error", c.in, got)
			} else if c.err != "" && !strings.Contains(err.Error(), c.err) {
				t.Errorf("Calc(%.40q) error %q, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Calc(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

func TestFixedMatchesToFixed(t *testing.T) {
	cases := []struct {
		x    float64
		d    int
		want string
	}{
		{2.5, 0, "3"}, {-2.5, 0, "-3"}, {1.005, 2, "1.00"}, {0.125, 2, "0.13"}, {1.45, 1, "1.4"},
		{-0.001, 2, "-0.00"}, {0, 2, "0.00"}, {1e21, 2, "1e+21"}, {123456.789, 1, "123456.8"}, {0.5, 0, "1"},
	}
	for _, c := range cases {
		if got := Fixed(c.x, c.d); got != c.want {
			t.Errorf("Fixed(%v, %d) = %q, want %q", c.x, c.d, got, c.want)
		}
	}
}

// TestTwinsMatchJS runs the browser twins of Calc, Fixed and the metric
// and cell formatting under node over the same inputs and requires the
// same results to the bit, since the bundle's verifier re-fills the
// report with them.
func TestTwinsMatchJS(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed; the browser tests cover the same code")
	}
	type out struct {
		In    string  `json:"in"`
		Value float64 `json:"value"`
		Err   bool    `json:"err"`
	}
	var calc []out
	for _, c := range calcCases {
		v, err := Calc(c.in)
		calc = append(calc, out{c.in, v, err != nil})
	}
	type fx struct {
		X    float64 `json:"x"`
		D    int     `json:"d"`
		Want string  `json:"want"`
	}
	var fixed []fx
	for _, x := range []float64{0, 1, -1, 0.5, 1.5, 2.5, -2.5, 1.005, 0.125, 1234567.891, 0.000001234, 99.995, 1e20, 1e21, 123.456, 1200.5 / 2800, 2800, math.MaxFloat64, 5e-324} {
		for d := 0; d <= 4; d++ {
			fixed = append(fixed, fx{x, d, group(Fixed(x, d))})
		}
	}
	type mf struct {
		X      float64 `json:"x"`
		D      int     `json:"d"`
		Format string  `json:"format"`
		Unit   string  `json:"unit"`
		Own    string  `json:"own"`
		Want   string  `json:"want"`
	}
	var metric []mf
	for _, x := range []float64{35900, 1172100, -1500, 0.35216, 123456789, 0.5} {
		for d := 0; d <= 2; d++ {
			for _, format := range []string{"number", "percent"} {
				for _, unit := range []string{"", "万", "亿", "k", "M", "%"} {
					for _, own := range []string{"", "%", "‰", "CNY"} {
						want, _ := FormatMetric(&evidence.MetricValue{Value: &x, Decimals: &d, Format: format, Unit: own}, unit)
						metric = append(metric, mf{x, d, format, unit, own, want})
					}
				}
			}
		}
	}
	dir := t.TempDir()
	data, _ := json.Marshal(map[string]any{"calc": calc, "fixed": fixed, "metric": metric})
	in := filepath.Join(dir, "cases.json")
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	script := `const AL = require(process.argv[2]); const c = require(process.argv[3]); let bad = 0;
for (const k of c.calc) { let v = 0, e = false; try { v = AL.calc(k.in); } catch (x) { e = true; }
  if (e !== k.err || (!e && !Object.is(v, k.value))) { bad++; console.log("calc", JSON.stringify(k.in), v, e, "want", k.value, k.err); } }
const group = s => { let sign = ""; if (s[0] === "-") { sign = "-"; s = s.slice(1); } if (s.indexOf("e") >= 0) return sign + s;
  const dot = s.indexOf("."), ip = dot < 0 ? s : s.slice(0, dot), fr = dot < 0 ? "" : s.slice(dot); let o = "";
  for (let i = 0; i < ip.length; i++) { if (i > 0 && (ip.length - i) % 3 === 0) o += ","; o += ip[i]; } return sign + o + fr; };
for (const f of c.fixed) { const got = AL.formatMetric({value: f.x, decimals: f.d, format: "number"}, ""); if (got !== f.want) { bad++; console.log("fixed", f.x, f.d, got, "want", f.want); } }
for (const m of c.metric) { const got = AL.formatMetric({value: m.x, decimals: m.d, format: m.format, unit: m.own}, m.unit); if (got !== m.want) { bad++; console.log("metric", m.x, m.d, m.format, m.unit, m.own, got, "want", m.want); } }
process.exit(bad ? 1 : 0);`
	sp := filepath.Join(dir, "twins.js")
	if err := os.WriteFile(sp, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	js, _ := filepath.Abs("assets/report.js")
	if b, err := exec.Command(node, sp, js, in).CombinedOutput(); err != nil {
		t.Fatalf("the JavaScript twins disagree: %v\n%s", err, b)
	}
}

func FuzzCalc(f *testing.F) {
	for _, c := range calcCases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Calc(s)
		if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
			t.Fatalf("Calc(%q) = %v without an error", s, v)
		}
	})
}

package issuance

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/diag"
)

func ip(v int) *int { return &v }

func TestCheckMatching(t *testing.T) {
	pct := func(name string, v float64) Metric { return Metric{Name: name, Value: v, Format: "percent"} }
	num := func(name string, v float64) Metric { return Metric{Name: name, Value: v} }
	cases := []struct {
		name    string
		text    string
		metrics []Metric
		want    string // "matched" per number, "-" untraced, "a,b" ambiguous
	}{
		{"percent matches ratio metric", "up 8.7%", []Metric{pct("wow", 0.087)}, "wow"},
		{"percent words match ratio", "up 12.3 percent", []Metric{num("r", 0.123)}, "r"},
		{"ratio written as decimal", "ratio 0.123", []Metric{pct("r", 0.123)}, "r"},
		{"percent points metric", "up 8.7%", []Metric{{Name: "wow", Value: 8.7, Unit: "%"}}, "wow"},
		{"Chinese percent", "增长百分之八点七", []Metric{pct("wow", 0.087)}, "wow"},
		{"rounded percent", "up 8.7%", []Metric{pct("wow", 0.08749)}, "wow"},
		{"beyond rounding", "up 8.7%", []Metric{pct("wow", 0.08751)}, "-"},
		{"3.5万 is ±500 (in)", "3.5万", []Metric{num("gmv", 35400)}, "gmv"},
		{"3.5万 is ±500 (out)", "3.5万", []Metric{num("gmv", 35600)}, "-"},
		{"35万 is ±5000 (in)", "35万", []Metric{num("gmv", 354000)}, "gmv"},
		{"35万 is ±5000 (out)", "35万", []Metric{num("gmv", 356000)}, "-"},
		{"separators", "1,234,567", []Metric{num("gmv", 1234567)}, "gmv"},
		{"integer is ±0.5", "1,234,567", []Metric{num("gmv", 1234568)}, "-"},
		{"million", "1.2 million", []Metric{num("users", 1234567)}, "users"},
		{"unsigned matches negative", "down 3.2%", []Metric{pct("wow", -0.032)}, "wow"},
		{"signed must agree", "+3.2%", []Metric{pct("wow", -0.032)}, "-"},
		{"signed negative", "-3.2%", []Metric{pct("wow", -0.032)}, "wow"},
		{"interval in", "两千余家", []Metric{num("stores", 2345)}, "stores"},
		{"interval out", "两千余家", []Metric{num("stores", 3500)}, "-"},
		{"interval upper bound", "20多家", []Metric{num("stores", 30)}, "stores"},
		{"fraction", "三分之一", []Metric{pct("share", 0.33)}, "share"},
		{"一半", "一半", []Metric{pct("share", 0.503)}, "share"},
		{"三成", "三成", []Metric{pct("share", 0.32)}, "share"},
		{"factor", "2倍", []Metric{num("growth", 2.2)}, "growth"},
		{"Chinese numeral", "两千五百家", []Metric{num("stores", 2530)}, "stores"},
		{"hedged number", "about 2,000 stores", []Metric{num("stores", 2345)}, "stores"},
		{"unhedged number", "2,000 stores", []Metric{num("stores", 2345)}, "-"},
		{"ambiguous", "1234", []Metric{num("b", 1234.2), num("a", 1233.9)}, "a,b"},
		{"not ambiguous with distinct precision", "1234.2", []Metric{num("b", 1234.2), num("a", 1233.9)}, "b"},
		{"metric decimals widen", "8.74%", []Metric{{Name: "wow", Value: 0.087, Format: "percent", Decimals: ip(1)}}, "wow"},
		{"metric decimals integer", "1234.4", []Metric{{Name: "gmv", Value: 1234, Decimals: ip(0)}}, "gmv"},
		{"unit scale 万元", "35万元", []Metric{{Name: "gmv", Value: 35, Unit: "万元"}}, "gmv"},
		{"unit scale digits", "350000", []Metric{{Name: "gmv", Value: 35, Unit: "万元"}}, "gmv"},
		{"unit scale million", "2.5 million", []Metric{{Name: "users", Value: 2.5, Unit: "million"}}, "users"},
		{"unit kg is not a scale", "35", []Metric{{Name: "w", Value: 35, Unit: "kg"}}, "w"},
		{"several numbers", "GMV 1,234.5, up 8.7%, 3 new stores", []Metric{num("gmv", 1234.5), pct("wow", 0.087)}, "gmv wow -"},
		{"ignored never match", "2026-11-29 Q3 第三", []Metric{num("y", 2026), num("q", 3)}, ""},
		// Percents and fractions against a metric without a unit: as a
		// ratio or as the same figure in points.
		{"percent matches points of a unitless metric", "share 48.6%", []Metric{num("share", 48.6)}, "share"},
		{"percent matches ratio of a unitless metric", "share 48.6%", []Metric{num("share", 0.486)}, "share"},
		{"percent and points metrics are ambiguous", "8.7%", []Metric{pct("a", 0.087), num("b", 8.7)}, "a,b"},
		{"percent does not match points with a unit", "8.7%", []Metric{{Name: "price", Value: 8.7, Unit: "元"}}, "-"},
		{"hedged half matches a share in points", "近一半门店", []Metric{num("share", 48.6)}, "share"},
		{"hedged half matches a ratio", "nearly half of stores", []Metric{num("share", 0.486)}, "share"},
		{"unhedged half stays precise", "一半门店", []Metric{num("share", 48.6)}, "-"},
		{"half of stays precise", "half of the stores", []Metric{num("share", 0.47)}, "-"},
		{"三成 matches a ratio", "三成", []Metric{num("ratio", 0.2987)}, "ratio"},
		{"hedged 三成 matches points", "近三成", []Metric{num("ratio", 29.87)}, "ratio"},
		{"hedged fraction widens", "约三分之一", []Metric{num("share", 0.37)}, "share"},
		{"unhedged fraction does not widen", "三分之一", []Metric{num("share", 0.37)}, "-"},
		{"percentage points match points", "up 1.5 percentage points", []Metric{num("delta", 1.5)}, "delta"},
		{"percentage points match a ratio", "up 1.5 percentage points", []Metric{num("delta", 0.015)}, "delta"},
		{"pp match a metric in pp", "up 1.5pp", []Metric{{Name: "delta", Value: 1.5, Unit: "pp"}}, "delta"},
		{"个百分点 match a metric in 个百分点", "提升1.5个百分点", []Metric{{Name: "delta", Value: 1.5, Unit: "个百分点"}}, "delta"},
		{"bps match basis points", "widened 30 bps", []Metric{num("spread", 30)}, "spread"},
		{"bps match a metric in bps", "widened 30bps", []Metric{{Name: "spread", Value: 30, Unit: "bps"}}, "spread"},
		{"bps match a ratio", "widened 30 bps", []Metric{num("spread", 0.003)}, "spread"},
		{"percent interval in points", "逾30%", []Metric{num("share", 34)}, "share"},
		// Spellings.
		{"lower-case million after a currency", "$4.5m", []Metric{num("rev", 4.5e6)}, "rev"},
		{"thin-space grouping", "1\u2009234\u2009567", []Metric{num("gmv", 1234567)}, "gmv"},
		{"apostrophe grouping", "1'234'567", []Metric{num("gmv", 1234567)}, "gmv"},
		// A metric with a scaled unit, written in that unit (a table
		// with the unit in its header).
		{"value in the unit of the metric", "| GMV（万元） |\n|---|\n| 35 |", []Metric{{Name: "gmv", Value: 35, Unit: "万元"}}, "gmv"},
		{"value in base units still matches", "35万元", []Metric{{Name: "gmv", Value: 35, Unit: "万元"}}, "gmv"},
		{"spaced unit", "35 万元", []Metric{{Name: "gmv", Value: 350000, Unit: "元"}}, "gmv"},
		{"unit decimals widen in the unit", "35.2", []Metric{{Name: "gmv", Value: 35.24, Unit: "万元", Decimals: ip(1)}}, "gmv"},
		{"percent is not a value in a scaled unit", "35%", []Metric{{Name: "gmv", Value: 0.35, Unit: "万元"}}, "-"},
		// Structure never matches.
		{"structure never matches", "1. item [2] ## v3.1.4 Table 5", []Metric{num("a", 1), num("b", 2), num("c", 5)}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := Check(c.text, c.metrics, Options{})
			var got []string
			for _, n := range res.Numbers {
				switch {
				case n.Ignored != nil:
					continue
				case n.Matched != nil:
					got = append(got, *n.Matched)
				case len(n.Ambiguous) > 0:
					if n.Matched != nil {
						t.Errorf("ambiguous number %q also matched", n.Text)
					}
					got = append(got, strings.Join(n.Ambiguous, ","))
				default:
					got = append(got, "-")
				}
			}
			if g := strings.Join(got, " "); g != c.want {
				t.Errorf("Check(%q) = %q, want %q (numbers %s)", c.text, g, c.want, render(res.Numbers))
			}
			untraced := strings.Count(c.want, "-") + strings.Count(c.want, ",")
			if res.Untraced != untraced {
				t.Errorf("untraced = %d, want %d", res.Untraced, untraced)
			}
		})
	}
}

func TestCheckVerdict(t *testing.T) {
	metrics := []Metric{{Name: "gmv", Value: 1234.5}, {Name: "wow", Value: 0.087, Format: "percent"}, {Name: "stores", Value: 25}}
	cases := []struct {
		name    string
		text    string
		metrics []Metric
		opt     Options
		tier    string
		missing []string
		reason  string // a substring of one reason
	}{
		{"all traced", "GMV 1,234.5, up 8.7%.", metrics, Options{}, TierFormal, nil, ""},
		{"empty text", "", metrics, Options{}, TierFormal, nil, ""},
		{"only ignored numbers", "On 2026-11-29 (Q3), 第三 a few [[m:gmv]].", metrics, Options{}, TierFormal, nil, ""},
		{"untraced degrades", "GMV 1,234.5 from 17 stores", metrics, Options{}, TierDegraded, nil, `"17" at byte 17`},
		{"untraced withholds when strict", "GMV 1,234.5 from 17 stores", metrics, Options{Strict: true}, TierWithheld, nil, "cannot be traced"},
		{"strict and all traced", "GMV 1,234.5 from 25 stores", metrics, Options{Strict: true}, TierFormal, nil, ""},
		{"ambiguous degrades", "25", []Metric{{Name: "a", Value: 25}, {Name: "b", Value: 25.3}}, Options{}, TierDegraded, nil, "fits a, b"},
		{"ambiguous withholds when strict", "25", []Metric{{Name: "a", Value: 25}, {Name: "b", Value: 25.3}}, Options{Strict: true}, TierWithheld, nil, "fits a, b"},
		{"required present", "GMV 1,234.5, up 8.7%.", metrics, Options{Required: []string{"gmv", "wow"}}, TierFormal, nil, ""},
		{"required missing withholds", "GMV 1,234.5.", metrics, Options{Required: []string{"gmv", "wow"}}, TierWithheld, []string{"wow"}, `"wow" is not mentioned`},
		{"required missing degrades on request", "GMV 1,234.5.", metrics, Options{Required: []string{"wow"}, OnMissing: "degrade"}, TierDegraded, []string{"wow"}, `"wow" is not mentioned`},
		{"required via marker", "GMV [[m:gmv|万]], up [[m:wow]].", metrics, Options{Required: []string{"gmv", "wow"}}, TierFormal, nil, ""},
		{"required unknown metric", "GMV 1,234.5.", metrics, Options{Required: []string{"gmv", "nps"}}, TierWithheld, []string{"nps"}, `"nps" is not in the metric set`},
		{"required deduplicated", "x", metrics, Options{Required: []string{"wow", " wow", ""}}, TierWithheld, []string{"wow"}, ""},
		{"ambiguous does not mention", "25", []Metric{{Name: "a", Value: 25}, {Name: "b", Value: 25}}, Options{Required: []string{"a"}}, TierWithheld, []string{"a"}, ""},
		{"invalid UTF-8 is never formal", "GMV 1,234.5 \xff", metrics, Options{}, TierDegraded, nil, "not valid UTF-8"},
		{"invalid UTF-8 and strict untraced", "GMV 99 \xff", metrics, Options{Strict: true}, TierWithheld, nil, "not valid UTF-8"},
		{"metric without finite value", "GMV 1,234.5", append([]Metric{{Name: "bad", Value: math.NaN()}}, metrics...), Options{}, TierDegraded, nil, `"bad" has no finite value`},
		{"duplicate metric name", "GMV 1,234.5", append([]Metric{{Name: "gmv", Value: 1}}, metrics...), Options{}, TierDegraded, nil, "defined twice"},
		{"many untraced are summarised", "1 2 3 4 5 6 7", nil, Options{}, TierDegraded, nil, "and 2 more"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := Check(c.text, c.metrics, c.opt)
			if res.Tier != c.tier {
				t.Errorf("tier = %s, want %s (reasons %q)", res.Tier, c.tier, res.Reasons)
			}
			if !reflect.DeepEqual(res.Missing, c.missing) {
				t.Errorf("missing = %q, want %q", res.Missing, c.missing)
			}
			if c.tier == TierFormal && len(res.Reasons) > 0 {
				t.Errorf("formal with reasons %q", res.Reasons)
			}
			if c.tier != TierFormal && len(res.Reasons) == 0 {
				t.Errorf("%s without a reason", res.Tier)
			}
			if c.reason != "" && !strings.Contains(strings.Join(res.Reasons, "\n"), c.reason) {
				t.Errorf("reasons %q do not contain %q", res.Reasons, c.reason)
			}
			if res.Numbers == nil {
				t.Errorf("Numbers is nil; JSON would print null")
			}
		})
	}
}

// TestJSONShape pins the docs/cli.md shape: the first keys of a number are
// text, start, end, value, interval, matched, ignored, in that order.
func TestJSONShape(t *testing.T) {
	res := Check("up 8.7% on 2026-11-29, 两千余家", []Metric{{Name: "wow", Value: 0.087, Format: "percent"}}, Options{})
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"tier":"degraded","numbers":[` +
		`{"text":"8.7%","start":3,"end":7,"value":0.087,"interval":null,"matched":"wow","ignored":null,"tolerance":0.0005,"per":100},` +
		`{"text":"2026-11-29","start":11,"end":21,"value":null,"interval":null,"matched":null,"ignored":"date"},` +
		`{"text":"两千余","start":23,"end":32,"value":null,"interval":[2000,3000],"matched":null,"ignored":null}],` +
		`"untraced":1,"reasons":["1 number(s) cannot be traced to exactly one metric: \"两千余\" at byte 23"]}`
	if string(b) != want {
		t.Errorf("JSON\n got: %s\nwant: %s", b, want)
	}
}

func TestParseMetrics(t *testing.T) {
	ok := []struct {
		name, in string
		want     []Metric
	}{
		{"object of numbers", `{"gmv": 1234.5, "wow": 0.087}`, []Metric{{Name: "gmv", Value: 1234.5}, {Name: "wow", Value: 0.087}}},
		{"object of objects", `{"wow": {"value": 0.087, "format": "percent", "decimals": 1}}`, []Metric{{Name: "wow", Value: 0.087, Format: "percent", Decimals: ip(1)}}},
		{"list", `[{"name": "gmv", "value": 35, "unit": "万元"}]`, []Metric{{Name: "gmv", Value: 35, Unit: "万元"}}},
		{"empty object", `{}`, nil},
	}
	for _, c := range ok {
		got, err := ParseMetrics("m.json", []byte(c.in))
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %+v, %v; want %+v", c.name, got, err, c.want)
		}
	}
	bad := []struct {
		name, in, code string
		line, col      int
	}{
		{"syntax", "{\"a\": 1,\n \"b\" 2}", CodeMetricsJSON, 2, 6},
		{"truncated", "{\"a\": 1,\n \"b\": ", CodeMetricsJSON, 2, 7},
		{"string value", `{"a": "x"}`, CodeMetricsShape, 1, 7},
		{"scalar document", `42`, CodeMetricsShape, 1, 1},
		{"unknown field", "[\n {\"name\": \"a\", \"value\": 1, \"colour\": 2}]", CodeMetricsShape, 2, 2},
		{"no value", `[{"name": "a"}]`, CodeMetricsShape, 1, 2},
		{"no name", `[{"value": 1}]`, CodeMetricsName, 1, 2},
		{"duplicate", "[{\"name\":\"a\",\"value\":1},\n {\"name\":\"a\",\"value\":2}]", CodeMetricsName, 2, 2},
		{"duplicate key", "{\"a\": 1,\n \"a\": 2}", CodeMetricsName, 2, 2},
		{"bad format", `{"a": {"value": 1, "format": "ratio"}}`, CodeMetricsFormat, 1, 2},
		{"bad decimals", `{"a": {"value": 1, "decimals": -1}}`, CodeMetricsShape, 1, 2},
		{"list entry not object", `[1]`, CodeMetricsShape, 1, 2},
		{"two documents", `{} {}`, CodeMetricsJSON, 1, 4},
		{"empty file", ``, CodeMetricsJSON, 1, 1},
	}
	for _, c := range bad {
		_, err := ParseMetrics("m.json", []byte(c.in))
		var d diag.Diagnostic
		if !errors.As(err, &d) {
			t.Errorf("%s: error %v is not a diagnostic", c.name, err)
			continue
		}
		if d.Code != c.code || d.Line != c.line || d.Col != c.col || d.File != "m.json" || d.Fix == "" {
			t.Errorf("%s: got %s (fix %q), want %s at %d:%d", c.name, d, d.Fix, c.code, c.line, c.col)
		}
	}
}

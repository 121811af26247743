package issuance

import (
	"testing"
	"unicode"
)

// TestReadModelHidesFigureInFormatting plays a model that writes an
// unsupported figure so that a reader sees it but a reader of ASCII
// digits would not: in the digits of another script, or in scientific
// notation. Each must be read as the quantity it shows, at the offsets
// of the text as written, so that it is checked like any other.
func TestReadModelHidesFigureInFormatting(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Revenue hit ９，９９９，９９９ this month", "９，９９９，９９９=9999999±0.5"},
		{"Revenue hit ９９９９９９９", "９９９９９９９=9999999±0.5"},
		{"Revenue hit ٩٩٩٩٩٩٩", "٩٩٩٩٩٩٩=9999999±0.5"},
		{"Revenue hit ९,९९९,९९९", "९,९९९,९९९=9999999±0.5"},
		{"Revenue hit 𝟗𝟗𝟗𝟗𝟗𝟗𝟗", "𝟗𝟗𝟗𝟗𝟗𝟗𝟗=9999999±0.5"},
		{"double-struck 𝟘𝟙𝟚", "𝟘𝟙𝟚=12±0.5"},
		{"up ８．７％ and １２.５%", "８=8±0.5 | ７％=0.07±0.005 | １２.５%=0.125±0.0005"},
		{"第３名, ３季度, ２０２６年", "第３!ordinal | ３季度!quarter | ２０２６年!date"},
		{"Revenue hit 9.99e6", "9.99e6=9990000±5000"},
		{"Revenue hit 1E7 yuan", "1E7=10000000±5000000"},
		{"a rate of 3.2e-1", "3.2e-1=0.32±0.005"},
		{"a rate of 3.2e−1", "3.2e−1=0.32±0.005"},
		{"ratio 5e+2", "5e+2=500±50"},
		{"far too large 1e1000", "1e1000=?"},
		{"a hash 3e5f stays a name", ""},
		{"-0.0 and −0", "-0.0=-0±0.05 | −0=-0±0.5"},
		{"GMV 1.2×10⁶ yuan", "1.2×10⁶=1200000±50000"},
		{"GMV 1.2 x 10^6", "1.2 x 10^6=1200000±50000"},
		{"rate 5·10⁻³", "5·10⁻³=0.005±0.0005"},
		{"a 3*10^-2 share", "3*10^-2=0.03±0.005"},
		{"2x 10 stores", "2x=2±0.5 | 10=10±0.5"},
		// Superscripts: a footnote mark is short; a longer run is a
		// figure a reader sees.
		{"Revenue ¹²³⁴⁵⁶⁷", "¹²³⁴⁵⁶⁷=1234567±0.5"},
		{"see note¹ and²³, 1,234⁴", "1,234=1234±0.5"},
		{"E = mc² and H₂O", ""},
		// Nothing shown between two digits: one figure, as it looks.
		{"GMV 4\u200b128 CNY", "4\u200b128=4128±0.5"},
		{"GMV 4\u2060\u00ad128", "4\u2060\u00ad128=4128±0.5"},
		{"GMV 4\ufe0f128 and 1\u200b,234", "4\ufe0f128=4128±0.5 | 1\u200b,234=1234±0.5"},
		{"Revenue\u200b128", "128=128±0.5"},
		{"4\u200b 128", "4=4±0.5 | 128=128±0.5"},
	}
	for _, c := range cases {
		if got := render(Read(c.in)); got != c.want {
			t.Errorf("Read(%q)\n got: %s\nwant: %s", c.in, got, c.want)
		}
	}
}

// TestCheckModelHidesFigureInFormatting: the same figures, in a narrative
// checked against metrics, are untraced (or traced when they are right),
// never silently formal.
func TestCheckModelHidesFigureInFormatting(t *testing.T) {
	metrics := []Metric{{Name: "orders", Value: 5275}, {Name: "regions", Value: 4}, {Name: "items", Value: 128}, {Name: "refund_rate", Value: 0.0208, Format: "percent", Decimals: ip(2)}}
	cases := []struct{ text, tier string }{
		{"Orders: 5,275.", TierFormal},
		{"Orders: ５，２７５.", TierFormal},
		{"Orders: 5.275e3.", TierFormal},
		{"Revenue: ９，９９９，９９９.", TierDegraded},
		{"Revenue: ٩٩٩٩٩٩٩.", TierDegraded},
		{"Revenue: 𝟗𝟗𝟗𝟗𝟗𝟗𝟗.", TierDegraded},
		{"Revenue: 9.99e6.", TierDegraded},
		// A written sign must agree with the metric's, even when the
		// tolerance of the figure reaches across zero.
		{"Change: -0.0.", TierDegraded},
		{"Change: −0.", TierDegraded},
		// 4 and 128 would each fit a metric; the reader sees 4128.
		{"Orders: 4\u200b128.", TierDegraded},
		// A right-to-left override shows 128 as 821: never formal.
		{"Orders: \u202e128\u202c.", TierDegraded},
		{"Orders: \u2067128\u2069.", TierDegraded},
	}
	for _, c := range cases {
		if got := Check(c.text, metrics, Options{}); got.Tier != c.tier {
			t.Errorf("Check(%q) = %s (%v), want %s", c.text, got.Tier, got.Reasons, c.tier)
		}
	}
}

func TestDigitValueEveryScript(t *testing.T) {
	for _, c := range []struct {
		r rune
		d byte
	}{{'０', 0}, {'９', 9}, {'٠', 0}, {'٩', 9}, {'۵', 5}, {'०', 0}, {'९', 9}, {'๓', 3}, {'𝟎', 0}, {'𝟗', 9}, {'𝟘', 0}, {'𝟿', 9}} {
		if d, ok := digitValue(c.r); !ok || d != c.d {
			t.Errorf("digitValue(%q) = %d, %v; want %d", c.r, d, ok, c.d)
		}
	}
	// foldDigits skips U+3000–U+A61F without a look: nothing there is a
	// digit or invisible.
	for r := rune(0x3000); r < 0xA620; r++ {
		if unicode.Is(unicode.Nd, r) || invisible(r) {
			t.Errorf("%U is a digit or invisible, inside the range foldDigits skips", r)
		}
	}
	for _, r := range []rune{'5', '²', '①', 'Ⅻ', '五', 'a'} {
		if _, ok := digitValue(r); ok {
			t.Errorf("digitValue(%q) is a digit; want not", r)
		}
	}
}

// TestReadModelHidesFigureAsLinkWordOrDate plays a model that shows a
// figure in a form the reader once took for structure or for nothing: a
// Markdown link's text, digits grouped in brackets, words without digits,
// a year-like amount after a word that also precedes amounts.
func TestReadModelHidesFigureAsLinkWordOrDate(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Revenue [9,999,999](https://x.example)", "9,999,999=9999999±0.5"},
		{"Revenue [123](https://x.example)", "123=123±0.5"},
		{"Revenue [9,999,999] yuan", "9,999,999=9999999±0.5"},
		{"see [1,3] and [1, 3]", "[1,3]!reference | [1, 3]!reference"},
		{"Revenue reached a million yuan", "a million=1000000±500000"},
		{"a hundred thousand users", "a hundred thousand=100000±50000"},
		{"half a billion", "half a billion=500000000±50000000"},
		{"a hundred percent of stores", "a hundred percent=1±0.5"},
		{"a million-dollar idea", ""},
		// A scale the reader once did not know left the bare digit, which
		// could fit a small metric while the text says forty million.
		{"4 crore users", "4 crore=40000000±5000000"},
		{"4 lakh users", "4 lakh=400000±50000"},
		{"4 mil users and 4 bil", "4 mil=4000000±500000 | 4 bil=4000000000±500000000"},
		{"4 k users, 4 M users, $4 MM", "4 k=4000±500 | 4 M=4000000±500000 | 4 MM=4000000±500000"},
		{"4 grand", "4 grand=4000±500"},
		{"4 millions of users", "4 millions=4000000±500000"},
		{"4 dozen stores", "4 dozen=?"},
		{"4 m tall", "4=4±0.5"},
		{"매출 4만 원, 2천만 원", "4만=40000±5000 | 2천만=20000000±5000000"},
		{"4명", "4=4±0.5"},
		{"a few stores and a third of them", "a few!vague | a third=0.3333333333333333±0.005"},
		{"Orders grew by 2050 this week", "2050=2050±0.5"},
		{"after 2050 orders were placed", "2050=2050±0.5"},
		{"by 2030, we expect", "2030!date"},
		{"from 2024 to 2025", "2024!date | 2025=2025±0.5"},
		{"in 2026 sales grew", "2026!date"},
		// A count that opens a heading is a count; a section number is
		// dotted or followed by its title.
		{"## 750 stores closed", "750=750±0.5"},
		{"## 3 Results", "3!section"},
		{"## 3. results", "3.!section"},
		{"## 2.1 revenue", "2.1!section"},
		// A column number is at most the number of columns.
		{"| Stores | 750 |\n|---|---|\n| a | b |", "750=750±0.5"},
		{"| Region | 1 | 2 |\n|---|---|---|\n| a | 5 | 6 |", "1!enumerator | 2!enumerator | 5=5±0.5 | 6=6±0.5"},
	}
	for _, c := range cases {
		if got := render(Read(c.in)); got != c.want {
			t.Errorf("Read(%q)\n got: %s\nwant: %s", c.in, got, c.want)
		}
	}
}

// TestCheckModelSplitsFigureHeld: attacks that held before any rule was
// added for them — a figure split by Markdown or HTML, in a URL, in a
// code span, as a percentage or a fraction — each leaves an untraced
// number, so the text is never formal.
func TestCheckModelSplitsFigureHeld(t *testing.T) {
	metrics := []Metric{{Name: "gmv", Value: 35900}}
	for _, text := range []string{
		"GMV 9**999**999",
		"GMV 9<b>999</b>999",
		"see https://x.example/r?gmv=9999999",
		"GMV `9999999`",
		"GMV up 12.5%",
		"GMV 7/8 of plan",
	} {
		if got := Check(text, metrics, Options{}); got.Tier == TierFormal || got.Untraced == 0 {
			t.Errorf("Check(%q) = %s with %d untraced; want an untraced number", text, got.Tier, got.Untraced)
		}
	}
}

func TestFirstBidiControlEveryControl(t *testing.T) {
	for r := rune(0); r < 0x3000; r++ {
		text := "ab" + string(r) + "c"
		want := -1
		if bidiControl(r) {
			want = 2
		}
		if got := firstBidiControl(text); got != want {
			t.Errorf("firstBidiControl(%U) = %d, want %d", r, got, want)
		}
	}
}

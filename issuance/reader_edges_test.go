package issuance

import (
	"strings"
	"testing"
)

// TestPerOfWrittenShares: Per (part of the JSON a caller reads) says per
// how much a share was written, so that a metric held in points matches
// it; each way of writing a share gives its own.
func TestPerOfWrittenShares(t *testing.T) {
	for _, c := range []struct {
		in  string
		per uint16
	}{
		{"三成", 100},
		{"三成五", 100},
		{"up 8.7%", 100},
		{"1.5 percentage points", 100},
		{"一半", 100},
		{"a third of stores", 100},
		{"3‰", 1000},
		{"25 bp", 10000},
		{"1234 yuan", 0},
	} {
		ns := Read(c.in)
		if len(ns) != 1 || ns[0].Per != c.per {
			t.Errorf("%q: %s, per %v; want one number per %d", c.in, render(ns), pers(ns), c.per)
		}
	}
}

func pers(ns []Number) []uint16 {
	var out []uint16
	for _, n := range ns {
		out = append(out, n.Per)
	}
	return out
}

// TestLettersAreNotCurrencies: a multiplier letter after a number means a
// billion or a million only after a currency; any capitalised word
// before it (a title, an acronym) is not one, or "CEO 2.1b" would be
// checked as 2.1 billion.
func TestLettersAreNotCurrencies(t *testing.T) {
	if got := render(Read("USD 2.1b")); got != "2.1b=2100000000±50000000" {
		t.Errorf("USD 2.1b: %s", got)
	}
	for _, s := range []string{"CEO 2.1b", "ABC 2.1b", "NASA 2.1b"} {
		for _, n := range Read(s) {
			if n.Value != nil && *n.Value > 1e6 {
				t.Errorf("%q read as %s: %q is no currency", s, render([]Number{n}), strings.Fields(s)[0])
			}
		}
	}
}

// TestDatesThatAreNotDates: text shaped like a date but not one is not
// set aside as a date: day 〇 of a Chinese date, a year with a letter in
// it after a month, a timestamp glued to a letter.
func TestDatesThatAreNotDates(t *testing.T) {
	if got := render(Read("〇日 sales 5")); got != "5=5±0.5" {
		t.Errorf("〇日 sales 5: %s; day 〇 is no date", got)
	}
	for _, s := range []string{"三月〇日", "Nov 29, 20x6", "29 Nov 20x6"} {
		for _, n := range Read(s) {
			if strings.Contains(n.Text, "〇") || strings.Contains(n.Text, "20x6") {
				t.Errorf("%s: %q set aside as a date", s, n.Text)
			}
		}
	}
	if got := render(Read("三月五日")); got != "三月五日!date" {
		t.Errorf("三月五日: %s", got)
	}
	for _, n := range Read("2026-11-29T10:00:00Zx") {
		if strings.Contains(n.Text, "Z") {
			t.Errorf("a timestamp glued to a letter taken whole: %q", n.Text)
		}
	}
}

// TestWhereNamesTheFieldAByteStartsIn: a violation at the first byte of a
// joined field is in that field, not at the end of the one before.
func TestWhereNamesTheFieldAByteStartsIn(t *testing.T) {
	opt := Options{Parts: []Part{{Name: "headline", Start: 0, End: 5}, {Name: "body", Start: 5, End: 20}}}
	for off, want := range map[int]string{0: "in headline at byte 0", 4: "in headline at byte 4", 5: "in body at byte 0", 7: "in body at byte 2"} {
		if got := opt.where(off); got != want {
			t.Errorf("where(%d) = %q, want %q", off, got, want)
		}
	}
	if got := (Options{}).where(7); got != "at byte 7" {
		t.Errorf("no parts: %q", got)
	}
}

// TestReadAtTheEdgesOfEachShape: inputs one step from a shape the reader
// sets aside (a dotted group, a date, a fraction, a bullet, an empty table
// cell) are read as what they show, and a text that ends inside a shape
// does not make the reader look past its end.
func TestReadAtTheEdgesOfEachShape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"1.234", "1.234=1.234±0.0005"},                    // one dot: a decimal, not a group
		{"1.234.567", "1.234.567=1234567±0.5"},             // two dots: grouped thousands
		{"45 Nov 2026 sales", "45=45±0.5 | Nov 2026!date"}, // no 45th day
		{"0/3 done", "0=0±0.5 | 3=3±0.5"},                  // no fraction of nothing
		{"2/3 done", "2/3=0.6666666666666666±0.005"},
		{"1/10 of stores", "1/10=0.1±0.005"}, // a two-digit denominator
		{"1/100 of stores", "1=1±0.5 | 100=100±0.5"},
		{"text\n- ", ""},
		{"x\n-", ""},
		{"in week 47 we sold 5", "week 47!date | 5=5±0.5"},
		{"1.2×10¹²", "1.2×10¹²=1200000000000±50000000000"},
		{"| a | b |\n|---|---|\n| | 2 |\n| 1 | 3 |\n", "2=2±0.5 | 1=1±0.5 | 3=3±0.5"}, // an empty cell is no row number
	} {
		if got := render(Read(c.in)); got != c.want {
			t.Errorf("Read(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestReadScalesDatesAndNamesAtTheirBounds: scales, festivals, version
// labels, day ranges, table cells holding a marker and texts that end
// right after a word the reader looks past, each read as what it shows.
func TestReadScalesDatesAndNamesAtTheirBounds(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"六一儿童节", "六一!date"},
		{"五一假期", "五一!date"},
		{"九九节", "九九!vague"}, // not a festival the reader knows
		{"十几家门店", "十几!vague"},
		{"| q | n |\n|---|---|\n| [[q:K1|a b]] | 12 |\n", "[[q:K1|a b]]!marker | 12=12±0.5"}, // the | inside the marker splits no cell
		{"版本号12", "版本号12!version"},
		{"软件版本号12发布", "版本号12!version"},
		{"123/29", "123=123±0.5 | 29=29±0.5"},
		{"Week 47", "Week 47!date"},
		{"2.4万千瓦时", "2.4万=24000±500"},
		{"Nov 20-29 sales", "Nov 20-29!date"},
		{"we sold two ", "two=2±0.5"},
		{"5é", "5=5±0.5"},
		{"sales in Nov", ""},
		{"1.5e12", "1.5e12=1500000000000±50000000000"},
		{"1.5e23", "1.5e23=1.5e+23±5e+21"},
		{"3.5T", "3.5T=3500000000000±50000000000"},
		{"3.5tn", "3.5tn=3500000000000±50000000000"},
		{"between 5 and", "5=5±0.5"},
		{"we sold 5 ", "5=5±0.5"},
		{"grew by 2050 ", "2050=2050±0.5"}, // an amount, not a year: the text ends after a space
	} {
		if got := render(Read(c.in)); got != c.want {
			t.Errorf("Read(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestCheckMetricInThousands: a metric whose unit says thousands (k)
// holds 2.8 for 2,800; the narrative's 2,800 is traced to it.
func TestCheckMetricInThousands(t *testing.T) {
	for _, unit := range []string{"k", "K"} {
		res := Check("Revenue was 2,800 this week.", []Metric{{Name: "revenue", Value: 2.8, Unit: unit}}, Options{})
		if len(res.Numbers) != 1 || res.Numbers[0].Matched == nil || *res.Numbers[0].Matched != "revenue" {
			t.Errorf("unit %s: numbers %s; want 2,800 traced to revenue", unit, render(res.Numbers))
		}
	}
}

// TestCheckBidiControlAtTheFirstByte: a right-to-left override that opens
// the text is found like one anywhere else, and the check is incomplete.
func TestCheckBidiControlAtTheFirstByte(t *testing.T) {
	if res := Check("The north region leads.", nil, Options{}); res.Tier != TierFormal {
		t.Fatalf("a text without figures is issued %s: %v", res.Tier, res.Reasons)
	}
	res := Check("\u202eThe north region leads.", nil, Options{})
	if res.Tier == TierFormal {
		t.Fatalf("a text opening with U+202E is issued %s: %v", res.Tier, res.Reasons)
	}
}

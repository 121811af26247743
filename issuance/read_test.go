package issuance

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

// render prints numbers compactly: text=value±tol, text=[lo,hi],
// text!reason; numbers are separated by " | ".
func render(ns []Number) string {
	var b strings.Builder
	for k, n := range ns {
		if k > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(n.Text)
		switch {
		case n.Ignored != nil:
			b.WriteString("!" + *n.Ignored)
		case n.Interval != nil:
			b.WriteString("=[" + g(n.Interval[0]) + "," + g(n.Interval[1]) + "]")
		case n.Value != nil:
			b.WriteString("=" + g(*n.Value) + "±" + g(n.Tolerance))
		default:
			b.WriteString("=?")
		}
	}
	return b.String()
}

func g(v float64) string {
	if a := math.Abs(v); a == 0 || (a >= 1e-6 && a < 1e15) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

var readCases = []struct{ in, want string }{
	// Plain digits, separators, decimals.
	{"GMV was 1234 yuan", "1234=1234±0.5"},
	{"GMV was 1,234,567 yuan", "1,234,567=1234567±0.5"},
	{"1,234.5", "1,234.5=1234.5±0.05"},
	{"销售额1，234，567元", "1，234，567=1234567±0.5"},
	{"values 1, 2, 3", "1=1±0.5 | 2=2±0.5 | 3=3±0.5"},
	{"1,23 is a list", "1=1±0.5 | 23=23±0.5"},
	{"1,2345", "1=1±0.5 | 2345=2345±0.5"},
	{"12,345,67", "12,345=12345±0.5 | 67=67±0.5"},
	{"0.5", "0.5=0.5±0.05"},
	{"3.14159", "3.14159=3.14159±0.000005"},
	{"a ratio of .25", ".25=0.25±0.005"},
	{"end of sentence 42.", "42=42±0.5"},
	{"2.50", "2.50=2.5±0.005"},
	{"1000000", "1000000=1000000±0.5"},
	{"0", "0=0±0.5"},
	{"007", "007=7±0.5"},
	// Signs.
	{"WoW -3.2%", "-3.2%=-0.032±0.0005"},
	{"change +8%", "+8%=0.08±0.005"},
	{"delta −1.5", "−1.5=-1.5±0.05"},
	{"(-12)", "-12=-12±0.5"},
	{"3-5 stores", "3=3±0.5 | 5=5±0.5"},
	{"COVID-19 cases", ""},
	{"SKU_12 sold", ""},
	{"Q-.0", ""},
	{"COVID-19.5", ""},
	{"跌幅为-2.5%", "-2.5%=-0.025±0.0005"},
	// Percent and ratio forms.
	{"up 8.7% WoW", "8.7%=0.087±0.0005"},
	{"up 12.3 percent", "12.3 percent=0.123±0.0005"},
	{"up 12.3 per cent", "12.3 per cent=0.123±0.0005"},
	{"up 12.3 Percent", "12.3 Percent=0.123±0.0005"},
	{"up 12％", "12％=0.12±0.005"},
	{"up 2.5 pp", "2.5 pp=0.025±0.0005"},
	{"up 2.5pp", "2.5pp=0.025±0.0005"},
	{"up 2 percentage points", "2 percentage points=0.02±0.005"},
	{"up 1 percentage point.", "1 percentage point=0.01±0.005"},
	{"spread of 15bps", "15bps=0.0015±0.00005"},
	{"spread of 15 basis points", "15 basis points=0.0015±0.00005"},
	{"5‰ returns", "5‰=0.005±0.0005"},
	{"提升2.3个百分点", "2.3个百分点=0.023±0.0005"},
	{"提升2百分点", "2百分点=0.02±0.005"},
	{"100%", "100%=1±0.005"},
	{"0.123", "0.123=0.123±0.0005"},
	{"12 pct", "12 pct=0.12±0.005"},
	{"12pct", "12pct=0.12±0.005"},
	// Scale suffixes.
	{"2.5k users", "2.5k=2500±50"},
	{"25K users", "25K=25000±500"},
	{"$1.2M revenue", "1.2M=1200000±50000"},
	{"$3bn", "3bn=3000000000±500000000"},
	{"3B", "3B=3000000000±500000000"},
	{"1.2 million users", "1.2 million=1200000±50000"},
	{"3 billion", "3 billion=3000000000±500000000"},
	{"2 thousand", "2 thousand=2000±500"},
	{"4 mn", "4 mn=4000000±500000"},
	{"USD1.2M", "1.2M=1200000±50000"},
	{"RMB300", "300=300±0.5"},
	{"3.5万", "3.5万=35000±500"},
	{"35万", "35万=350000±5000"},
	{"350万", "350万=3500000±5000"},
	{"1.2亿", "1.2亿=120000000±5000000"},
	{"2千", "2千=2000±500"},
	{"3百万", "3百万=3000000±500000"},
	{"1.5万亿", "1.5万亿=1500000000000±50000000000"},
	{"GMV 12.34万元", "12.34万=123400±50"},
	{"2 hundred thousand", "2 hundred thousand=200000±50000"},
	// Factors.
	{"2倍", "2倍=2±0.5"},
	{"1.5倍", "1.5倍=1.5±0.05"},
	{"2x faster", "2x=2±0.5"},
	{"2.5 times", "2.5 times=2.5±0.05"},
	{"两倍", "两倍=2±0.5"},
	// Intervals.
	{"两千余家", "两千余=[2000,3000]"},
	{"2000余家", "2000余=[2000,3000]"},
	{"20多家", "20多=[20,30]"},
	{"二十多家", "二十多=[20,30]"},
	{"十多家", "十多=[10,20]"},
	{"一百多人", "一百多=[100,200]"},
	{"3万多", "3万多=[30000,40000]"},
	{"2.5万余", "2.5万余=[25000,26000]"},
	{"2000多万", "2000多万=[20000000,30000000]"},
	{"两千多万", "两千多万=[20000000,30000000]"},
	{"逾两千", "逾两千=[2000,3000]"},
	{"逾2000", "逾2000=[2000,3000]"},
	{"逾30%", "逾30%=[0.3,0.4]"},
	// Chinese numerals.
	{"两千五百家", "两千五百=2500±50"},
	{"二千五百", "二千五百=2500±50"},
	{"三千五", "三千五=3500±50"},
	{"一万二", "一万二=12000±500"},
	{"一百零五", "一百零五=105±0.5"},
	{"十二", "十二=12±0.5"},
	{"二十", "二十=20±5"},
	{"三十五万", "三十五万=350000±5000"},
	{"三千万", "三千万=30000000±5000000"},
	{"一亿两千万", "一亿两千万=120000000±5000000"},
	{"十万", "十万=100000±50000"},
	{"十二点三", "十二点三=12.3±0.05"},
	{"三点五万", "三点五万=35000±500"},
	{"零点五", "零点五=0.5±0.05"},
	{"两百五", "两百五=250±5"},
	{"兩千", "兩千=2000±500"},
	{"三成", "三成=0.3±0.05"},
	{"3成", "3成=0.3±0.05"},
	{"三成五", "三成五=0.35±0.005"},
	{"百分之十二点三", "百分之十二点三=0.123±0.0005"},
	{"百分之五十", "百分之五十=0.5±0.05"},
	{"百分之12.3", "百分之12.3=0.123±0.0005"},
	{"千分之五", "千分之五=0.005±0.0005"},
	{"三分之一", "三分之一=0.3333333333333333±0.005"},
	{"四分之三", "四分之三=0.75±0.005"},
	{"3分之1", "3分之1=0.3333333333333333±0.005"},
	{"一半", "一半=0.5±0.005"},
	{"三家门店", "三=3±0.5"},
	{"两名员工", "两=2±0.5"},
	{"五天", "五=5±0.5"},
	{"十家", "十=10±5"},
	{"二十五家", "二十五=25±0.5"},
	// English number words.
	{"twenty-five stores", "twenty-five=25±0.5"},
	{"Twenty stores", "Twenty=20±5"},
	{"three stores", "three=3±0.5"},
	{"two million users", "two million=2000000±500000"},
	{"five percent", "five percent=0.05±0.005"},
	{"one of the stores", "one!vague"},
	{"one-off fee", ""},
	{"someone", ""},
	// Dates.
	{"on 2026-11-29", "2026-11-29!date"},
	{"on 2026/11/29", "2026/11/29!date"},
	{"in 2026-11", "2026-11!date"},
	{"week 2026-W47", "2026-W47!date"},
	{"2026-W47-1", "2026-W47-1!date"},
	{"11/29/2026", "11/29/2026!date"},
	{"2026.11.29", "2026.11.29!date"},
	{"2026年11月", "2026年11月!date"},
	{"2026年11月29日", "2026年11月29日!date"},
	{"2026年十一月", "2026年十一月!date"},
	{"11月29日", "11月29日!date"},
	{"29日", "29日!date"},
	{"十一月二十九日", "十一月二十九日!date"},
	{"二〇二六年", "二〇二六年!date"},
	{"Nov 29, 2026", "Nov 29, 2026!date"},
	{"November 2026", "November 2026!date"},
	{"Nov. 29", "Nov. 29!date"},
	{"Nov 5 20ab", "Nov 5!date"}, // a year is four digits: "20ab" is not one
	{"29 Nov 2026", "29 Nov 2026!date"},
	{"on 29 November", "29 November!date"},
	{"March 3rd, 2026", "March 3rd, 2026!date"},
	{"in 2026 sales grew", "2026!date"},
	{"since 2019", "2019!date"},
	{"FY2026", "FY2026!date"},
	{"Q3 2026", "Q3!quarter | 2026!date"},
	{"at 14:30", "14:30!date"},
	{"at 14:30:05", "14:30:05!date"},
	{"at 10am", "10am!date"},
	{"week 47", "week 47!date"},
	{"W47", "W47!date"},
	{"a total of 2026 orders", "2026=2026±0.5"},
	{"1000-2000 stores", "1000=1000±0.5 | 2000=2000±0.5"},
	{"may 5 stores", "5=5±0.5"},
	// Ordinals.
	{"1st place", "1st!ordinal"},
	{"22nd", "22nd!ordinal"},
	{"3rd", "3rd!ordinal"},
	{"4th", "4th!ordinal"},
	{"第三", "第三!ordinal"},
	{"第3名", "第3!ordinal"},
	{"第十二", "第十二!ordinal"},
	{"ranked #1", "#1!ordinal"},
	// Quarters.
	{"Q3", "Q3!quarter"},
	{"in Q4,", "Q4!quarter"},
	{"H1", "H1!quarter"},
	{"2026Q3", "2026Q3!quarter"},
	{"三季度", "三季度!quarter"},
	{"第二季度", "第二季度!quarter"},
	{"第2季度", "第2季度!quarter"},
	{"3季度", "3季度!quarter"},
	{"Q5", ""},
	// Vague counts and words.
	{"几十家", "几十!vague"},
	{"几家", "几!vague"},
	{"十几家", "十几!vague"},
	{"数百家", "数百!vague"},
	{"上千人", "上千!vague"},
	{"一个问题", "一!vague"},
	{"三个方面", "三!vague"},
	{"两点建议", "两!vague"},
	{"3个方面", "3!vague"},
	{"三五家", "三五!vague"},
	{"其中之一", "一!vague"},
	{"一家门店", "一!vague"},
	{"a few stores", "a few!vague"},
	{"A couple of", "A couple!vague"},
	{"several", "several!vague"},
	{"thousands of users", "thousands!vague"},
	{"一直", ""},
	{"统一", ""},
	{"万一", ""},
	{"千万不要", ""},
	{"十分重要", ""},
	{"两者", ""},
	{"上一周", ""},
	{"数据", ""},
	{"上周", ""},
	// Markers.
	{"GMV [[m:gmv]] up", "[[m:gmv]]!marker"},
	{"[[v:Q1.r0.gmv]]", "[[v:Q1.r0.gmv]]!marker"},
	{"[[table:Q1 cols=region,amount rows=0-4]] 5", "[[table:Q1 cols=region,amount rows=0-4]]!marker | 5=5±0.5"},
	{"[[m:gmv|万]]元", "[[m:gmv|万]]!marker"},
	{"[[unclosed 42", "42=42±0.5"},
	{"[single 7]", "7=7±0.5"},
	// Names and identifiers are not numbers.
	{"4G and 5G", ""},
	{"B2B", ""},
	{"version 1.2.3", "version 1.2.3!version"},
	{"3D model", ""},
	{"x86", ""},
	{"iPhone15", ""},
	// Hedges widen the tolerance to the last non-zero digit.
	{"about 2,000 stores", "about 2,000=2000±500"},
	{"About 1,234 stores", "About 1,234=1234±0.5"},
	{"roughly 3.5 million", "roughly 3.5 million=3500000±50000"},
	{"约2000家", "约2000=2000±500"},
	{"大约两千家", "约两千=2000±500"},
	{"近3.5万", "近3.5万=35000±500"},
	{"2000家左右", "2000=2000±0.5"},
	{"2000左右", "2000左右=2000±500"},
	{"about 8.7%", "about 8.7%=0.087±0.0005"},
	// Simple fractions and festival dates.
	{"1/3 of GMV", "1/3=0.3333333333333333±0.005"},
	{"roughly 2/3", "roughly 2/3=0.6666666666666666±0.05"},
	{"3/4", "3/4=0.75±0.005"},
	{"11/29", "11=11±0.5 | 29=29±0.5"},
	{"5/3", "5=5±0.5 | 3=3±0.5"},
	{"1/3/2026", "1/3/2026!date"},
	{"双11大促", "双11!date"},
	{"双十一", "双十一!date"},
	{"双十二", "双十二!date"},
	// Spacing and measure words.
	{"8.7 % up", "8.7 %=0.087±0.0005"},
	{"3千米", "3=3±0.5"},
	{"5千克", "5=5±0.5"},
	{"2026-11-29T10:00:00Z", "2026-11-29T10:00:00Z!date"},
	{"at 2026-11-29T10:00:00.250+08:00 GMV 35", "2026-11-29T10:00:00.250+08:00!date | 35=35±0.5"},
	{"2026-11-29T10:00, 12 stores", "2026-11-29T10:00!date | 12=12±0.5"},
	// Markdown structure: enumerators, references, sections, versions.
	{"1. GMV: $1.2M", "1.!enumerator | 1.2M=1200000±50000"},
	{"2) Costs fell", "2)!enumerator"},
	{"  3. nested item, 4 stores", "3.!enumerator | 4=4±0.5"},
	{"> 2. quoted", "2.!enumerator"},
	{"- 1) bullet then number", "1)!enumerator"},
	{"1.5 million users", "1.5 million=1500000±50000"},
	{"- 3.2% growth", "3.2%=0.032±0.0005"},
	{"* 3 stores", "3=3±0.5"},
	{"intro\n12. twelfth item", "12.!enumerator"},
	{"（1）门店", "（1）!enumerator"},
	{"(2) stores", "(2)!enumerator"},
	{"1、销售", "1、!enumerator"},
	{"一、销售额增长", "一、!enumerator"},
	{"十一、其他", "十一、!enumerator"},
	{"stores (2) here", "2=2±0.5"},
	{"grew 8.7% [1]", "8.7%=0.087±0.0005 | [1]!reference"},
	{"as noted in [1] and [12]", "[1]!reference | [12]!reference"},
	{"see [1, 3] and [2-4]", "[1, 3]!reference | [2-4]!reference"},
	{"a footnote[^3] here", "[^3]!reference"},
	{"[^note] is a name", ""},
	{"[8.7%](https://example.com)", "8.7%=0.087±0.0005"},
	{"- [ ] 3 stores", "3=3±0.5"},
	{"cited<sup>2</sup>", "2!reference"},
	{"## 2.1 Revenue", "2.1!section"},
	{"# 3 Results", "3!section"},
	{"### 1.2.3. Detail", "1.2.3.!section"},
	{"### 2026 review", "2026!date"},
	{"## 一、销售", "一、!enumerator"},
	{"#3 seller", "#3!ordinal"},
	{"Section 2.1 shows", "Section 2.1!section"},
	{"see Table 3 and Fig. 2", "Table 3!section | Fig. 2!section"},
	{"as shown in the table. 3 stores", "3=3±0.5"},
	{"§4.1", "§4.1!section"},
	{"见表2", "表2!section"},
	{"代表3位", "3=3±0.5"},
	{"v1.2.3 and v2.0.1", "v1.2.3!version | v2.0.1!version"},
	{"model V2 launched", "V2!version"},
	{"release 1.2.3-rc1 shipped", "1.2.3-rc1!version"},
	{"1.2.3-5 is a range", "1.2.3!version | 5=5±0.5"},
	{"version 2.0 is out", "version 2.0!version"},
	{"升级到2.0版", "2.0版!version"},
	{"版本3.1上线", "版本3.1!version"},
	{"server 192.168.0.1", "192.168.0.1!version"},
	// Holidays and festivals used as names.
	{"十一假期", "十一!date"},
	{"十一黄金周客流", "十一!date"},
	{"五一期间", "五一!date"},
	{"三八妇女节", "三八!date"},
	{"618大促", "618!date"},
	{"the 618 festival", "618!date"},
	{"618 sales", "618=618±0.5"},
	{"11.11购物节", "11.11!date"},
	{"十一家门店", "十一=11±0.5"},
	// Markdown tables.
	{"|#|Region|GMV|\n|---|---|---|\n|1|North|1,234|\n|2|South|2,345|", "1!enumerator | 1,234=1234±0.5 | 2!enumerator | 2,345=2345±0.5"},
	{"| Region | 2025 | 2026 |\n|---|---|---|\n| North | 12 | 15 |", "2025!date | 2026!date | 12=12±0.5 | 15=15±0.5"},
	{"| Rank | Store | Sales |\n|:-:|---|--:|\n| 1 | A | 3.5万 |", "1!ordinal | 3.5万=35000±500"},
	{"| 序号 | 区域 | GMV（[[m:gmv|万]]） |\n|---|---|---|\n| 1. | 华东 | 35 |", "[[m:gmv|万]]!marker | 1!enumerator | 35=35±0.5"},
	{"| Region | GMV |\n|---|---|\n| 1 | 2 |", "1=1±0.5 | 2=2±0.5"},
	{"| a | b |\n| 1 | 2 |", "1=1±0.5 | 2=2±0.5"},
	// Spellings: scales after a currency, grouping.
	{"$4.5m", "4.5m=4500000±50000"},
	{"US$4.5m", "4.5m=4500000±50000"},
	{"USD 2.1b", "2.1b=2100000000±50000000"},
	{"€3bn", "3bn=3000000000±500000000"},
	{"£2.5Mn", "2.5Mn=2500000±50000"},
	{"¥2.1亿", "2.1亿=210000000±5000000"},
	{"EUR 3 mln", "3 mln=3000000±500000"},
	{"4.5m tall", ""},
	{"35 万元", "35 万=350000±5000"},
	{"1 234 567", "1 234 567=1234567±0.5"},
	{"1\u2009234", "1\u2009234=1234±0.5"},
	{"12\u202f345,5", "12\u202f345=12345±0.5 | 5=5±0.5"},
	{"1\u00a0234\u00a0567.5", "1\u00a0234\u00a0567.5=1234567.5±0.05"},
	{"1'234'567", "1'234'567=1234567±0.5"},
	{"1’234", "1’234=1234±0.5"},
	{"12 345 users", "12=12±0.5 | 345=345±0.5"},
	{"3 100 stores", "3=3±0.5 | 100=100±0.5"},
	{"1,234 567", "1,234=1234±0.5 | 567=567±0.5"},
	{"1.5 percentage points", "1.5 percentage points=0.015±0.0005"},
	{"up 30 bps", "30 bps=0.003±0.00005"},
	{"up 30 bp", "30 bp=0.003±0.00005"},
	{"上调25个基点", "25个基点=0.0025±0.00005"},
	{"2.4万千瓦时", "2.4万=24000±500"},
	{"close to 30,000", "close to 30,000=30000±5000"},
	{"# Energy use, 2026", "2026!date"},
	{"Question 4 of the survey", "Question 4!section"},
	{"we note 3 risks", "3=3±0.5"},
	{"will release 2 models", "2=2±0.5"},
	{"see Note 3", "Note 3!section"},
	{"in section 3", "section 3!section"},
	{"Release 2 ships", "Release 2!version"},
	{"Golden Week (Oct 1–7, 2026)", "Oct 1–7, 2026!date"},
	{"up 9.5% on 2025", "9.5%=0.095±0.0005 | 2025!date"},
	// Fractions in words, hedged fractions.
	{"近一半", "近一半=0.5±0.05"},
	{"约为一半", "约为一半=0.5±0.05"},
	{"近半", "近半=0.5±0.05"},
	{"半年", ""},
	{"约三分之一", "约三分之一=0.3333333333333333±0.05"},
	{"约百分之十", "约百分之十=0.1±0.05"},
	{"约三成", "约三成=0.3±0.05"},
	{"约占三成", "约占三成=0.3±0.05"},
	{"约为35%", "约为35%=0.35±0.005"},
	{"nearly half of stores", "nearly half=0.5±0.05"},
	{"half the stores", "half=0.5±0.005"},
	{"the first half of 2026", "2026!date"},
	{"the other half", ""},
	{"about a third of", "about a third=0.3333333333333333±0.05"},
	{"two thirds of users", "two thirds=0.6666666666666666±0.005"},
	{"two-thirds", "two-thirds=0.6666666666666666±0.005"},
	{"one-third", "one-third=0.3333333333333333±0.005"},
	{"three quarters of sales", "three quarters=0.75±0.005"},
	{"a third store opened", ""},
	{"in a quarter", ""},
	{"a quarter of sales", "a quarter=0.25±0.005"},
	{"the third quarter", ""},
	{"by the end of 2026", "2026!date"},
	// Mixed sentences.
	{"GMV was 1,234,567 yuan, up 8.7% WoW on 2026-11-29.", "1,234,567=1234567±0.5 | 8.7%=0.087±0.0005 | 2026-11-29!date"},
	{"2026年第三季度销售额3.5万元，同比增长百分之十二点三。", "2026年!date | 第三季度!quarter | 3.5万=35000±500 | 百分之十二点三=0.123±0.0005"},
	{"本周新增门店两千余家，覆盖三成城市。", "两千余=[2000,3000] | 三成=0.3±0.05"},
	{"Revenue reached $1.2M in Q3 2026, 2x last year.", "1.2M=1200000±50000 | Q3!quarter | 2026!date | 2x=2±0.5"},
}

// TestReadModelDisguisesFiguresAsStructure plays a misbehaving model that
// dresses a figure up as Markdown structure — a reference, an enumerator,
// a section, a row number, a version — so that it is ignored rather than
// traced. Structure numbers are short (at most three digits a part), so
// each of these is still read as a quantity (or, when it has no value a
// reader would recognise, as a number that can never be traced).
func TestReadModelDisguisesFiguresAsStructure(t *testing.T) {
	cases := []struct{ in, want string }{
		{"revenue grew to [1234567] yuan", "1234567=1234567±0.5"},
		{"see [1, 2345]", "1=1±0.5 | 2345=2345±0.5"},
		{"[^1234567]", "1234567=1234567±0.5"},
		{"1234567. GMV", "1234567=1234567±0.5"},
		{"(1234) stores", "1234=1234±0.5"},
		{"1234、销售额", "1234=1234±0.5"},
		{"## 1234567 yuan", "1234567=1234567±0.5"},
		{"## 1.2345 yuan", "1.2345=1.2345±0.00005"},
		{"Table 12345 shows", "12345=12345±0.5"},
		{"Section 1.234567", "1.234567=1.234567±5e-07"},
		{"Section 1.2.34567", "1.2.34567=?"},
		{"version 1234567", "1234567=1234567±0.5"},
		{"cited<sup>12345</sup>", "12345=12345±0.5"},
		{"| # | GMV |\n|---|---|\n| 1234567 | x |", "1234567=1234567±0.5"},
		{"| 1234567 | 2026 |\n|---|---|", "1234567=1234567±0.5 | 2026!date"},
		{"1.234.567 yuan", "1.234.567=1234567±0.5"},
		{"build 10.0.19045", "10.0.19045=?"},
		{"on 29.11.2026", "29.11.2026!date"},
	}
	for _, c := range cases {
		if got := render(Read(c.in)); got != c.want {
			t.Errorf("Read(%q)\n got: %s\nwant: %s", c.in, got, c.want)
		}
	}
	res := Check("GMV grew to [1234567] yuan.\n\n1234567. Orders", []Metric{{Name: "gmv", Value: 1}}, Options{Strict: true})
	if res.Tier != TierWithheld || res.Untraced != 2 {
		t.Errorf("figures disguised as structure: tier %s, %d untraced; want withheld, 2", res.Tier, res.Untraced)
	}
}

func TestReadTable(t *testing.T) {
	if len(readCases) < 150 {
		t.Fatalf("only %d reader cases", len(readCases))
	}
	for _, c := range readCases {
		got := Read(c.in)
		if r := render(got); r != c.want {
			t.Errorf("Read(%q)\n got: %s\nwant: %s", c.in, r, c.want)
		}
		for _, n := range got {
			if n.Start < 0 || n.End > len(c.in) || n.Start >= n.End || c.in[n.Start:n.End] != n.Text {
				t.Errorf("Read(%q): %q has offsets [%d,%d)", c.in, n.Text, n.Start, n.End)
			}
		}
	}
}

// TestReadLinearOnHostileMarkdown feeds the structure rules the inputs an
// attacker would pick to make them rescan the text — a table row full of
// unclosed "[[", thousands of table rows, of list lines, of headings, of
// brackets and footnotes — and requires each to be read in about the time
// of a plain text of the same size.
func TestReadLinearOnHostileMarkdown(t *testing.T) {
	const n = 1 << 18
	hostile := map[string]string{
		"row of unclosed markers": "|" + strings.Repeat("[[", n/2) + "|\n|---|\n",
		"table rows":              "| # | a |\n|---|---|\n" + strings.Repeat("| 1 | [[x]] 2 |\n", n/16),
		"rows without a table":    strings.Repeat("| 1 | 2 |\n", n/10),
		"list lines":              strings.Repeat("1. 2) (3) 一、\n", n/16),
		"headings":                strings.Repeat("## 1.2.3 ##\n", n/12),
		"brackets":                strings.Repeat("[1, 2, [^3 [1-", n/15),
		"spaces before digits":    strings.Repeat(" ", n) + "1",
		"grouping runs":           strings.Repeat("1 234 ", n/6),
		"fraction words":          strings.Repeat("a third a half two thirds ", n/26),
	}
	plain := strings.Repeat("GMV was 1,234 yuan, up 8.7%. ", n/29)
	// CPU time where it is measured: the machine may be shared, and a
	// loaded machine stretches wall time, not the work done.
	spent := func(text string) time.Duration {
		c0, w0 := cpuTime(), time.Now()
		Read(text)
		if c := cpuTime() - c0; c0 > 0 && c > 0 {
			return c
		}
		return time.Since(w0)
	}
	budget := 20*spent(plain) + 250*time.Millisecond
	for name, text := range hostile {
		d := spent(text)
		t.Logf("%s: %v", name, d)
		if d > budget {
			t.Errorf("%s: %d bytes read in %v, more than %v", name, len(text), d, budget)
		}
	}
}

package issuance

import (
	"math"
	"strings"
	"unicode/utf8"
)

// form is how a number was written, which decides the suffixes it takes.
type form uint8

const (
	formDigits form = iota // 1,234.5
	formZh                 // 两千五百
	formWord               // twenty-five
)

// whySkip is returned by suffix for text that is part of a name (4G,
// B2B, 3D) and is not reported at all.
const whySkip = "skip"

// suffix reads what follows a number at j (scale, percent, factor, 成,
// 余/多, an ordinal or a classifier), completes q and returns where the
// number's text ends and, when it is not a quantity, why.
func (sc *scanner) suffix(j int, q *qty, f form, integer bool) (int, string) {
	end, why := sc.suffixCore(j, q, f, integer)
	if why == "" {
		if strings.HasPrefix(sc.s[end:], "左右") {
			q.hedged = true
			end += len("左右")
		}
		if q.hedged {
			q.widen()
		}
	}
	return end, why
}

// isHedge reports whether w is an English word that makes the number after
// it approximate: about, around, approximately, roughly, nearly, almost.
func isHedge(w string) bool {
	for _, h := range []string{"about", "around", "approximately", "approx", "roughly", "nearly", "almost", "circa", "some"} {
		if strings.EqualFold(w, h) {
			return true
		}
	}
	return false
}

// suffixCore is suffix without the hedge that may follow (左右).
func (sc *scanner) suffixCore(j int, q *qty, f form, integer bool) (int, string) {
	s := sc.s
	scaled := false
	// 余/多 before a scale: 2000多万, 两千余万.
	if k := zhIntervalAt(s, j); k > j && unitExp(s, k) > 0 {
		q.intervalForm = true
		j = k
	}
	if f == formDigits {
		// 4만, 3억, 2천만: Korean units after digits scale the number as
		// 万 and 亿 do; read as the bare digit, 4만 might pass for a
		// metric of 4.
		if e, k := koUnitRun(s, j); k > j {
			q.exp += e
			q.place += e
			j = k
			scaled = true
		}
	}
	if (f == formDigits || q.intervalForm) && !scaled && !strings.HasPrefix(s[j:], "百分") {
		e, k := unitRun(s, j)
		if k > j+3 && measureUnitAt(s, k) {
			// 2.4万千瓦时: 千 belongs to the unit 千瓦, 万 is the scale.
			k -= 3
			e -= unitExp(s, k)
		}
		if k > j && !measureUnitAt(s, k) {
			q.exp += e
			q.place += e
			j = k
			scaled = true
		} else if f == formDigits && j < len(s) && s[j] == ' ' {
			// "35 万元": a space before 万, 亿 or a longer run of units
			// (how a unit such as 万元 is printed after a value).
			if e, k := unitRun(s, j+1); e >= 4 && !measureUnitAt(s, k) {
				q.exp += e
				q.place += e
				j = k
				scaled = true
			}
		}
	}
	if !q.intervalForm {
		if k := zhIntervalAt(s, j); k > j {
			q.intervalForm = true
			j = k
		}
	}
	// Percent and friends.
	pct := 0
	switch {
	case j < len(s) && s[j] == '%':
		pct, j = -2, j+1
	case j+1 < len(s) && s[j] == ' ' && s[j+1] == '%':
		pct, j = -2, j+2
	case strings.HasPrefix(s[j:], "％"):
		pct, j = -2, j+len("％")
	case strings.HasPrefix(s[j:], "‰"):
		pct, j = -3, j+len("‰")
	case strings.HasPrefix(s[j:], "个百分点"):
		pct, j = -2, j+len("个百分点")
	case strings.HasPrefix(s[j:], "百分点"):
		pct, j = -2, j+len("百分点")
	case strings.HasPrefix(s[j:], "个基点"):
		pct, j = -4, j+len("个基点")
	case strings.HasPrefix(s[j:], "基点"):
		pct, j = -4, j+len("基点")
	}
	if pct != 0 {
		q.exp += pct
		q.place += pct
		q.per = pow10(-pct)
		return j, ""
	}
	// Letters glued to digits: 2.5k, 1.2M, 3bn, 2x, 15bps, 3rd, 10am.
	if f == formDigits && !scaled && j < len(s) && isAlpha(s[j]) {
		k := j
		for k < len(s) && isAlpha(s[k]) {
			k++
		}
		w := s[j:k]
		if k < len(s) && isDigit(s[k]) {
			if w == "Q" && integer && k+1 <= len(s) && s[k] >= '1' && s[k] <= '4' && (k+1 == len(s) || !isAlnum(s[k+1])) {
				return k + 1, IgnoredQuarter // 2026Q3
			}
			return skipAlnum(s, k), whySkip
		}
		switch w {
		case "k", "K":
			q.exp, q.place = q.exp+3, q.place+3
		case "M", "mn", "Mn", "MM", "mln":
			q.exp, q.place = q.exp+6, q.place+6
		case "B", "bn", "Bn", "bln":
			q.exp, q.place = q.exp+9, q.place+9
		case "m", "mm", "b":
			// $4.5m, €3b: lower-case scales are read after a currency
			// only; 4.5m alone is a length.
			if !sc.currencyBefore(sc.numStart) {
				return k, whySkip
			}
			e := 6
			if w == "b" {
				e = 9
			}
			q.exp, q.place = q.exp+e, q.place+e
		case "T", "tn":
			q.exp, q.place = q.exp+12, q.place+12
		case "x", "X":
		case "pp", "pct":
			q.exp, q.place, q.per = q.exp-2, q.place-2, 100
		case "bp", "bps":
			q.exp, q.place, q.per = q.exp-4, q.place-4, 10000
		case "st", "nd", "rd", "th":
			if !integer {
				return k, whySkip
			}
			return k, IgnoredOrdinal
		case "am", "pm", "AM", "PM":
			if !integer {
				return k, whySkip
			}
			return k, IgnoredDate
		default:
			return k, whySkip
		}
		return k, ""
	}
	// A space and a word: 1.2 million, 12.3 percent, 3 times.
	if f != formZh && j+1 < len(s) && s[j] == ' ' && isAlpha(s[j+1]) {
		for n := 0; n < 2; n++ {
			k, e, kind := spaceWord(s, j)
			if kind == swNone {
				break
			}
			j = k
			if kind == swScale {
				q.exp, q.place = q.exp+e, q.place+e
				scaled = true
				continue
			}
			if kind == swPercent {
				q.exp, q.place, q.per = q.exp+e, q.place+e, pow10(-e)
			}
			if kind == swOpaque {
				q.mant = math.NaN()
			}
			return j, ""
		}
		if scaled {
			return j, ""
		}
	}
	if scaled {
		return j, ""
	}
	// 三成 is 0.3, 三成五 0.35.
	if strings.HasPrefix(s[j:], "成") {
		j += len("成")
		q.exp, q.place, q.per = q.exp-1, q.place-1, 100
		if f == formZh && q.exp == -1 {
			if r, size := utf8.DecodeRuneInString(s[j:]); zhDigit(r) > 0 {
				if r2, _ := utf8.DecodeRuneInString(s[j+size:]); !isZhNumeral(r2) {
					q.mant = q.mant*10 + float64(zhDigit(r))
					q.exp, q.place = q.exp-1, q.place-1
					j += size
				}
			}
		}
		return j, ""
	}
	if strings.HasPrefix(s[j:], "倍") {
		return j + len("倍"), ""
	}
	if integer && q.exp == 0 && !q.intervalForm {
		if strings.HasPrefix(s[j:], "季度") && q.mant >= 1 && q.mant <= 4 {
			return j + len("季度"), IgnoredQuarter
		}
		if q.mant <= 10 && vagueClassifierAt(s, j) {
			return j, IgnoredVague
		}
	}
	return j, ""
}

// zhIntervalAt returns the offset after 余 or 多 at j, or j.
func zhIntervalAt(s string, j int) int {
	if strings.HasPrefix(s[j:], "余") || strings.HasPrefix(s[j:], "多") {
		return j + len("余")
	}
	return j
}

// unitExp is the power of ten of the Chinese unit character at j (十 1,
// 百 2, 千 3, 万 4, 亿 8), or 0.
func unitExp(s string, j int) int {
	if j+3 > len(s) || s[j] < 0xE4 {
		return 0
	}
	r, _ := utf8.DecodeRuneInString(s[j:])
	return zhUnit(r)
}

// unitRun reads up to three Chinese unit characters (万, 百万, 万亿) and
// returns their combined power of ten and the offset after them.
func unitRun(s string, j int) (int, int) {
	e := 0
	for n := 0; n < 3; n++ {
		u := unitExp(s, j)
		if u == 0 {
			break
		}
		e += u
		j += 3
	}
	return e, j
}

const (
	swNone = iota
	swScale
	swPercent
	swFactor
	swOpaque // a multiple the reader does not compute: the number has no value
)

// spaceWord reads the word after the space at j when it is a scale
// (thousand, million, bn), a percent word (percent, per cent, percentage
// points, bps) or a factor (times).
func spaceWord(s string, j int) (end, exp, kind int) {
	if j+1 >= len(s) || s[j] != ' ' || !isAlpha(s[j+1]) {
		return j, 0, swNone
	}
	k := j + 1
	for k < len(s) && isAlpha(s[k]) {
		k++
	}
	if k < len(s) && isDigit(s[k]) {
		return j, 0, swNone
	}
	w := s[j+1 : k]
	if len(w) > 10 {
		return j, 0, swNone
	}
	switch w {
	case "M", "MM":
		return k, 6, swScale // 4 M users, $4 MM
	case "B":
		return k, 9, swScale
	}
	var b [10]byte
	for n := 0; n < len(w); n++ {
		b[n] = w[n] | 0x20
	}
	switch string(b[:len(w)]) {
	case "hundred", "hundreds":
		return k, 2, swScale
	case "thousand", "thousands", "k", "grand":
		return k, 3, swScale
	case "lakh", "lakhs", "lac", "lacs":
		return k, 5, swScale
	case "million", "millions", "mn", "mln", "mil":
		return k, 6, swScale
	case "crore", "crores":
		return k, 7, swScale
	case "billion", "billions", "bn", "bln", "bil":
		return k, 9, swScale
	case "trillion", "trillions":
		return k, 12, swScale
	case "dozen", "dozens":
		// 4 dozen is 48: a multiple, not a power of ten. Read, but
		// without a value, so that "4" never passes for a metric of 4.
		return k, 0, swOpaque
	case "percent", "pct", "pp":
		return k, -2, swPercent
	case "bps", "bp":
		return k, -4, swPercent
	case "per":
		if strings.HasPrefix(s[k:], " cent") && (k+5 == len(s) || !isAlpha(s[k+5])) {
			return k + 5, -2, swPercent
		}
	case "percentage", "basis":
		e := -2
		if b[0] == 'b' {
			e = -4
		}
		for _, p := range []string{" points", " point"} {
			if strings.HasPrefix(s[k:], p) && (k+len(p) == len(s) || !isAlpha(s[k+len(p)])) {
				return k + len(p), e, swPercent
			}
		}
	case "times":
		return k, 0, swFactor
	}
	return j, 0, swNone
}

// vagueClassifierAt reports whether a small count is followed by a word
// that makes it a figure of speech rather than data: 三个方面, 一个问题,
// 两点, 几项.
func vagueClassifierAt(s string, j int) bool {
	if j+3 > len(s) || s[j] < 0xE4 {
		return false
	}
	r, size := utf8.DecodeRuneInString(s[j:])
	switch r {
	case '点', '项', '条', '种', '类', '步', '层', '句', '段':
		return true
	case '方':
		return strings.HasPrefix(s[j+size:], "面")
	case '大':
		return !strings.HasPrefix(s[j+size:], "于")
	case '个':
		rest := s[j+size:]
		for _, w := range discourseNouns {
			if strings.HasPrefix(rest, w) {
				return true
			}
		}
	}
	return false
}

// discourseNouns follow 个 in counts that structure an argument rather
// than report data (一个问题, 三个方面).
var discourseNouns = []string{
	"方面", "问题", "原因", "因素", "建议", "方向", "维度", "重点", "阶段", "部分",
	"角度", "环节", "层面", "特点", "亮点", "风险", "挑战", "措施", "目标", "要点",
	"结论", "步骤", "关键", "趋势", "变化", "发现",
}

// fractionOf reads X分之Y after the number q ended at j: 三分之一 is 1/3,
// 百分之十二点三 is 0.123. It returns the fraction and its end, or end = j.
func (sc *scanner) fractionOf(j int, x *qty) (*qty, int) {
	s := sc.s
	if !strings.HasPrefix(s[j:], "分之") {
		return nil, j
	}
	k := j + len("分之")
	var y qty
	var end int
	if k < len(s) && isDigit(s[k]) {
		end, y = readPlainDigits(s, k)
	} else {
		z := parseZh(s, k)
		if !z.ok || z.seq {
			return nil, j
		}
		end = z.end
		y = qty{mant: z.mant, exp: z.exp, place: z.place}
	}
	if end == k {
		return nil, j
	}
	den := x.value()
	if den <= 0 {
		return nil, j
	}
	y.hedged = x.hedged
	for e := 2; e <= 4; e++ {
		if den == pow10(e) {
			y.exp, y.place, y.per = y.exp-e, y.place-e, den
			if y.hedged {
				y.widen()
			}
			return &y, end
		}
	}
	y.frac = y.value() / den
	y.fraction = true
	y.per = 100
	return &y, end
}

// readPlainDigits reads digits with an optional decimal part.
func readPlainDigits(s string, k int) (int, qty) {
	var q qty
	for k < len(s) && isDigit(s[k]) {
		q.mant = q.mant*10 + float64(s[k]-'0')
		k++
	}
	if k+1 < len(s) && s[k] == '.' && isDigit(s[k+1]) {
		k++
		for k < len(s) && isDigit(s[k]) {
			q.mant = q.mant*10 + float64(s[k]-'0')
			q.exp--
			k++
		}
	}
	q.place = q.exp
	return k, q
}

// measureUnitAt reports whether a measure word follows a unit character at
// k, as in 3千米 (km) or 5千克 (kg), where 千 is not a scale of the number.
func measureUnitAt(s string, k int) bool {
	for _, m := range []string{"米", "克", "瓦", "卡", "字", "帕", "赫"} {
		if strings.HasPrefix(s[k:], m) {
			return true
		}
	}
	return false
}

// koUnitRun reads up to three Korean number units at j (백 10², 천 10³,
// 만 10⁴, 억 10⁸, 조 10¹²) and returns their combined power of ten and the
// offset after them.
func koUnitRun(s string, j int) (int, int) {
	e := 0
	for n := 0; n < 3 && j < len(s) && s[j] >= 0xEA && s[j] <= 0xED; n++ {
		r, size := utf8.DecodeRuneInString(s[j:])
		var u int
		switch r {
		case '백':
			u = 2
		case '천':
			u = 3
		case '만':
			u = 4
		case '억':
			u = 8
		case '조':
			u = 12
		}
		if u == 0 {
			break
		}
		e += u
		j += size
	}
	return e, j
}

package issuance

import (
	"strings"
	"unicode/utf8"
)

// zhDigit is the value of a Chinese digit character, or -1.
func zhDigit(r rune) int {
	switch r {
	case '零', '〇':
		return 0
	case '一':
		return 1
	case '二', '两', '兩':
		return 2
	case '三':
		return 3
	case '四':
		return 4
	case '五':
		return 5
	case '六':
		return 6
	case '七':
		return 7
	case '八':
		return 8
	case '九':
		return 9
	}
	return -1
}

// zhUnit is the power of ten of a Chinese unit character, or 0.
func zhUnit(r rune) int {
	switch r {
	case '十':
		return 1
	case '百':
		return 2
	case '千':
		return 3
	case '万', '萬':
		return 4
	case '亿', '億':
		return 8
	}
	return 0
}

func isZhNumeral(r rune) bool { return zhDigit(r) >= 0 || zhUnit(r) > 0 || r == '点' || r == '几' }

// zhNum is a Chinese numeral read by parseZh.
type zhNum struct {
	ok    bool
	end   int
	mant  float64 // integer-valued
	exp   int
	place int  // power of ten of the last written digit
	seq   bool // digit by digit, no units: 二〇二六, 三五
	nchar int
	nseq  int // digits in a seq numeral
}

// parseZh reads a Chinese numeral starting at i: 两千五百, 三十五万, 一万二
// (12000), 一百零五, 十二点三, 三点五万, 二〇二六. It stops at the first
// character that would make the numeral malformed.
func parseZh(s string, i int) zhNum {
	var (
		big      float64 // the part already scaled by 万/亿
		sec      float64 // the current section, below 万
		digit    = -1    // a digit waiting for its unit
		lastUnit = 0     // the last unit applied (implied trailing digits)
		secUnit  = 9     // units inside a section must decrease
		zero     bool
		place    = 0
		units    bool
		nchar    int
		seqVal   float64
		nseq     int
		seenWan  bool
	)
	j := i
	for j < len(s) {
		r, size := utf8.DecodeRuneInString(s[j:])
		if d := zhDigit(r); d >= 0 {
			if nseq > 0 || (digit >= 0 && !units) || (d == 0 && digit >= 0 && !units) {
				// Digit by digit: 二〇二六, 三五.
				if nseq == 0 {
					seqVal, nseq = float64(digit), 1
				}
				seqVal = seqVal*10 + float64(d)
				nseq++
				digit = -1
				j += size
				nchar++
				continue
			}
			if digit >= 0 {
				break
			}
			if d == 0 {
				if nchar == 0 {
					// 零 alone is not a count; 零点五 is.
					if !strings.HasPrefix(s[j+size:], "点") {
						break
					}
					digit = 0
				} else {
					zero = true
				}
			} else {
				digit = d
			}
			j += size
			nchar++
			continue
		}
		if u := zhUnit(r); u > 0 {
			if nseq > 0 {
				break
			}
			if u < 4 {
				if u >= secUnit {
					break
				}
				if digit < 0 {
					if u != 1 || sec != 0 {
						break
					}
					digit = 1 // 十二 = 12
				}
				sec += float64(digit) * pow10(u)
				place, lastUnit, secUnit = u, u, u
			} else {
				if digit >= 0 {
					sec += float64(digit)
					place = 0
				}
				if sec == 0 && big == 0 {
					break
				}
				if u == 4 {
					if seenWan {
						break
					}
					seenWan = true
					big += sec * 1e4
				} else {
					big = (big + sec) * 1e8
					seenWan = false
				}
				place += u
				sec, lastUnit, secUnit = 0, u, 4
			}
			digit, zero, units = -1, false, true
			j += size
			nchar++
			continue
		}
		if r == '点' && nchar > 0 && nseq == 0 {
			r2, _ := utf8.DecodeRuneInString(s[j+size:])
			if zhDigit(r2) < 0 {
				break
			}
			// Decimal: everything so far is the integer part.
			intPart := big + sec
			if digit >= 0 {
				intPart += float64(digit)
			}
			k := j + size
			mant, dec := intPart, 0
			for k < len(s) {
				r3, sz := utf8.DecodeRuneInString(s[k:])
				d := zhDigit(r3)
				if d < 0 {
					break
				}
				mant = mant*10 + float64(d)
				dec++
				k += sz
				nchar++
			}
			e, k2 := unitRun(s, k)
			return zhNum{ok: true, end: k2, mant: mant, exp: e - dec, place: e - dec, nchar: nchar + 2}
		}
		break
	}
	if nseq > 0 {
		return zhNum{ok: true, end: j, mant: seqVal, seq: true, nchar: nchar, nseq: nseq}
	}
	if nchar == 0 {
		return zhNum{}
	}
	if digit > 0 {
		if lastUnit >= 2 && !zero && lastUnit != 4 || lastUnit == 4 && !zero && seenWan {
			// 三千五 = 3500, 一万二 = 12000: the digit takes the next unit down.
			u := lastUnit - 1
			if lastUnit == 4 {
				u = 3
			}
			sec += float64(digit) * pow10(u)
			place = u
		} else {
			sec += float64(digit)
			place = 0
		}
	} else if digit == 0 && nchar == 1 {
		return zhNum{}
	}
	return zhNum{ok: true, end: j, mant: big + sec, place: place, nchar: nchar}
}

// isZhNumeralStart reports whether r may begin something the Chinese path
// reads: a numeral, 第 (ordinals), 几/数/上 (vague counts), or 百/千/万
// before 分之.
func isZhNumeralStart(r rune) bool {
	return zhDigit(r) >= 0 || r == '十' || r == '第' || r == '几' || r == '数' || r == '上' ||
		r == '百' || r == '千' || r == '万' || r == '半'
}

// zhHedgeBefore reports whether a Chinese hedge ends right before offset
// i — 约, 近 (and so 大约, 将近, 接近), 约为, 约占, 约合, 近乎 — and where
// the number's text then begins.
func (sc *scanner) zhHedgeBefore(i int) (int, bool) {
	switch sc.prevRune(i) {
	case '约', '近':
		return i - len("约"), true
	case '为', '占', '合':
		if sc.prevRune(i-len("为")) == '约' {
			return i - len("约为"), true
		}
	case '乎':
		if sc.prevRune(i-len("乎")) == '近' {
			return i - len("近乎"), true
		}
	}
	return i, false
}

// zh reads a Chinese numeral (or a vague count, an ordinal, 百分之…)
// starting with r at i.
func (sc *scanner) zh(i int, r rune, size int) int {
	s := sc.s
	j := i + size
	switch r {
	case '第':
		if j < len(s) && isDigit(s[j]) {
			return j // the digit path reads 第3 from the digit
		}
		z := parseZh(s, j)
		if !z.ok {
			return j
		}
		if strings.HasPrefix(s[z.end:], "季度") {
			sc.ignore(i, z.end+len("季度"), IgnoredQuarter)
			return z.end + len("季度")
		}
		sc.ignore(i, z.end, IgnoredOrdinal)
		return z.end
	case '几':
		k := j
		for k < len(s) {
			r2, sz := utf8.DecodeRuneInString(s[k:])
			if zhUnit(r2) == 0 {
				break
			}
			k += sz
		}
		sc.ignore(i, k, IgnoredVague)
		return k
	case '数', '上':
		if e, k := unitRun(s, j); e > 0 {
			sc.ignore(i, k, IgnoredVague)
			return k
		}
		return j
	case '半':
		// 近半, 约半: a hedged half; 一半 is read from its 一.
		if k, ok := sc.zhHedgeBefore(i); ok {
			q := qty{fraction: true, frac: 0.5, hedged: true, per: 100}
			sc.emit(k, j, &q)
		}
		return j
	case '百', '千', '万':
		if strings.HasPrefix(s[j:], "分之") {
			x := qty{mant: pow10(zhUnit(r))}
			from, hedged := sc.zhHedgeBefore(i)
			x.hedged = hedged
			if y, end := sc.fractionOf(j, &x); end > j {
				sc.emit(from, end, y)
				return end
			}
		}
		return j
	}
	z := parseZh(s, i)
	if !z.ok {
		return j
	}
	end := z.end
	prev := sc.prevRune(i)
	if zhFestival(s, end, z.mant, z.seq) {
		sc.ignore(i, end, IgnoredDate) // 十一假期, 五一期间
		return end
	}
	if z.seq {
		if z.nseq == 4 && strings.HasPrefix(s[end:], "年") {
			k := sc.zhDateTail(end + len("年"))
			sc.ignore(i, k, IgnoredDate)
			return k
		}
		sc.ignore(i, end, IgnoredVague) // 三五家, 七八个
		return end
	}
	single := z.nchar == 1
	if single {
		switch prev {
		case '上', '下', '同', '每', '任', '统', '唯', '逐', '某', '其', '单', '专', '万', '千', '百', '划', '整', '归':
			return end // 上一, 统一, 万一: words, not counts
		case '之':
			if z.mant == 1 {
				sc.ignore(i, end, IgnoredVague) // 之一: "one of"
			}
			return end
		}
		if z.mant == 1 && strings.HasPrefix(s[end:], "半") {
			q := qty{fraction: true, frac: 0.5, per: 100}
			from := i
			if k, ok := sc.zhHedgeBefore(i); ok {
				q.hedged, from = true, k
			}
			sc.emit(from, end+len("半"), &q)
			return end + len("半")
		}
	}
	if strings.HasPrefix(s[end:], "几") {
		// 十几, 二十几: vague.
		k := end + len("几")
		_, k = unitRun(s, k)
		sc.ignore(i, k, IgnoredVague)
		return k
	}
	q := qty{mant: z.mant, exp: z.exp, place: z.place}
	integer := z.exp == 0
	if prev == '双' && integer && (z.mant == 11 || z.mant == 12) {
		sc.ignore(i-len("双"), end, IgnoredDate) // 双十一
		return end
	}
	if integer && z.mant >= 1 && z.mant <= 12 && strings.HasPrefix(s[end:], "月") {
		k := sc.zhDayTail(end + len("月"))
		sc.ignore(i, k, IgnoredDate)
		return k
	}
	start := i
	if prev == '逾' {
		q.intervalForm = true
		start = i - len("逾")
	} else if k, ok := sc.zhHedgeBefore(i); ok {
		q.hedged = true
		start = k
	}
	if frac, fend := sc.fractionOf(end, &q); fend > end {
		sc.emit(start, fend, frac)
		return fend
	}
	k, why := sc.suffix(end, &q, formZh, integer)
	switch {
	case why == IgnoredQuarter || why == IgnoredVague:
		sc.ignore(start, k, why)
		return k
	case why != "":
		return k
	}
	if single && k == end && !q.intervalForm {
		// A lone 一/两/三 needs a counted thing after it to be a number;
		// otherwise it is part of a word (一直, 两者).
		if !countClassifierAt(s, end) {
			return end
		}
		if z.mant == 1 {
			sc.ignore(i, end, IgnoredVague) // 一家, 一次: "one", an article more than a count
			return end
		}
	}
	sc.emit(start, k, &q)
	return k
}

// countClassifierAt reports whether the character at j counts something,
// so that a single numeral before it is a number: 三家, 两名, 五天.
func countClassifierAt(s string, j int) bool {
	if j+3 > len(s) || s[j] < 0xE4 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[j:])
	switch r {
	case '家', '名', '位', '人', '笔', '单', '件', '台', '辆', '次', '天', '日', '周', '年',
		'小', '元', '块', '个', '座', '所', '款', '只', '张', '份', '套', '间', '户', '条', '项',
		'种', '类', '点', '步', '层', '句', '段', '方', '大', '批', '支', '部', '起', '例', '成':
		return true
	}
	return false
}

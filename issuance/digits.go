package issuance

import (
	"strings"
)

// digits reads a number written with Arabic digits. start is where its text
// begins (a sign or a leading '.'), i the first digit or '.'.
func (sc *scanner) digits(start, i int) int {
	s := sc.s
	sc.numStart = start
	if end, why := sc.tableCell(start); why != "" {
		sc.ignore(start, end, why)
		return end
	}
	var q qty
	if start < i {
		q.signed = true
		q.neg = s[start] != '+'
	}
	// A number glued to a name by a hyphen or underscore (COVID-19,
	// SKU_12) is part of that name.
	if p := sc.prevByte(start); (p == '-' || p == '_') && start >= 2 && isAlpha(s[start-2]) {
		k := i
		for k < len(s) && (isAlnum(s[k]) || s[k] == '.') {
			k++
		}
		return k
	}

	// Integer part, with thousands separators (groupSep), each followed
	// by exactly three digits.
	j := i
	mant := 0.0
	for j < len(s) && isDigit(s[j]) {
		mant = mant*10 + float64(s[j]-'0')
		j++
	}
	intDigits := j - i
	sep := false
	if intDigits >= 1 && intDigits <= 3 {
		j, mant, intDigits, sep = groups(s, j, mant, intDigits)
	}
	dec := 0
	if j+1 < len(s) && s[j] == '.' && isDigit(s[j+1]) {
		j++
		for j < len(s) && isDigit(s[j]) {
			mant = mant*10 + float64(s[j]-'0')
			dec++
			j++
		}
		if j+1 < len(s) && s[j] == '.' && isDigit(s[j+1]) {
			// 1.2.3 is a version or an address; 2026.11.29 a date;
			// Section 2.1.3 a section.
			k := j
			for k < len(s) && (isDigit(s[k]) || (s[k] == '.' && k+1 < len(s) && isDigit(s[k+1]))) {
				k++
			}
			if !sep && !q.signed && intDigits == 4 && isYear(s[i:i+4]) {
				sc.ignore(start, k, IgnoredDate)
				return k
			}
			if !sep && !q.signed && dottedDayMonthYear(s[i:k]) {
				sc.ignore(start, k, IgnoredDate) // 29.11.2026
				return k
			}
			if m, ok := dotGrouped(s[i:k]); ok && !sep {
				// 1.234.567: thousands grouped with dots, a quantity
				// (and never a place to hide one as a version).
				g := qty{mant: m, neg: q.neg, signed: q.signed}
				sc.emit(start, k, &g)
				return k
			}
			if !shortParts(s[i:k]) {
				// 1.2.345678 is not a version or a section a reader
				// would recognise: reported, and never traced.
				sc.add(Number{Text: s[start:k], Start: start, End: k, Signed: q.signed})
				return k
			}
			from, why := sc.contextBefore(start)
			switch why {
			case IgnoredSection:
				sc.ignore(from, k, why)
				return k
			case IgnoredVersion:
				start = from
			}
			k = versionTail(s, k)
			sc.ignore(start, k, IgnoredVersion)
			return k
		}
	}
	q.mant, q.exp, q.place = mant, -dec, -dec
	// 9.99e6, 1E-3: scientific notation is a quantity, not a name glued
	// to letters, so that a figure cannot hide in it (with thousands
	// separators too: 1,234e3 is no name either).
	k, e, ok := exponentAt(s, j)
	if !ok {
		// 1.2×10⁶, 3 x 10^-2: the same, written with a power of ten.
		k, e, ok = timesTenAt(s, j)
	}
	if ok {
		q.exp += e
		q.place += e
		sc.emit(start, k, &q)
		return k
	}
	integer := dec == 0 && !sep && intDigits > 0
	small := -1 // the integer value when it has at most two digits
	if integer && intDigits <= 2 {
		small = int(mant)
	}

	if integer && !q.signed {
		if end, ok := sc.digitDate(i, j, intDigits, small); ok {
			sc.ignore(start, end, IgnoredDate)
			return end
		}
	}
	// Section 3, Table 2, version 2.0, <sup>1</sup>: structure, not data.
	if !q.signed && !sep && dec <= maxStructDigits {
		if from, why := sc.contextBefore(start); why != "" {
			end := j
			switch why {
			case IgnoredVersion:
				end = versionTail(s, j)
			}
			sc.ignore(from, end, why)
			return end
		}
	}

	// Prefixes: 第3 is an ordinal (第3季度 a quarter), 逾2000 an interval.
	textStart := start
	switch pr := sc.prevRune(start); pr {
	case '第':
		if strings.HasPrefix(s[j:], "季度") {
			sc.ignore(start-len("第"), j+len("季度"), IgnoredQuarter)
			return j + len("季度")
		}
		sc.ignore(start-len("第"), j, IgnoredOrdinal)
		return j
	case '逾':
		q.intervalForm = true
		textStart = start - len("逾")
	case '约', '近', '为', '占', '合', '乎':
		if k, ok := sc.zhHedgeBefore(start); ok {
			q.hedged = true
			textStart = k
		}
	case ' ':
		if k := wordBefore(s, start); k < start && isHedge(s[k:start-1]) {
			q.hedged = true
			textStart = k
		} else if k < start && strings.EqualFold(s[k:start-1], "to") {
			// "close to 30,000"
			if c := wordBefore(s, k); c < k && strings.EqualFold(s[c:k-1], "close") {
				q.hedged = true
				textStart = c
			}
		}
	}

	// 2.0版, 3.1版本: a version.
	if !sep && !q.signed && strings.HasPrefix(s[j:], "版") {
		sc.ignore(textStart, j+len("版"), IgnoredVersion)
		return j + len("版")
	}
	// 618大促, 11.11购物节: festivals are dates.
	if !sep && !q.signed && (integer && mant == 618 || dec == 2 && intDigits == 2 && (mant == 1111 || mant == 1212)) {
		if k := festivalAt(s, j); k > j {
			sc.ignore(start, j, IgnoredDate)
			return j
		}
	}

	// 1/3, 3/4: a simple fraction (a dated 11/29 has a larger denominator
	// or a year after it, and is read above).
	if small >= 1 && j+1 < len(s) && s[j] == '/' && isDigit(s[j+1]) {
		k := skipDigits(s, j+1)
		if k-(j+1) <= 2 && (k == len(s) || (!isAlnum(s[k]) && s[k] != '/' && s[k] != '.')) {
			if den := atoiSmall(s[j+1 : k]); den >= 2 && den <= 10 && small < den {
				f := qty{fraction: true, frac: float64(small) / float64(den), neg: q.neg, signed: q.signed, hedged: q.hedged, per: 100}
				sc.emit(textStart, k, &f)
				return k
			}
		}
	}

	// 双11, 双十一: the shopping festivals are dates.
	if sc.prevRune(start) == '双' && (small == 11 || small == 12) {
		sc.ignore(start-len("双"), j, IgnoredDate)
		return j
	}

	end, why := sc.suffix(j, &q, formDigits, integer)
	switch why {
	case whySkip:
		return end
	case "":
		if end == j && integer && intDigits == 4 && isYear(s[i:j]) && (sc.lastIgnoredEndsNear(start) || yearContext(s, start) || sc.inHeading) {
			sc.ignore(start, j, IgnoredDate)
			return j
		}
		if end == j && integer && small >= 1 && yearContextWord(s, start, "week", "wk") {
			sc.ignore(wordBefore(s, start), j, IgnoredDate)
			return j
		}
		if end == j {
			if frac, fend := sc.fractionOf(j, &q); fend > j {
				sc.emit(textStart, fend, frac)
				return fend
			}
		}
		sc.emit(textStart, end, &q)
	default:
		sc.ignore(textStart, end, why)
	}
	return end
}

func isYear(d string) bool {
	if len(d) != 4 || !isDigit(d[2]) || !isDigit(d[3]) {
		return false
	}
	return d[0] == '1' && d[1] == '9' || d[0] == '2' && d[1] == '0' || d == "2100"
}

// digitDate recognises dates and times that start with the integer
// s[i:j]: 2026-11-29, 2026/11, 2026-W47, 11/29/2026, 14:30, 2026年11月29日,
// 11月, 29日, 29 Nov 2026.
func (sc *scanner) digitDate(i, j, nd, small int) (int, bool) {
	s := sc.s
	if j >= len(s) {
		return 0, false
	}
	c := s[j]
	switch {
	case nd == 4 && (c == '-' || c == '/') && isYear(s[i:j]):
		if j+1 < len(s) && isDigit(s[j+1]) {
			k := skipDigits(s, j+1)
			if k-(j+1) > 2 {
				return 0, false
			}
			if k+1 < len(s) && s[k] == c && isDigit(s[k+1]) {
				if m := skipDigits(s, k+1); m-(k+1) <= 2 {
					k = isoTimeTail(s, m)
				}
			}
			return k, true
		}
		if c == '-' && j+2 < len(s) && s[j+1] == 'W' && isDigit(s[j+2]) {
			k := skipDigits(s, j+2)
			if k+1 < len(s) && s[k] == '-' && isDigit(s[k+1]) {
				k += 2
			}
			return k, true
		}
	case nd <= 2 && c == '/':
		k := skipDigits(s, j+1)
		if n := k - (j + 1); n < 1 || n > 2 || k >= len(s) || s[k] != '/' {
			return 0, false
		}
		m := skipDigits(s, k+1)
		if n := m - (k + 1); n != 2 && n != 4 {
			return 0, false
		}
		return m, true
	case nd <= 2 && c == ':' && small <= 23:
		if j+2 < len(s) && isDigit(s[j+1]) && isDigit(s[j+2]) && (j+3 == len(s) || !isDigit(s[j+3])) {
			k := j + 3
			if k+2 < len(s) && s[k] == ':' && isDigit(s[k+1]) && isDigit(s[k+2]) {
				k += 3
			}
			return k, true
		}
	case nd == 4 && strings.HasPrefix(s[j:], "年") && s[i] >= '1' && s[i] <= '2':
		return sc.zhDateTail(j + len("年")), true
	case small >= 1 && small <= 12 && strings.HasPrefix(s[j:], "月"):
		return sc.zhDayTail(j + len("月")), true
	case small >= 1 && small <= 31 && (strings.HasPrefix(s[j:], "日") || strings.HasPrefix(s[j:], "号")):
		return j + len("日"), true
	case small >= 1 && small <= 31 && c == ' ':
		if k := sc.monthAfter(j + 1); k > 0 {
			return k, true
		}
	}
	return 0, false
}

// isoTimeTail consumes the time an ISO 8601 timestamp may carry after its
// date (2026-11-29T10:00:00.5Z, …T10:00+08:00), so that the whole
// timestamp is one ignored date rather than a date and a stray "00:00".
// It returns k when no time follows.
func isoTimeTail(s string, k int) int {
	two := func(i int) bool { return i+1 < len(s) && isDigit(s[i]) && isDigit(s[i+1]) }
	if k >= len(s) || s[k] != 'T' || !two(k+1) || k+3 >= len(s) || s[k+3] != ':' || !two(k+4) {
		return k
	}
	e := k + 6
	if e < len(s) && s[e] == ':' && two(e+1) {
		e += 3
		if e+1 < len(s) && s[e] == '.' && isDigit(s[e+1]) {
			e = skipDigits(s, e+1)
		}
	}
	switch {
	case e < len(s) && s[e] == 'Z':
		e++
	case e < len(s) && (s[e] == '+' || s[e] == '-') && two(e+1) && e+3 < len(s) && s[e+3] == ':' && two(e+4):
		e += 6
	}
	if e < len(s) && isAlnum(s[e]) {
		return k
	}
	return e
}

// zhDateTail consumes the month and day that may follow 2026年.
func (sc *scanner) zhDateTail(j int) int {
	s := sc.s
	if k := skipDigits(s, j); k > j && k-j <= 2 && strings.HasPrefix(s[k:], "月") {
		return sc.zhDayTail(k + len("月"))
	}
	if z := parseZh(s, j); z.ok && !z.seq && z.mant >= 1 && z.mant <= 12 && z.exp == 0 && strings.HasPrefix(s[z.end:], "月") {
		return sc.zhDayTail(z.end + len("月"))
	}
	return j
}

// zhDayTail consumes the day that may follow 11月.
func (sc *scanner) zhDayTail(j int) int {
	s := sc.s
	k := skipDigits(s, j)
	if k == j {
		if z := parseZh(s, j); z.ok && !z.seq && z.exp == 0 && z.mant >= 1 && z.mant <= 31 {
			k = z.end
		}
	}
	if k > j && (strings.HasPrefix(s[k:], "日") || strings.HasPrefix(s[k:], "号")) {
		return k + len("日")
	}
	return j
}

// yearContext reports whether the word before offset i makes a bare
// four-digit number a year: "in 2026", "since 2019", "FY 2026".
func yearContext(s string, i int) bool {
	if yearContextWord(s, i, "in", "since", "until", "during", "year", "fy", "fiscal", "mid", "early", "late") {
		return true
	}
	// After a word that also comes before an amount ("grew by 2050",
	// "down from 1987 stores", "on 2050 orders"), a year is a date only
	// where nothing is counted: at the end of a clause or before another
	// date ("by 2030.", "from 2024 to 2025").
	if yearContextWord(s, i, "through", "from", "on", "vs", "versus", "by", "before", "after", "against") {
		return yearEndsClause(s, i+4)
	}
	// "the first half of 2026", "by the end of 2026" (but "a total of
	// 2026 orders" is a count).
	if k := wordBefore(s, i); k < i && strings.EqualFold(s[k:i-1], "of") {
		return yearContextWord(s, k, "half", "end", "start", "beginning", "middle", "quarter", "rest", "spring", "summer", "autumn", "fall", "winter")
	}
	return false
}

// yearContextWord reports whether the ASCII word right before offset i
// (one space between) is one of words, case-insensitively.
func yearContextWord(s string, i int, words ...string) bool {
	k := wordBefore(s, i)
	if k == i {
		return false
	}
	w := s[k : i-1]
	for _, x := range words {
		if strings.EqualFold(w, x) {
			return true
		}
	}
	return false
}

// wordBefore returns the start of the ASCII word that ends one space
// before offset i, or i when there is none.
func wordBefore(s string, i int) int {
	if i < 2 || s[i-1] != ' ' {
		return i
	}
	k := i - 1
	for k > 0 && isAlpha(s[k-1]) && i-1-k < 12 {
		k--
	}
	if k == i-1 || (k > 0 && isAlpha(s[k-1])) {
		return i
	}
	return k
}

// atoiSmall converts at most a few ASCII digits.
func atoiSmall(d string) int {
	n := 0
	for i := 0; i < len(d); i++ {
		n = n*10 + int(d[i]-'0')
	}
	return n
}

// groups reads the thousands groups that may follow the first one to
// three digits of a number, ending at j: "1,234,567", "1，234", "1 234 567"
// (SI style), "1 234" with a thin or narrow no-break space, "1'234'567"
// (Swiss style). Every separator of a number is the same, and each is
// followed by exactly three digits. A plain space groups only when there
// are at least two groups: "3 100 stores" is two numbers in prose, and
// "1 234 567" is unmistakable.
func groups(s string, j int, mant float64, nd int) (int, float64, int, bool) {
	sep := ""
	n := 0
	j0, mant0, nd0 := j, mant, nd
	for j < len(s) {
		w := groupSepAt(s, j)
		if w == 0 || (sep != "" && s[j:j+w] != sep) {
			break
		}
		k := j + w
		if k+3 > len(s) || !isDigit(s[k]) || !isDigit(s[k+1]) || !isDigit(s[k+2]) || (k+3 < len(s) && isDigit(s[k+3])) {
			break
		}
		sep = s[j : j+w]
		mant = mant*1000 + float64(s[k]-'0')*100 + float64(s[k+1]-'0')*10 + float64(s[k+2]-'0')
		j = k + 3
		nd += 3
		n++
	}
	if sep == " " && n < 2 {
		return j0, mant0, nd0, false
	}
	return j, mant, nd, n > 0
}

// groupSepAt returns the width of a thousands separator at j, or 0: ",",
// "，", an apostrophe (' or ’), a space, a no-break space, a thin space
// (U+2009) or a narrow no-break space (U+202F).
func groupSepAt(s string, j int) int {
	switch c := s[j]; c {
	case ',', ' ', '\'':
		return 1
	case 0xC2: // U+00A0
		if strings.HasPrefix(s[j:], "\u00a0") {
			return 2
		}
	case 0xE2: // U+2009, U+202F, U+2019
		if strings.HasPrefix(s[j:], "\u2009") || strings.HasPrefix(s[j:], "\u202f") || strings.HasPrefix(s[j:], "’") {
			return 3
		}
	case 0xEF: // U+FF0C
		if strings.HasPrefix(s[j:], "，") {
			return 3
		}
	}
	return 0
}

// dotGrouped reads d as an integer whose thousands are grouped with dots
// (1.234.567, as in German): one to three digits, then at least two groups
// of exactly three.
func dotGrouped(d string) (float64, bool) {
	parts := strings.Split(d, ".")
	if len(parts) < 3 || len(parts[0]) > 3 {
		return 0, false
	}
	m := 0.0
	for k, p := range parts {
		if k > 0 && len(p) != 3 {
			return 0, false
		}
		for n := 0; n < len(p); n++ {
			m = m*10 + float64(p[n]-'0')
		}
	}
	return m, true
}

// shortParts reports whether every dotted part of d has at most
// maxStructDigits digits, as a section number does.
func shortParts(d string) bool {
	for _, p := range strings.Split(d, ".") {
		if len(p) > maxStructDigits {
			return false
		}
	}
	return true
}

// dottedDayMonthYear reports whether d is a date written day.month.year
// (29.11.2026, 1.3.2026).
func dottedDayMonthYear(d string) bool {
	parts := strings.Split(d, ".")
	if len(parts) != 3 || len(parts[0]) > 2 || len(parts[1]) > 2 || !isYear(parts[2]) {
		return false
	}
	day, month := atoiSmall(parts[0]), atoiSmall(parts[1])
	return day >= 1 && day <= 31 && month >= 1 && month <= 12
}

// exponentAt reads the exponent of a number in scientific notation at j
// ("e6", "E-3", "e+12", "e−5"), not followed by a letter (3e5f is a name,
// such as a hash). An exponent too large for a float64 leaves the number
// without a value: reported, and never traced. It returns the end
// of the exponent and its value.
func exponentAt(s string, j int) (int, int, bool) {
	if j >= len(s) || s[j]|0x20 != 'e' {
		return 0, 0, false
	}
	k := j + 1
	neg := false
	switch {
	case k < len(s) && (s[k] == '+' || s[k] == '-'):
		neg = s[k] == '-'
		k++
	case strings.HasPrefix(s[k:], "−"):
		neg = true
		k += len("−")
	}
	d := k
	e := 0
	for k < len(s) && isDigit(s[k]) {
		if e < 100000 {
			e = e*10 + int(s[k]-'0')
		}
		k++
	}
	if k == d || (k < len(s) && isAlnum(s[k])) || (k+1 < len(s) && s[k] == '.' && isDigit(s[k+1])) {
		return 0, 0, false
	}
	if neg {
		e = -e
	}
	return k, e, true
}

// yearEndsClause reports whether the year ending at j closes a clause or
// a range: the end of the text or a line, punctuation, or " to ", " and ",
// " through ", or a dash before another year.
func yearEndsClause(s string, j int) bool {
	if j >= len(s) {
		return true
	}
	switch s[j] {
	case ',', '.', ';', ':', ')', '!', '?', '\n', '\r', '-', '/', ']', '|':
		return true
	}
	if strings.HasPrefix(s[j:], "–") || strings.HasPrefix(s[j:], "—") || strings.HasPrefix(s[j:], "，") || strings.HasPrefix(s[j:], "。") {
		return true
	}
	if s[j] != ' ' {
		return false
	}
	k := j + 1
	e := k
	for e < len(s) && isAlpha(s[e]) {
		e++
	}
	switch strings.ToLower(s[k:e]) {
	case "to", "and", "or", "through", "until", "till":
		return true
	}
	return k < len(s) && (s[k] == '(' || s[k] == '-' || strings.HasPrefix(s[k:], "–") || strings.HasPrefix(s[k:], "—"))
}

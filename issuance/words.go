package issuance

import (
	"strings"
	"sync"
)

// wordKind classifies the English words the scanner cares about.
type wordKind uint8

const (
	wkNone wordKind = iota
	wkNumber
	wkTens
	wkVague
	wkArticle // "a": a few, a couple, a handful, a dozen
	wkMonth
	wkWeek
	wkFrac // half, third(s), quarter(s), …: the denominator of a fraction
)

type wordInfo struct {
	kind wordKind
	val  int
}

// words maps lower-case English words to what they are. Number words are
// read like Chinese numerals ("twenty" is 20 ± 5); "one" alone is read as
// vague ("one of", "one day"), like 一 before a classifier. Built with
// wordLens on first use (only the issuance checker reads them).
func buildWords() map[string]wordInfo {
	m := map[string]wordInfo{}
	for i, w := range []string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
		"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"} {
		m[w] = wordInfo{wkNumber, i + 1}
	}
	for i, w := range []string{"twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"} {
		m[w] = wordInfo{wkTens, (i + 2) * 10}
	}
	for _, w := range []string{"few", "several", "dozens", "hundreds", "thousands", "millions", "billions", "handful", "couple"} {
		m[w] = wordInfo{kind: wkVague}
	}
	m["a"] = wordInfo{kind: wkArticle}
	for i, w := range []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"} {
		m[w] = wordInfo{wkMonth, i + 1}
	}
	for i, w := range []string{"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"} {
		m[w] = wordInfo{wkMonth, i + 1}
	}
	m["sept"] = wordInfo{wkMonth, 9}
	for w, den := range map[string]int{"half": 2, "third": 3, "quarter": 4, "fourth": 4, "fifth": 5,
		"sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10} {
		m[w] = wordInfo{wkFrac, den}
		if den > 2 {
			m[w+"s"] = wordInfo{wkFrac, den}
		}
	}
	m["week"] = wordInfo{kind: wkWeek}
	m["wk"] = wordInfo{kind: wkWeek}
	return m
}

// wordLens has, for each first letter, a bit per length of a word in
// words, so that most prose words are rejected without a map look-up.
type wordTable struct {
	words map[string]wordInfo
	lens  [26]uint16
}

var wordTables = sync.OnceValue(func() *wordTable {
	t := &wordTable{words: buildWords()}
	for w := range t.words {
		t.lens[w[0]-'a'] |= 1 << len(w)
	}
	return t
})

// lookupWord returns what the ASCII word w is, case-insensitively.
func lookupWord(w string) wordInfo {
	t := wordTables()
	if len(w) > 9 || len(w) == 0 || !isAlpha(w[0]) || t.lens[(w[0]|0x20)-'a']&(1<<len(w)) == 0 {
		return wordInfo{}
	}
	var b [9]byte
	for n := 0; n < len(w); n++ {
		b[n] = w[n] | 0x20
	}
	return t.words[string(b[:len(w)])]
}

// currencyCodes may be glued to an amount: USD1.2M, RMB300.
var currencyCodes = map[string]bool{
	"USD": true, "US": true, "RMB": true, "CNY": true, "EUR": true, "GBP": true, "HKD": true,
	"HK": true, "JPY": true, "AUD": true, "CAD": true, "SGD": true, "CHF": true, "KRW": true,
}

// currencyBefore reports whether a currency stands right before the
// number at start, with at most one space between: $, €, £, ¥, ￥, ₹, ₩,
// or a currency code (USD, RMB, …). Lower-case scales are read only
// after one: "$4.5m" is 4,500,000, "4.5m" a length.
func (sc *scanner) currencyBefore(start int) bool {
	s := sc.s
	k := start
	if k > 0 && (s[k-1] == ' ' || s[k-1] == 0xA0) {
		k--
		if k > 0 && s[k-1] == 0xC2 { // U+00A0
			k--
		}
	}
	if k == 0 {
		return false
	}
	if s[k-1] == '$' {
		return true
	}
	switch sc.prevRune(k) {
	case '€', '£', '¥', '￥', '₹', '₩', '₽':
		return true
	}
	w := k
	for w > 0 && s[w-1] >= 'A' && s[w-1] <= 'Z' && k-w < 4 {
		w--
	}
	return w < k && (w == 0 || !isAlpha(s[w-1])) && currencyCodes[s[w:k]]
}

// word handles the ASCII word starting at i.
func (sc *scanner) word(i int) int {
	s := sc.s
	j := i
	for j < len(s) && isAlpha(s[j]) {
		j++
	}
	w := s[i:j]
	if j < len(s) && isDigit(s[j]) {
		return sc.gluedWord(i, j, w)
	}
	info := lookupWord(w)
	switch info.kind {
	case wkNone:
		return j
	case wkMonth:
		if w[0] >= 'A' && w[0] <= 'Z' {
			if k := sc.monthDate(j); k > j {
				sc.ignore(i, k, IgnoredDate)
				return k
			}
		}
		return j
	case wkWeek:
		if j+1 < len(s) && s[j] == ' ' && isDigit(s[j+1]) {
			k := skipDigits(s, j+1)
			if k-(j+1) <= 2 && (k == len(s) || !isAlnum(s[k])) {
				sc.ignore(i, k, IgnoredDate)
				return k
			}
		}
		return j
	case wkVague:
		sc.ignore(i, j, IgnoredVague)
		return j
	case wkFrac:
		return sc.halfWord(i, j, info)
	case wkArticle:
		if k := sc.fractionWord(i, 1, j); k > j {
			return k
		}
		if j+1 < len(s) && s[j] == ' ' && isAlpha(s[j+1]) {
			k := j + 1
			for k < len(s) && isAlpha(s[k]) {
				k++
			}
			switch strings.ToLower(s[j+1 : min(k, j+1+9)]) {
			case "few", "couple", "handful", "dozen":
				sc.ignore(i, k, IgnoredVague)
				return k
			}
		}
		// "a million", "a hundred thousand", "a hundred percent": one of
		// the scale, a figure a reader sees although no digit is written
		// ("a million-dollar idea" is a compound word, as "five-year").
		q := qty{mant: 1}
		if end, why := sc.suffix(j, &q, formWord, true); why == "" && end > j && (q.exp > 0 || q.per > 0) && (end == len(s) || s[end] != '-') {
			from := i
			if i >= 5 && strings.EqualFold(s[i-5:i], "half ") && (i == 5 || !isAlpha(s[i-6])) {
				from = i - 5 // half a million
				q.mant, q.exp, q.place = 5, q.exp-1, q.place-1
			}
			sc.emit(from, end, &q)
			return end
		}
		return j
	}
	// A number word; twenty-five is one number.
	if j > 0 && i > 0 && (s[i-1] == '-' || isDigit(s[i-1])) {
		return j
	}
	if info.kind == wkNumber {
		if k := sc.fractionWord(i, info.val, j); k > j {
			return k // one third, two-thirds
		}
	}
	q := qty{mant: float64(info.val)}
	if info.kind == wkTens {
		q.place = 1
		if j+1 < len(s) && s[j] == '-' {
			k := j + 1
			for k < len(s) && isAlpha(s[k]) {
				k++
			}
			if u := lookupWord(s[j+1 : k]); u.kind == wkNumber && u.val <= 9 {
				q.mant += float64(u.val)
				q.place = 0
				j = k
			}
		}
	}
	if j < len(s) && (s[j] == '-' || isAlpha(s[j])) {
		return j // one-off, five-year: part of a compound word
	}
	end, why := sc.suffix(j, &q, formWord, true)
	if why != "" && why != whySkip {
		sc.ignore(i, end, why)
		return end
	}
	if end == j && info.val == 1 && info.kind == wkNumber {
		sc.ignore(i, j, IgnoredVague) // "one of", "one day"
		return j
	}
	sc.emit(i, end, &q)
	return end
}

// gluedWord handles letters glued to digits at j: Q3, H1, W47, FY2026 are
// periods; USD1.2M is an amount; anything else (B2B, SKU123, x86) is a name.
func (sc *scanner) gluedWord(i, j int, w string) int {
	s := sc.s
	if i > 0 && (isDigit(s[i-1]) || s[i-1] == '_') {
		return skipAlnum(s, j)
	}
	k := skipDigits(s, j)
	free := k == len(s) || !isAlnum(s[k])
	n := k - j
	switch {
	case (w == "Q" || w == "q") && n == 1 && s[j] >= '1' && s[j] <= '4' && free:
		sc.ignore(i, k, IgnoredQuarter)
		return k
	case w == "H" && n == 1 && (s[j] == '1' || s[j] == '2') && free:
		sc.ignore(i, k, IgnoredQuarter)
		return k
	case (w == "W" || w == "wk" || w == "Wk") && n <= 2 && free:
		sc.ignore(i, k, IgnoredDate)
		return k
	case w == "FY" && (n == 2 || n == 4) && free:
		sc.ignore(i, k, IgnoredDate)
		return k
	case w == "v" || w == "V":
		k = versionGlued(s, j)
		sc.ignore(i, k, IgnoredVersion)
		return k
	case currencyCodes[w]:
		return j // the digit path reads the amount
	}
	return skipAlnum(s, j)
}

// monthDate reads what follows a month name ending at j: " 29", " 29, 2026",
// ". 29th 2026", " 2026". It returns the end of the date, or j.
func (sc *scanner) monthDate(j int) int {
	s := sc.s
	k := j
	if k < len(s) && s[k] == '.' {
		k++
	}
	if k+1 >= len(s) || s[k] != ' ' || !isDigit(s[k+1]) {
		return j
	}
	k++
	d := skipDigits(s, k)
	switch n := d - k; {
	case n == 4 && isYear(s[k:d]):
		return d
	case n <= 2:
		end := d
		if d+2 <= len(s) {
			switch s[d : d+2] {
			case "st", "nd", "rd", "th":
				end = d + 2
			}
		}
		if end < len(s) && isAlnum(s[end]) {
			return j
		}
		// A range of days: "Oct 1–7", "Nov 20-29".
		for _, dash := range []string{"–", "-"} {
			if strings.HasPrefix(s[end:], dash) {
				e := end + len(dash)
				if f := skipDigits(s, e); f > e && f-e <= 2 && (f == len(s) || !isAlnum(s[f])) {
					end = f
				}
				break
			}
		}
		y := end
		if y < len(s) && s[y] == ',' {
			y++
		}
		if y+5 <= len(s) && s[y] == ' ' && isYear(s[y+1:y+5]) && (y+5 == len(s) || !isAlnum(s[y+5])) {
			return y + 5
		}
		return end
	}
	return j
}

// monthAfter reads "Nov 2026" / "November" at j (after "29 "), returning
// the end of the date or 0 when no month name is there.
func (sc *scanner) monthAfter(j int) int {
	s := sc.s
	if j >= len(s) || s[j] < 'A' || s[j] > 'Z' {
		return 0
	}
	k := j
	for k < len(s) && isAlpha(s[k]) {
		k++
	}
	if lookupWord(s[j:k]).kind != wkMonth {
		return 0
	}
	end := k
	if end < len(s) && s[end] == '.' {
		end++
	}
	if end+5 <= len(s) && s[end] == ' ' && isYear(s[end+1:end+5]) && (end+5 == len(s) || !isAlnum(s[end+5])) {
		return end + 5
	}
	return k
}

// fractionWord reads an English fraction whose numerator (a, one, two, …
// of value num) spans [from, j), when a space or a hyphen and a
// denominator word follow: "a third of", "one-third", "two thirds",
// "three quarters". It returns the end, or j when there is none. "a
// third" is a fraction only before "of" or at the end of a clause ("a
// third store" is an ordinal), and "a quarter" only before "of" ("in a
// quarter" is a period). A hedge before it widens the tolerance.
func (sc *scanner) fractionWord(from, num, j int) int {
	s := sc.s
	if j+1 >= len(s) || (s[j] != ' ' && s[j] != '-') || !isAlpha(s[j+1]) {
		return j
	}
	k := j + 1
	e := k
	for e < len(s) && isAlpha(s[e]) {
		e++
	}
	info := lookupWord(s[k:e])
	if info.kind != wkFrac || num >= info.val || (e < len(s) && (s[e] == '-' || isDigit(s[e]))) {
		return j
	}
	plural := s[e-1] == 's'
	if plural != (num > 1) && info.val != 2 {
		return j
	}
	if num == 1 && info.val > 2 {
		of := strings.HasPrefix(s[e:], " of") && (e+3 == len(s) || !isAlpha(s[e+3]))
		end := e == len(s) || strings.IndexByte(".,;:)!?\n", s[e]) >= 0
		if !of && (info.val == 4 || !end) {
			return j
		}
	}
	q := qty{fraction: true, frac: float64(num) / float64(info.val), per: 100}
	if w := wordBefore(s, from); w < from && isHedge(s[w:from-1]) {
		q.hedged, from = true, w
	}
	sc.emit(from, e, &q)
	return e
}

// halfWord reads "half" standing alone at [i, j): a fraction after a
// hedge ("nearly half") or before "of"/"the" ("half of the stores",
// "half the stores"), but not in "the first half of 2026".
func (sc *scanner) halfWord(i, j int, info wordInfo) int {
	s := sc.s
	if info.val != 2 || (i > 0 && (s[i-1] == '-' || isAlnum(s[i-1]))) || (j < len(s) && (s[j] == '-' || isAlnum(s[j]))) {
		return j
	}
	q := qty{fraction: true, frac: 0.5, per: 100}
	from := i
	if w := wordBefore(s, i); w < i {
		prev := strings.ToLower(s[w : i-1])
		switch {
		case isHedge(prev):
			q.hedged, from = true, w
		case prev == "first" || prev == "second" || prev == "the" || prev == "this" || prev == "that" ||
			prev == "last" || prev == "next" || prev == "other" || prev == "each" || prev == "per" || prev == "a" || prev == "one":
			return j
		}
	}
	if !q.hedged && !strings.HasPrefix(s[j:], " of ") && !strings.HasPrefix(s[j:], " the ") {
		return j
	}
	sc.emit(from, j, &q)
	return j
}

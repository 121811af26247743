package issuance

import "strings"

// Some numbers are names: a shopping festival or a holiday (618, 十一,
// 五一), a version (v1.2.3). They are reported as ignored.

// festivalWords follow the numeral of a holiday or a shopping festival
// when it is used as a name: 十一假期, 618大促, 五一期间, 618 festival.
var festivalWords = []string{
	"假期", "长假", "小长假", "黄金周", "假日", "期间", "大促", "购物节", "促销", "活动", "档期",
	"当天", "狂欢", "预售", "节日", "妇女节", "儿童节", "劳动节", "出游", "前后",
	" festival", " shopping festival", " sale", " promotion", " campaign", " holiday",
}

// festivalAt returns the offset after a festival word at j (which is
// kept out of the number's text), or j.
func festivalAt(s string, j int) int {
	if j >= len(s) || (s[j] != ' ' && s[j] < 0xE4) {
		return j
	}
	for _, w := range festivalWords {
		if strings.HasPrefix(s[j:], w) {
			k := j + len(w)
			if w[0] == ' ' && k < len(s) && isAlpha(s[k]) {
				continue // " sales" is not " sale"
			}
			return k
		}
	}
	return j
}

// zhFestival reports whether a Chinese numeral of value v (seq: written
// digit by digit) names a holiday: 十一 (National Day), 五一 (May Day),
// 六一, 三八, when a festival word follows.
func zhFestival(s string, end int, v float64, seq bool) bool {
	switch {
	case !seq && v == 11, seq && (v == 51 || v == 61 || v == 38):
		return festivalAt(s, end) > end
	}
	return false
}

// versionGlued reads a version written after a "v" or "V" glued to its
// digits at j (v1.2.3, V2, v2.0.1-rc1) and returns its end.
func versionGlued(s string, j int) int {
	k := skipDigits(s, j)
	for k+1 < len(s) && s[k] == '.' && isDigit(s[k+1]) {
		k = skipDigits(s, k+1)
	}
	return versionTail(s, k)
}

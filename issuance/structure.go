package issuance

import (
	"strings"
	"unicode/utf8"
)

// Reports are Markdown: numbered lists, headings with section numbers,
// footnote references and tables. The numbers that make up that structure
// are not quantities, and are reported as ignored so that the reader can
// see what was skipped.
//
// A model that misbehaves may dress a figure up as structure to keep it
// from being traced ("[1234567]", "1234567. " at the start of a line). So
// every part of a structure number has at most maxStructDigits digits:
// lists, references and sections do not run into the thousands, and a
// longer number is read as a quantity.

// maxStructDigits bounds each part of an enumerator, a reference, a
// section number or a row number.
const maxStructDigits = 3

// shortDigits returns the end of the run of digits at k when it has one
// to maxStructDigits digits, or k.
func shortDigits(s string, k int) int {
	e := skipDigits(s, k)
	if e-k > maxStructDigits {
		return k
	}
	return e
}

// lineStart reads the structure that may open the line starting at i —
// a heading's section number, a list enumerator, a table row — and
// returns where ordinary reading resumes.
func (sc *scanner) lineStart(i int) int {
	s := sc.s
	p := i
	sc.inHeading = false
	// Indentation and block quotes: "   1. ", "> 2) ".
	for p < len(s) && (s[p] == ' ' || s[p] == '\t' || s[p] == '>') {
		p++
	}
	if p >= len(s) {
		return p
	}
	c := s[p]
	if c != '|' {
		sc.tbl = table{}
	}
	switch {
	case c == '#':
		return sc.heading(p)
	case c == '|':
		sc.tableRow(p)
	case c == '-' || c == '*' || c == '+':
		// A bullet, then perhaps "1. " of a nested numbering: "- 1) ".
		if p+1 < len(s) && s[p+1] == ' ' {
			if k := enumeratorAt(s, p+2); k > p+2 {
				sc.ignore(p+2, k, IgnoredEnumerator)
				return k
			}
		}
	default:
		if k := enumeratorAt(s, p); k > p {
			sc.ignore(p, k, IgnoredEnumerator)
			return k
		}
	}
	return p
}

// enumeratorAt returns the end of a list enumerator at p, or p: "1. " and
// "2) " as in Markdown ordered lists (one to three digits, then a space or
// the end of the line), "1、", "1）", "(1)", "（1）", and Chinese numerals
// before 、 or inside parentheses: "十一、", "（三）".
func enumeratorAt(s string, p int) int {
	if p >= len(s) {
		return p
	}
	open := 0
	if s[p] == '(' {
		open = 1
	} else if strings.HasPrefix(s[p:], "（") {
		open = len("（")
	}
	k := p + open
	if k < len(s) && isDigit(s[k]) {
		e := shortDigits(s, k)
		if e == k {
			return p
		}
		k = e
	} else if z := parseZh(s, k); z.ok && !z.seq && z.exp == 0 && z.mant >= 1 && z.mant < 100 {
		k = z.end
	} else {
		return p
	}
	if open > 0 {
		if k < len(s) && s[k] == ')' {
			return k + 1
		}
		if strings.HasPrefix(s[k:], "）") {
			return k + len("）")
		}
		return p
	}
	switch {
	case strings.HasPrefix(s[k:], "、"):
		return k + len("、")
	case strings.HasPrefix(s[k:], "）"):
		return k + len("）")
	case isDigit(s[p]) && k < len(s) && (s[k] == '.' || s[k] == ')'):
		if k+1 == len(s) || s[k+1] == ' ' || s[k+1] == '\t' || s[k+1] == '\n' || s[k+1] == '\r' {
			return k + 1
		}
	}
	return p
}

// heading reads the section number that may follow the marker of a
// Markdown heading at p: "## 2.1 Revenue", "# 3. Results", "### 1.2.3".
// A year opening a heading ("## 2026 review") is a date, and "## 一、" an
// enumerator.
func (sc *scanner) heading(p int) int {
	s := sc.s
	k := p
	for k < len(s) && s[k] == '#' && k-p < 7 {
		k++
	}
	if k-p > 6 || k >= len(s) || s[k] != ' ' {
		return p
	}
	sc.inHeading = true
	for k < len(s) && s[k] == ' ' {
		k++
	}
	if k >= len(s) {
		return k
	}
	if !isDigit(s[k]) {
		if e := enumeratorAt(s, k); e > k {
			sc.ignore(k, e, IgnoredEnumerator)
			return e
		}
		return k
	}
	if e := skipDigits(s, k); e-k == 4 && isYear(s[k:e]) && (e == len(s) || !isAlnum(s[e]) && s[e] != '.') {
		sc.ignore(k, e, IgnoredDate)
		return e
	}
	e := shortDigits(s, k)
	if e == k {
		return k
	}
	for e+1 < len(s) && s[e] == '.' && isDigit(s[e+1]) {
		f := shortDigits(s, e+1)
		if f == e+1 {
			return k
		}
		e = f
	}
	end := e
	if end < len(s) && (s[end] == '.' || s[end] == ')') {
		end++
	}
	if end == e && isBareInt(s[k:e]) && end+1 < len(s) && s[end] == ' ' && s[end+1] >= 'a' && s[end+1] <= 'z' {
		// "## 750 stores closed": a count that opens a heading, not a
		// section ("## 3 Results", "## 3. results" are sections).
		return k
	}
	if end == len(s) || s[end] == ' ' || s[end] == '\t' || s[end] == '\n' || s[end] == '\r' {
		sc.ignore(k, end, IgnoredSection)
		return end
	}
	if strings.HasPrefix(s[end:], "、") {
		sc.ignore(k, end+len("、"), IgnoredEnumerator)
		return end + len("、")
	}
	return k
}

// reference reads a bracketed reference at i (a "[" that does not open a
// marker): "[1]", "[12]", "[1, 3]", "[2-4]", "[^3]", "[^note-2]". It
// returns i+1 when there is none, so that "[8.7%](url)" is read as usual.
func (sc *scanner) reference(i int) int {
	s := sc.s
	k := i + 1
	if k < len(s) && s[k] == '^' {
		e := k + 1
		digit := false
		for e < len(s) && e-k < 64 && (isAlnum(s[e]) || s[e] == '-' || s[e] == '_') {
			digit = digit || isDigit(s[e])
			e++
		}
		if e > k+1 && e < len(s) && s[e] == ']' {
			if isBareInt(s[k+1:e]) && e-(k+1) > maxStructDigits {
				return i + 1 // [^1234567] is a figure in brackets
			}
			if digit {
				sc.ignore(i, e+1, IgnoredReference)
			}
			return e + 1
		}
		return i + 1
	}
	if k >= len(s) || !isDigit(s[k]) {
		return i + 1
	}
	e := k
	for e < len(s) && e-k < 32 {
		switch c := s[e]; {
		case isDigit(c):
			f := shortDigits(s, e)
			if f == e {
				return i + 1 // [1234567] is a figure in brackets
			}
			e = f
			continue
		case c == ',' || c == ' ' || c == '-':
			if isDigit(s[e-1]) || s[e-1] == ',' {
				e++
				continue
			}
		case strings.HasPrefix(s[e:], "–"):
			e += len("–")
			continue
		}
		break
	}
	if e < len(s) && s[e] == ']' && isDigit(s[e-1]) {
		if e+1 < len(s) && s[e+1] == '(' || commaGrouped(s[k:e]) {
			// [9,999,999](url) is a link whose text a reader sees, and
			// [9,999,999] one figure grouped in thousands: read as usual.
			return i + 1
		}
		sc.ignore(i, e+1, IgnoredReference)
		return e + 1
	}
	return i + 1
}

// commaGrouped reports whether d is digits grouped in thousands by commas
// without a space ("9,999,999", "1,234"): a number, never a list of
// references, which is written "[1, 3]" or "[1,3]".
func commaGrouped(d string) bool {
	parts := strings.Split(d, ",")
	if len(parts) < 2 || len(parts[0]) < 1 || len(parts[0]) > 3 || !isBareInt(parts[0]) {
		return false
	}
	for _, p := range parts[1:] {
		if len(p) != 3 || !isBareInt(p) {
			return false
		}
	}
	return true
}

// sectionWord reports whether the lower-case word w opens a reference to
// a part of a document ("Section 2.1", "Table 3", "step 2"), or, with
// abbrev, whether it is an abbreviation that may end in a dot before its
// number ("Fig. 2", "Sec.3", "p. 4").
func sectionWord(w string, abbrev bool) bool {
	if abbrev {
		switch w {
		case "fig", "sec", "ch", "p", "pp", "eq":
			return true
		}
		return false
	}
	switch w {
	case "section", "sec", "chapter", "table", "figure", "fig", "exhibit", "chart", "appendix", "annex",
		"note", "footnote", "page", "slide", "step", "part", "question", "item", "row", "column", "line",
		"clause", "article", "paragraph", "para":
		return true
	}
	return false
}

// alsoAVerb reports whether the section or version word w is also a verb
// that a count may follow ("we note 3 risks", "will release 2 models",
// "we figure 5 stores"): such a word makes a section or a version only
// when capitalised, as references are written ("see Note 3", "Table 2").
func alsoAVerb(w string) bool {
	switch w {
	case "table", "figure", "chart", "note", "step", "part", "item", "row", "column", "line", "slide",
		"clause", "article", "release", "page":
		return true
	}
	return false
}

// versionWord reports whether the lower-case word w makes the number
// after it a version: "version 2.0", "release 3.1".
func versionWord(w string) bool {
	switch w {
	case "version", "ver", "release", "v":
		return true
	}
	return false
}

// contextBefore reports whether what stands before the number at start
// makes it structure rather than a quantity, and where the ignored text
// begins: a section word ("Section 3", "Table 2", "§4.1", "见表2"), a
// version word ("version 2.0", "版本2.0"), or a superscript reference
// ("<sup>1</sup>").
func (sc *scanner) contextBefore(start int) (int, string) {
	s := sc.s
	if start == 0 || shortDigits(s, start) == start {
		return start, ""
	}
	switch c := s[start-1]; {
	case c == ' ' || c == '.':
		k := start - 1 // the end of the word before
		if c == ' ' && k > 0 && s[k-1] == '.' {
			k-- // "Fig. 2"
		}
		abbrev := s[k] == '.'
		w := k
		for w > 0 && isAlpha(s[w-1]) && k-w < 10 {
			w--
		}
		if w == k || (w > 0 && isAlpha(s[w-1])) {
			if c == ' ' && k > 0 && strings.HasSuffix(s[:k], "§") {
				return k - len("§"), IgnoredSection
			}
			return start, ""
		}
		var b [10]byte
		word := s[w:k]
		for n := 0; n < len(word); n++ {
			b[n] = word[n] | 0x20
		}
		lw := string(b[:len(word)])
		if abbrev {
			// Only an abbreviation may end in a dot before its number:
			// "Fig. 2" is a figure, "see the table. 3 stores" is not.
			if sectionWord(lw, true) {
				return w, IgnoredSection
			}
			return start, ""
		}
		capital := word[0] >= 'A' && word[0] <= 'Z'
		if sectionWord(lw, false) && (capital || !alsoAVerb(lw)) {
			return w, IgnoredSection
		}
		if c == ' ' && versionWord(lw) && (capital || !alsoAVerb(lw)) {
			return w, IgnoredVersion
		}
	case c == '>':
		if strings.HasSuffix(s[:start], "<sup>") && strings.HasPrefix(s[skipDigits(s, start):], "</sup>") {
			return start, IgnoredReference
		}
	case c >= 0x80:
		r, size := utf8.DecodeLastRuneInString(s[:start])
		switch r {
		case '§':
			return start - size, IgnoredSection
		case '表', '图':
			if p := sc.prevRune(start - size); p == 0 || strings.ContainsRune("见如附详据由从在与和及或(（ 、，,:：|\n", p) {
				return start - size, IgnoredSection
			}
		case '本':
			if strings.HasSuffix(s[:start], "版本") {
				return start - len("版本"), IgnoredVersion
			}
		case '号':
			if strings.HasSuffix(s[:start], "版本号") {
				return start - len("版本号"), IgnoredVersion
			}
		}
	}
	return start, ""
}

// versionTail consumes what may follow the digits of a version at k: a
// pre-release or build suffix such as "-rc1", "-beta.2", "+build.5".
func versionTail(s string, k int) int {
	if k+1 < len(s) && (s[k] == '-' || s[k] == '+') && isAlnum(s[k+1]) {
		e := k + 1
		for e < len(s) && (isAlnum(s[e]) || (s[e] == '.' || s[e] == '-') && e+1 < len(s) && isAlnum(s[e+1])) {
			e++
		}
		// "-rc1" yes, "-5" (a range, 1.2.3-5) no.
		if isAlpha(s[k+1]) || s[k] == '+' {
			return e
		}
	}
	return k
}

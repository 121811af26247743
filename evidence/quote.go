package evidence

import (
	"strings"
	"unicode"
)

// Quote reports whether words, the text of a [[q:K1|words]] marker, appears
// verbatim in hitText, the text of hit K1. Only whitespace is normalised,
// on both sides: every run of white space (spaces, tabs, line breaks,
// no-break spaces) counts as one space, leading and trailing white space
// is ignored, and white space between two CJK characters is dropped, since
// Chinese and Japanese text wrapped across lines has no space where the
// line broke. Case, punctuation, digits and everything else must match
// exactly. An empty (or all-space) quotation never matches.
//
// Quote lives in this leaf package so that the report node, the report
// renderer and the offline verifier apply the identical rule.
func Quote(hitText, words string) bool {
	w := normaliseSpace(words)
	return w != "" && strings.Contains(normaliseSpace(hitText), w)
}

// wide reports characters between which a line break is not a space:
// CJK scripts, CJK punctuation and full-width forms.
func wide(r rune) bool {
	return r >= 0x3000 && r <= 0x303F || r >= 0xFF00 && r <= 0xFFEF ||
		r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
			unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r))
}

func normaliseSpace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	pending := false
	var last rune = -1
	for _, r := range s {
		if unicode.IsSpace(r) {
			pending = true
			continue
		}
		if pending && last >= 0 && !(wide(last) && wide(r)) {
			b.WriteByte(' ')
		}
		pending = false
		b.WriteRune(r)
		last = r
	}
	return b.String()
}

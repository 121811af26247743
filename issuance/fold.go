package issuance

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// foldDigits writes every decimal digit of another script — full-width
// (１２３), Arabic-Indic (١٢٣), Devanagari (१२३), mathematical (𝟏𝟐𝟑) … —
// as its ASCII digit, and drops the invisible characters between two
// digits (a zero-width space, a word joiner, a soft hyphen …), so that a
// figure is read as a reader sees it: a model must not hide an untraced
// number from the checker by writing it in digits the scanner does not
// know, nor split one into figures that each fit a metric. at maps
// each byte offset of the folded text (and its end) to the offset in text
// it comes from; it is nil, and folded is text, when there is nothing to
// fold.
func foldDigits(text string) (folded string, at []int) {
	first := -1
	for i := 0; i < len(text); {
		if text[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if r >= 0x3000 && r < 0xA620 {
			// CJK: no digit and nothing invisible in this range, which
			// is most of a Chinese narrative.
			i += size
			continue
		}
		if _, ok := digitValue(r); ok || invisible(r) {
			first = i
			break
		}
		i += size
	}
	if first < 0 {
		return text, nil
	}
	b := make([]byte, 0, len(text))
	at = make([]int, 0, len(text)+1)
	for i := 0; i < first; i++ {
		b = append(b, text[i])
		at = append(at, i)
	}
	for i := first; i < len(text); {
		if text[i] < utf8.RuneSelf {
			b = append(b, text[i])
			at = append(at, i)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if d, ok := digitValue(r); ok {
			b = append(b, '0'+d)
			at = append(at, i)
		} else if invisible(r) && len(b) > 0 && numberByte(b[len(b)-1]) && digitAfterInvisible(text, i+size) {
			// Nothing is shown inside a number: "4\u200b128" reads
			// 4128, as it looks, and not as the two figures 4 and 128
			// that might each fit a metric.
		} else {
			for k := 0; k < size; k++ {
				b = append(b, text[i+k])
				at = append(at, i+k)
			}
		}
		i += size
	}
	at = append(at, len(text))
	return string(b), at
}

// digitValue is the value of r when it is a decimal digit (Unicode
// category Nd) other than an ASCII one. Unicode lays the digits of every
// script out as runs of ten, zero first, so a digit's value is its
// distance from the start of its range, modulo ten.
func digitValue(r rune) (byte, bool) {
	if r < 0x660 || r == utf8.RuneError || !unicode.Is(unicode.Nd, r) {
		return 0, false
	}
	for _, rg := range unicode.Nd.R16 {
		if r >= rune(rg.Lo) && r <= rune(rg.Hi) {
			return byte((r - rune(rg.Lo)) % 10), true
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if r >= rune(rg.Lo) && r <= rune(rg.Hi) {
			return byte((r - rune(rg.Lo)) % 10), true
		}
	}
	return 0, false
}

// invisible reports whether r is shown as nothing between two digits: a
// format character (Unicode Cf: zero-width space and joiners, word
// joiner, soft hyphen, byte-order mark …) other than a bidirectional
// control (those are refused as a whole, see bidiControl), a variation
// selector or the combining grapheme joiner.
func invisible(r rune) bool {
	switch {
	case r < 0xAD:
		return false
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF, r == 0x34F:
		return true
	}
	return unicode.Is(unicode.Cf, r) && !bidiControl(r)
}

// digitAfterInvisible reports whether a digit (or a separator inside a
// number) follows at i once any further invisible characters are skipped.
func digitAfterInvisible(text string, i int) bool {
	for i < len(text) {
		if numberByte(text[i]) {
			return true
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if _, ok := digitValue(r); ok {
			return true
		}
		if !invisible(r) {
			return false
		}
		i += size
	}
	return false
}

// bidiControl reports whether r is a bidirectional embedding, override or
// isolate (U+202A–U+202E, U+2066–U+2069): they change the order in which
// characters are shown, so a reader may see "821" where "128" is written.
func bidiControl(r rune) bool {
	return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069
}

// firstBidiControl is the offset of the first bidirectional control in
// text, or -1.
func firstBidiControl(text string) int {
	// Every control is encoded E2 80 AA–AE or E2 81 A6–A9: look for the
	// lead byte only, which prose in most scripts rarely has.
	for i := 0; ; {
		k := strings.IndexByte(text[i:], 0xE2)
		if k < 0 {
			return -1
		}
		i += k
		if i+2 < len(text) {
			if b1, b2 := text[i+1], text[i+2]; b1 == 0x80 && b2 >= 0xAA && b2 <= 0xAE || b1 == 0x81 && b2 >= 0xA6 && b2 <= 0xA9 {
				return i
			}
		}
		i++
	}
}

// numberByte: a digit, or a separator that may stand inside a number.
func numberByte(c byte) bool { return isDigit(c) || c == ',' || c == '.' || c == '\'' }

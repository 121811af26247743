package issuance

import (
	"unicode"
	"unicode/utf8"
)

// foldDigits writes every decimal digit of another script — full-width
// (１２３), Arabic-Indic (١٢٣), Devanagari (१२३), mathematical (𝟏𝟐𝟑) … —
// as its ASCII digit, so that a figure a reader sees is read whatever
// digits it is written in: a model must not hide an untraced number from
// the checker by writing it in digits the scanner does not know. at maps
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
		if _, ok := digitValue(r); ok {
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

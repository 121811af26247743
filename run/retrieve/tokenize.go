package retrieve

import (
	"unicode"
	"unicode/utf8"
)

// Tokenising is shared by BM25 and the embedding, by documents and by
// queries, so that a word is the same thing on both sides.
//
// The text is cut into segments: a run of letters, digits and combining
// marks is a word; a run of CJK characters (Han, Hiragana, Katakana,
// Hangul) is a CJK segment; everything else separates. Letters are
// lowercased and full-width ASCII (ＡＢＣ１２３) is folded to ASCII.
// A word segment is one token, stemmed (stem.go); a CJK segment gives its overlapping
// character bigrams (销售额 → 销售, 售额) or, when it is one character
// long, that character. Bigrams are the usual dictionary-free answer to
// Chinese having no spaces: any two-character word in a query matches
// wherever those two characters stand together in a passage.

// isCJK reports the scripts written without spaces between words.
func isCJK(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r))
}

// fold lowercases and maps full-width ASCII forms to ASCII.
func fold(r rune) rune {
	if r >= 0xFF01 && r <= 0xFF5E {
		r -= 0xFEE0
	}
	if r < utf8.RuneSelf {
		if r >= 'A' && r <= 'Z' {
			return r + 32
		}
		return r
	}
	return unicode.ToLower(r)
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)
}

// segments calls fn for every segment of s with its folded runes (the
// slice is reused between calls) and whether it is CJK.
func segments(s string, buf []rune, fn func(seg []rune, cjk bool)) []rune {
	seg := buf[:0]
	cur := 0 // 0 none, 1 word, 2 cjk
	for _, r := range s {
		r = fold(r)
		kind := 0
		if r < utf8.RuneSelf {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
				kind = 1
			}
		} else if isCJK(r) {
			kind = 2
		} else if isWordRune(r) {
			kind = 1
		}
		if kind != cur && len(seg) > 0 {
			fn(seg, cur == 2)
			seg = seg[:0]
		}
		cur = kind
		if kind != 0 {
			seg = append(seg, r)
		}
	}
	if len(seg) > 0 {
		fn(seg, cur == 2)
	}
	return seg
}

// segmentTokens calls fn with the tokens of one segment, as UTF-8 bytes in
// a reused buffer (the callee copies what it keeps); a word is stemmed.
func segmentTokens(seg []rune, cjk bool, st *stemmer, buf []byte, fn func(tok []byte)) []byte {
	if !cjk || len(seg) == 1 {
		buf = buf[:0]
		for _, r := range seg {
			buf = utf8.AppendRune(buf, r)
		}
		if !cjk {
			buf = st.stem(buf)
		}
		fn(buf)
		return buf
	}
	for i := 0; i+1 < len(seg); i++ {
		buf = utf8.AppendRune(buf[:0], seg[i])
		buf = utf8.AppendRune(buf, seg[i+1])
		fn(buf)
	}
	return buf
}

// Tokens returns the search tokens of s, in order, as BM25 sees them
// (words stemmed).
func Tokens(s string) []string {
	var out []string
	var bbuf []byte
	st := newStemmer()
	segments(s, nil, func(seg []rune, cjk bool) {
		bbuf = segmentTokens(seg, cjk, st, bbuf, func(tok []byte) { out = append(out, string(tok)) })
	})
	return out
}

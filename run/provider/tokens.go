package provider

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"
)

// EstimateTokens approximates how many tokens s costs a model: about four
// characters per token for alphabetic scripts, one per character for CJK
// ideographs, kana and hangul. It is used for the mock's usage figures and
// for keeping histories within a token budget, where a stable, cheap
// estimate matters more than matching one vendor's tokenizer.
func EstimateTokens(s string) int {
	cjk, other := 0, 0
	for _, r := range s {
		if isCJK(r) {
			cjk++
		} else {
			other++
		}
	}
	return cjk + (other+3)/4
}

// isCJK reports whether r is written one token per character.
func isCJK(r rune) bool {
	if r < 0x2E80 {
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		(r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFFEF)
}

// chunks splits text into the pieces a streaming model would emit: a word
// with the spaces after it, one CJK character, JSON punctuation, and a
// citation marker "[[…]]" as one piece so that a viewer never shows half a
// marker. Long runs are cut every maxChunk runes. The pieces concatenate to
// text exactly.
func chunks(text string) []string {
	const maxChunk, maxMarker = 16, 400
	var out []string
	start, n := 0, 0
	flush := func(end int) {
		if end > start {
			out = append(out, text[start:end])
		}
		start, n = end, 0
	}
	for i := 0; i < len(text); {
		if text[i] == '[' && i+1 < len(text) && text[i+1] == '[' {
			if j := strings.Index(text[i+2:], "]]"); j >= 0 && j <= maxMarker && !strings.ContainsAny(text[i+2:i+2+j], "\n[") {
				flush(i)
				i += 2 + j + 2
				flush(i)
				continue
			}
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case unicode.IsSpace(r):
			// Trailing spaces belong to the piece before them.
			i += size
			for i < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[i:])
				if !unicode.IsSpace(r2) {
					break
				}
				i += s2
			}
			flush(i)
		case isCJK(r):
			flush(i)
			i += size
			flush(i)
		case r == '{' || r == '[' || r == '}' || r == ']':
			flush(i)
			i += size
			flush(i)
		case r == ',' || r == ':':
			// JSON has no space after these; prose keeps the space with
			// the word before it.
			i += size
			if next, _ := utf8.DecodeRuneInString(text[i:]); i < len(text) && !unicode.IsSpace(next) {
				flush(i)
			}
		default:
			i += size
			n++
			if n >= maxChunk {
				flush(i)
			}
		}
	}
	flush(len(text))
	return out
}

// stream delivers text through onToken piece by piece, stopping with
// ctx.Err() when ctx is cancelled.
func stream(ctx context.Context, text string, onToken func(string)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if onToken == nil {
		return nil
	}
	for _, c := range chunks(text) {
		if err := ctx.Err(); err != nil {
			return err
		}
		onToken(c)
	}
	return nil
}

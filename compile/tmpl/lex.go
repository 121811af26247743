package tmpl

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is one lexeme inside `{{ … }}`. Offsets are bytes of the whole
// template.
type token struct {
	kind byte // 'i' name, 'n' number, 's' string, 'x' anything else, or the punctuation itself: . [ ] | ( ) ,
	text string
	val  any // the value of a number or string literal
	off  int
	end  int
}

// findClose returns the offset of the `}}` closing a tag whose content
// starts at from, skipping quoted strings. quote is the offset of a quote
// that is never closed (or -1).
func findClose(src string, from int) (close, quote int) {
	i := from
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(src) && src[j] != c {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(src) {
				// Unclosed string: look for the tag end without it so that
				// parsing can go on after this tag.
				k := strings.Index(src[from:], "}}")
				if k < 0 {
					return -1, i
				}
				return from + k, i
			}
			i = j + 1
		case c == '}' && i+1 < len(src) && src[i+1] == '}':
			return i, -1
		default:
			i++
		}
	}
	return -1, -1
}

// lexTag splits the content of one tag, src[from:to], into tokens.
func lexTag(src string, from, to int) []token {
	var out []token
	i := from
	for i < to {
		r, size := utf8.DecodeRuneInString(src[i:to])
		switch {
		case unicode.IsSpace(r):
			i += size
		case r == '_' || unicode.IsLetter(r):
			j := i
			for j < to {
				r, s := utf8.DecodeRuneInString(src[j:to])
				if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
					break
				}
				j += s
			}
			out = append(out, token{kind: 'i', text: src[i:j], off: i, end: j})
			i = j
		case r >= '0' && r <= '9' || (r == '-' && i+1 < to && src[i+1] >= '0' && src[i+1] <= '9'):
			j := i + 1
			for j < to && strings.IndexByte("0123456789.eE_", src[j]) >= 0 ||
				(j < to && (src[j] == '+' || src[j] == '-') && (src[j-1] == 'e' || src[j-1] == 'E')) {
				j++
			}
			t := token{kind: 'n', text: src[i:j], off: i, end: j}
			if n, err := strconv.ParseInt(t.text, 10, 64); err == nil {
				t.val = int(n)
			} else if f, err := strconv.ParseFloat(t.text, 64); err == nil {
				t.val = f
			} else {
				t.kind = 'x'
			}
			out = append(out, t)
			i = j
		case r == '\'' || r == '"':
			s, j, ok := unquote(src, i, to)
			if !ok {
				out = append(out, token{kind: 'x', text: src[i:to], off: i, end: to})
				return out
			}
			out = append(out, token{kind: 's', text: src[i:j], val: s, off: i, end: j})
			i = j
		case strings.ContainsRune(".[]|(),", r):
			out = append(out, token{kind: byte(r), text: string(r), off: i, end: i + 1})
			i++
		default:
			// Operators and other characters: gather a run for the message.
			j := i + size
			for j < to {
				r, s := utf8.DecodeRuneInString(src[j:to])
				if unicode.IsSpace(r) || unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(".[]|(),'\"_", r) {
					break
				}
				j += s
			}
			out = append(out, token{kind: 'x', text: src[i:j], off: i, end: j})
			i = j
		}
	}
	return out
}

// unquote reads the string literal starting at src[i] (a quote) and
// returns its value and the offset after it.
func unquote(src string, i, to int) (string, int, bool) {
	q := src[i]
	var b strings.Builder
	j := i + 1
	for j < to {
		c := src[j]
		switch {
		case c == q:
			return b.String(), j + 1, true
		case c == '\\' && j+1 < to:
			switch e := src[j+1]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			default:
				b.WriteByte(e)
			}
			j += 2
		default:
			b.WriteByte(c)
			j++
		}
	}
	return "", to, false
}

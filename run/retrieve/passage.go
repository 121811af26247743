package retrieve

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// span is a byte range [start, end) of a document's text.
type span struct {
	start, end int
	heading    bool
}

// DefaultMaxPassageChars is the passage size cap in characters (runes): a
// few paragraphs, small enough to quote and to fit many hits in a prompt.
const DefaultMaxPassageChars = 800

// blocks cuts text into paragraphs: runs of lines separated by blank
// lines. A Markdown ATX heading line (up to three spaces, one to six '#',
// then a space or the end of the line) is a block of its own. Inside a
// fenced code block (``` or ~~~) blank lines and '#' lines do not cut.
// Each block is trimmed of surrounding whitespace.
func blocks(text string) []span {
	var out []span
	start := -1 // start of the current block, -1 none
	end := 0
	fence := ""
	closeBlock := func() {
		if start >= 0 {
			out = append(out, trimSpan(text, span{start: start, end: end}))
			start = -1
		}
	}
	for pos := 0; pos < len(text); {
		nl := strings.IndexByte(text[pos:], '\n')
		lineEnd := len(text)
		next := len(text)
		if nl >= 0 {
			lineEnd = pos + nl
			next = lineEnd + 1
		}
		line := text[pos:lineEnd]
		trimmed := strings.TrimLeft(line, " ")
		indent := len(line) - len(trimmed)
		switch {
		case fence != "":
			if indent <= 3 && strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			end = lineEnd
		case indent <= 3 && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")):
			fence = trimmed[:3]
			if start < 0 {
				start = pos
			}
			end = lineEnd
		case strings.TrimSpace(line) == "":
			closeBlock()
		case indent <= 3 && isHeading(trimmed):
			closeBlock()
			s := trimSpan(text, span{start: pos, end: lineEnd})
			s.heading = true
			out = append(out, s)
		default:
			if start < 0 {
				start = pos
			}
			end = lineEnd
		}
		pos = next
	}
	closeBlock()
	return out
}

func isHeading(line string) bool {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	return n >= 1 && n <= 6 && (n == len(line) || line[n] == ' ' || line[n] == '\t')
}

func trimSpan(text string, s span) span {
	for s.start < s.end {
		r, n := utf8.DecodeRuneInString(text[s.start:s.end])
		if !unicode.IsSpace(r) {
			break
		}
		s.start += n
	}
	for s.end > s.start {
		r, n := utf8.DecodeLastRuneInString(text[s.start:s.end])
		if !unicode.IsSpace(r) {
			break
		}
		s.end -= n
	}
	return s
}

// passages packs consecutive blocks into passages of at most maxChars
// runes. A heading starts a new passage (consecutive headings stay
// together), so a passage never runs across the start of a section and
// carries its section title. A block longer than maxChars is cut on its
// own: at the last sentence end (. ! ? ; 。！？；) in the second half of
// the window, else at the last whitespace there, else at exactly maxChars
// runes. Passages are trimmed, never empty, never overlap, and appear in
// text order; their offsets depend only on the text and maxChars.
func passages(text string, maxChars int) []span {
	var out []span
	cur := span{start: -1}
	curChars := 0
	headOnly := false
	flush := func() {
		if cur.start >= 0 {
			out = append(out, cur)
			cur = span{start: -1}
		}
	}
	for _, b := range blocks(text) {
		if b.start >= b.end {
			continue
		}
		n := utf8.RuneCountInString(text[b.start:b.end])
		if n > maxChars {
			flush()
			out = append(out, cutLong(text, b, maxChars)...)
			continue
		}
		if cur.start >= 0 {
			gap := utf8.RuneCountInString(text[cur.end:b.start])
			if (b.heading && !headOnly) || curChars+gap+n > maxChars {
				flush()
			}
		}
		if cur.start < 0 {
			cur = span{start: b.start, end: b.end}
			curChars = n
			headOnly = b.heading
			continue
		}
		curChars += utf8.RuneCountInString(text[cur.end:b.start]) + n
		cur.end = b.end
		headOnly = headOnly && b.heading
	}
	flush()
	return out
}

func isSentenceEnd(r rune) bool {
	switch r {
	case '.', '!', '?', ';', '。', '！', '？', '；':
		return true
	}
	return false
}

// cutLong cuts one oversized block into trimmed pieces of at most
// maxChars runes.
func cutLong(text string, b span, maxChars int) []span {
	var out []span
	pos := b.start
	for pos < b.end {
		if pos = trimSpan(text, span{start: pos, end: b.end}).start; pos >= b.end {
			break
		}
		// limit: byte offset after maxChars runes; half: after maxChars/2.
		limit, half, k := pos, pos, 0
		for limit < b.end && k < maxChars {
			_, n := utf8.DecodeRuneInString(text[limit:b.end])
			limit += n
			k++
			if k == (maxChars+1)/2 {
				half = limit
			}
		}
		cut := limit
		if limit < b.end {
			sentence, space := -1, -1
			for i := half; i < limit; {
				r, n := utf8.DecodeRuneInString(text[i:limit])
				i += n
				if i >= limit {
					break
				}
				nr, _ := utf8.DecodeRuneInString(text[i:b.end])
				if isSentenceEnd(r) && (unicode.IsSpace(nr) || r >= 0x3000) {
					sentence = i
				}
				if unicode.IsSpace(nr) {
					space = i
				}
			}
			switch {
			case sentence > pos:
				cut = sentence
			case space > pos:
				cut = space
			}
		}
		if s := trimSpan(text, span{start: pos, end: cut}); s.start < s.end {
			out = append(out, s)
		}
		pos = cut
	}
	return out
}

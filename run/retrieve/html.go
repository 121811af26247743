package retrieve

import (
	"html"
	"strings"
	"unicode"
	"unicode/utf8"
)

// StripHTML returns the visible text of an HTML document: tags, comments,
// doctype and processing instructions are removed; script, style, template
// and noscript elements are removed with their content; character
// references (&amp;, &#233;, &nbsp; …) are decoded; whitespace is collapsed
// as a browser would, except inside <pre>; block elements (p, h1–h6, li,
// tr, div, br, …) become line breaks, paragraph-like ones blank lines, so
// that passage splitting sees the document's structure.
//
// It is a small tolerant scanner rather than a full HTML5 parser: the
// retrieve node only needs the text, and a scanner that never fails and
// never allocates a tree keeps loading linear in the file size. Malformed
// markup degrades to text, never to an error.
func StripHTML(src string) string {
	var w textWriter
	pre := 0
	i := 0
	textStart := 0
	flush := func(end int) {
		if end > textStart {
			w.text(html.UnescapeString(src[textStart:end]), pre > 0)
		}
	}
	for i < len(src) {
		if src[i] != '<' || i+1 >= len(src) {
			i++
			continue
		}
		c := src[i+1]
		switch {
		case strings.HasPrefix(src[i:], "<!--"):
			flush(i)
			i = skipPast(src, i+4, "-->")
		case strings.HasPrefix(src[i:], "<![CDATA["):
			flush(i)
			end := strings.Index(src[i+9:], "]]>")
			if end < 0 {
				w.text(src[i+9:], pre > 0)
				i = len(src)
			} else {
				w.text(src[i+9:i+9+end], pre > 0)
				i += 9 + end + 3
			}
		case c == '!' || c == '?':
			flush(i)
			i = skipPast(src, i+2, ">")
		case c == '/' && i+2 < len(src) && isASCIILetter(src[i+2]):
			flush(i)
			name, end := tagName(src, i+2)
			i = skipTag(src, end)
			if name == "pre" && pre > 0 {
				pre--
			}
			w.brk(blockBreak(name))
		case isASCIILetter(c):
			flush(i)
			name, end := tagName(src, i+1)
			i = skipTag(src, end)
			switch name {
			case "script", "style", "template", "noscript":
				i = skipRawText(src, i, name)
			case "title", "textarea":
				// RCDATA: text with references, but no tags inside.
				e := closingTag(src, i, name)
				w.brk(2)
				w.text(html.UnescapeString(src[i:e]), false)
				w.brk(2)
				i = skipTag(src, min(e+2+len(name), len(src)))
				if e == len(src) {
					i = len(src)
				}
			case "pre":
				pre++
				w.brk(2)
			default:
				w.brk(blockBreak(name))
			}
		default:
			i++ // a literal '<' in text
			continue
		}
		textStart = i
	}
	flush(len(src))
	return w.String()
}

// blockBreak is the break an element's start or end tag stands for:
// 2 a blank line (paragraph-like), 1 a line break, -1 a space (table
// cells), 0 nothing (inline elements).
func blockBreak(name string) int {
	switch name {
	case "p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "table", "ul", "ol", "dl",
		"section", "article", "header", "footer", "main", "nav", "aside", "figure", "hr", "address",
		"details", "form", "fieldset", "body", "html", "head":
		return 2
	case "br", "li", "tr", "div", "dt", "dd", "caption", "figcaption", "summary", "option", "thead", "tbody", "tfoot":
		return 1
	case "td", "th":
		return -1
	}
	return 0
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// tagName reads a tag name starting at i, lowercased, and returns the
// index just after it.
func tagName(src string, i int) (string, int) {
	j := i
	for j < len(src) {
		c := src[j]
		if isASCIILetter(c) || c >= '0' && c <= '9' || c == '-' || c == ':' || c == '_' {
			j++
			continue
		}
		break
	}
	return strings.ToLower(src[i:j]), j
}

// skipTag skips the attributes of a tag up to and including its '>'.
// A quote starts a quoted value only after '=', as in browsers, so an
// apostrophe in an unquoted value does not swallow the document.
func skipTag(src string, i int) int {
	afterEq := false
	for i < len(src) {
		c := src[i]
		switch {
		case c == '>':
			return i + 1
		case c == '=':
			afterEq = true
			i++
			continue
		case (c == '"' || c == '\'') && afterEq:
			end := strings.IndexByte(src[i+1:], c)
			if end < 0 {
				return len(src)
			}
			i += end + 2
		case c == ' ' || c == '\t' || c == '\n' || c == '\f':
			i++
			continue
		default:
			i++
		}
		afterEq = false
	}
	return len(src)
}

func skipPast(src string, i int, end string) int {
	if i > len(src) {
		return len(src)
	}
	k := strings.Index(src[i:], end)
	if k < 0 {
		return len(src)
	}
	return i + k + len(end)
}

// closingTag finds "</name" (any case) followed by whitespace, '/' or '>'
// at or after i and returns its index, or len(src).
func closingTag(src string, i int, name string) int {
	for i < len(src) {
		k := strings.Index(src[i:], "</")
		if k < 0 {
			return len(src)
		}
		at := i + k
		e := at + 2 + len(name)
		if e <= len(src) && asciiEqualFold(src[at+2:e], name) &&
			(e == len(src) || strings.IndexByte(" \t\n\f\r/>", src[e]) >= 0) {
			return at
		}
		i = at + 2
	}
	return len(src)
}

// asciiEqualFold compares ignoring ASCII case only: HTML tag names are
// ASCII, and Unicode folding would let "</ſcript" (long s) close a script.
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// skipRawText skips the content and the end tag of a raw-text element.
func skipRawText(src string, i int, name string) int {
	e := closingTag(src, i, name)
	if e == len(src) {
		return e
	}
	return skipTag(src, e+2+len(name))
}

// textWriter collapses whitespace and merges breaks so that the output
// has no leading or trailing blank space and at most one blank line in a
// row.
type textWriter struct {
	b     strings.Builder
	br    int  // pending break: 1 newline, 2 blank line
	space bool // pending space
}

func (w *textWriter) brk(n int) {
	if n < 0 {
		w.space = true
		return
	}
	if n > w.br {
		w.br = n
	}
}

func (w *textWriter) text(s string, pre bool) {
	for _, r := range s {
		if r == utf8.RuneError {
			r = '\uFFFD'
		}
		if pre {
			if r == '\n' {
				w.emitPending()
				w.b.WriteByte('\n')
				continue
			}
		} else if unicode.IsSpace(r) {
			w.space = true
			continue
		}
		w.emitPending()
		w.b.WriteRune(r)
	}
}

func (w *textWriter) emitPending() {
	if w.b.Len() > 0 {
		switch {
		case w.br > 0:
			w.b.WriteString("\n\n"[:w.br])
		case w.space:
			w.b.WriteByte(' ')
		}
	}
	w.br, w.space = 0, false
}

func (w *textWriter) String() string { return strings.TrimRight(w.b.String(), " \t\n") }

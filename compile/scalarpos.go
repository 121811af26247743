package compile

import (
	"strconv"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/agentlab/agentlab/diag"
)

// posIn returns the file position of byte offset off inside the decoded
// value of scalar v. It walks the scalar's source text alongside its value,
// undoing quoting, escapes, block indentation and line folding. Plain,
// quoted and literal scalars map exactly; folded scalars map on a best
// effort basis (a folded line break may stand for several source bytes).
func (s *source) posIn(v *V, off int) diag.Pos {
	if v == nil || v.Line == 0 {
		return diag.Pos{Line: 1, Col: 1}
	}
	start := s.offsetOf(int(v.Line), int(v.Col))
	if off <= 0 {
		if v.Style&(yaml.LiteralStyle|yaml.FoldedStyle|yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 {
			return v.Pos()
		}
	}
	if off > len(v.Str) {
		off = len(v.Str)
	}
	return s.posOf(s.walkScalar(v, start, off))
}

// walkScalar returns the byte offset in the file of decoded byte off.
func (s *source) walkScalar(v *V, start, off int) int {
	src, val := s.src, v.Str
	p, i := start, 0
	block := v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0
	indent := 0
	switch {
	case block:
		// Content starts on the line after the indicator.
		for p < len(src) && src[p] != '\n' {
			p++
		}
		if p < len(src) {
			p++
		}
		indent = blockIndent(src, p)
		p = skipSpaces(src, p, indent)
	case v.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0:
		if p < len(src) && (src[p] == '"' || src[p] == '\'') {
			p++
		}
	}
	dq := v.Style&yaml.DoubleQuotedStyle != 0
	sq := v.Style&yaml.SingleQuotedStyle != 0
	for i < off && p < len(src) {
		c := val[i]
		switch {
		case dq && src[p] == '\\':
			sw, dw := escapeWidth(src[p:])
			if dw == 0 { // escaped line break: continuation
				p += sw
				p = skipBlank(src, p)
				continue
			}
			p += sw
			i += dw
			continue
		case sq && src[p] == '\'' && p+1 < len(src) && src[p+1] == '\'' && c == '\'':
			p += 2
			i++
			continue
		case src[p] == c:
			p++
			i++
			if c == '\n' && block {
				p = skipSpaces(src, p, indent)
			}
			continue
		case src[p] == '\r':
			p++
			continue
		case src[p] == '\n':
			// A folded line break: the newline and the next line's
			// indentation stand for one space (or nothing, before an empty line).
			p++
			if block {
				p = skipSpaces(src, p, indent)
			} else {
				p = skipBlank(src, p)
			}
			if c == ' ' || c == '\n' {
				i++
			}
			continue
		case (src[p] == ' ' || src[p] == '\t') && !block:
			// Trailing spaces before a folded line break are dropped.
			p++
			continue
		}
		// Out of step: fall back to counting from the start.
		return start + off
	}
	return p
}

// blockIndent is the indentation of the first non-empty line at p.
func blockIndent(src string, p int) int {
	for p < len(src) {
		n := 0
		for p+n < len(src) && src[p+n] == ' ' {
			n++
		}
		if p+n < len(src) && src[p+n] != '\n' && src[p+n] != '\r' {
			return n
		}
		for p < len(src) && src[p] != '\n' {
			p++
		}
		p++
	}
	return 0
}

func skipSpaces(src string, p, n int) int {
	for k := 0; k < n && p < len(src) && src[p] == ' '; k++ {
		p++
	}
	return p
}

func skipBlank(src string, p int) int {
	for p < len(src) && (src[p] == ' ' || src[p] == '\t' || src[p] == '\r' || src[p] == '\n') {
		p++
	}
	return p
}

// escapeWidth returns how many source bytes a double-quoted escape takes
// and how many bytes it decodes to (0 for an escaped line break).
func escapeWidth(b string) (src, dec int) {
	if len(b) < 2 {
		return len(b), 1
	}
	hex := func(n int) (int, int) {
		if len(b) < 2+n {
			return len(b), 1
		}
		r, err := strconv.ParseUint(b[2:2+n], 16, 32)
		if err != nil {
			return 2, 1
		}
		if n == 2 {
			if r < 0x80 {
				return 4, 1
			}
			return 4, 2
		}
		w := utf8.RuneLen(rune(r))
		if w < 0 {
			w = 3
		}
		return 2 + n, w
	}
	switch b[1] {
	case 'x':
		return hex(2)
	case 'u':
		return hex(4)
	case 'U':
		return hex(8)
	case 'N', '_':
		return 2, 2
	case 'L', 'P':
		return 2, 3
	case '\n':
		return 2, 0
	case '\r':
		if len(b) > 2 && b[2] == '\n' {
			return 3, 0
		}
		return 2, 0
	}
	return 2, 1
}

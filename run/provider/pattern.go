package provider

import (
	"regexp/syntax"
	"strings"
)

// maxPatternLen bounds strings generated from a pattern, so that a pattern
// like "a{1000}b{1000}" cannot make the mock produce megabytes.
const maxPatternLen = 2000

// genPattern returns a string that the regular expression pat matches, or
// false when pat cannot be parsed (JSON Schema patterns are ECMA-262; the
// Go syntax covers the common subset) or the generated string does not
// match (a word boundary the walk could not honour, say). minLen and
// maxLen (-1: none) are tried for over a few attempts.
func genPattern(r *rng, pat string, minLen, maxLen int) (string, bool) {
	re, err := syntax.Parse(pat, syntax.Perl)
	if err != nil {
		return "", false
	}
	check, err := compileCachedRegexp(pat)
	if err != nil {
		return "", false
	}
	var fallback string
	found := false
	// grow raises the repetition counts after a too-short result and
	// lowers them after a too-long one.
	grow := 0
	for attempt := 0; attempt < 16; attempt++ {
		var b strings.Builder
		if !walkPattern(r, re, &b, grow) {
			continue
		}
		s := b.String()
		if !check.MatchString(s) {
			continue
		}
		n := len([]rune(s))
		switch {
		case n < minLen:
			grow++
		case maxLen >= 0 && n > maxLen:
			grow = max(0, grow-1)
		default:
			return s, true
		}
		if !found {
			fallback, found = s, true
		}
	}
	return fallback, found
}

// walkPattern appends one string matched by re to b.
func walkPattern(r *rng, re *syntax.Regexp, b *strings.Builder, grow int) bool {
	if b.Len() > maxPatternLen {
		return false
	}
	switch re.Op {
	case syntax.OpNoMatch:
		return false
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
		return true
	case syntax.OpCharClass:
		c, ok := classRune(r, re.Rune)
		if ok {
			b.WriteRune(c)
		}
		return ok
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		b.WriteByte(byte('a' + r.intn(26)))
		return true
	case syntax.OpCapture:
		return walkPattern(r, re.Sub[0], b, grow)
	case syntax.OpStar:
		return repeatPattern(r, re.Sub[0], b, grow, grow+2, grow)
	case syntax.OpPlus:
		return repeatPattern(r, re.Sub[0], b, max(1, grow), grow+3, grow)
	case syntax.OpQuest:
		return repeatPattern(r, re.Sub[0], b, min(grow, 1), 1, grow)
	case syntax.OpRepeat:
		hi := re.Max
		if hi < 0 || hi > re.Min+grow+3 {
			hi = re.Min + grow + 3
		}
		return repeatPattern(r, re.Sub[0], b, min(re.Min+grow, hi), hi, grow)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !walkPattern(r, s, b, grow) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		return walkPattern(r, re.Sub[r.intn(len(re.Sub))], b, grow)
	}
	return false
}

func repeatPattern(r *rng, re *syntax.Regexp, b *strings.Builder, lo, hi, grow int) bool {
	n := r.between(lo, hi)
	for i := 0; i < n; i++ {
		if !walkPattern(r, re, b, grow) {
			return false
		}
	}
	return true
}

// classRune picks a rune from a character class given as inclusive
// [lo, hi] pairs, preferring letters and digits, then printable ASCII, so
// that generated values stay readable.
func classRune(r *rng, ranges []rune) (rune, bool) {
	if len(ranges) < 2 {
		return 0, false
	}
	for _, pref := range [][]rune{{'0', '9', 'A', 'Z', 'a', 'z'}, {0x21, 0x7e}, {0x20, 0xD7FF}} {
		var cands []rune // intersected pairs
		for i := 0; i+1 < len(ranges); i += 2 {
			for j := 0; j+1 < len(pref); j += 2 {
				lo, hi := max(ranges[i], pref[j]), min(ranges[i+1], pref[j+1])
				if lo <= hi {
					cands = append(cands, lo, hi)
				}
			}
		}
		if len(cands) == 0 {
			continue
		}
		k := r.intn(len(cands) / 2)
		lo, hi := cands[2*k], cands[2*k+1]
		return lo + rune(r.intn(int(hi-lo)+1)), true
	}
	return ranges[0], true
}

package issuance

import (
	"math"
	"strings"
	"unicode/utf8"
)

// Read finds every number in text, in order, without matching it to any
// metric. It never fails: text that is not valid UTF-8 is read byte by byte
// where it is broken (Check reports such text as not fully checked).
func Read(text string) []Number {
	// Narratives carry a number every few dozen bytes (a Markdown report
	// with tables and lists one every 30 or so); sizing for that (up to a
	// bound, so a huge text does not reserve memory it may not need)
	// avoids most of the copying as the list grows.
	folded, at := foldDigits(text)
	sc := scanner{s: folded, out: make([]Number, 0, min(len(text)/24, 1<<16)+4)}
	sc.run()
	if at != nil {
		// Offsets and texts are those of the text as written.
		for k := range sc.out {
			n := &sc.out[k]
			n.Start, n.End = at[n.Start], at[n.End]
			n.Text = text[n.Start:n.End]
		}
	}
	return sc.out
}

// maxMarker bounds how far a citation marker may reach, so that a stray
// "[[" cannot hide the rest of a narrative from the checker.
const maxMarker = 1024

// noClose marks that no "]]" is left after the current position.
const noClose = -1 << 62

type scanner struct {
	s   string
	out []Number
	// arenas: one allocation per chunk instead of one per pointer field.
	floats    []float64
	intervals [][2]float64
	strs      []string
	// nextClose is the offset of the next "]]" (noClose when there is
	// none left; 0 before the first search).
	nextClose int
	// numStart is where the number being read begins (its sign included).
	numStart int
	// tbl is the Markdown table the current line belongs to, if any.
	tbl table
	// inHeading: the current line is a Markdown heading, where a bare
	// year is a date ("# Energy use, 2026").
	inHeading bool
}

func (sc *scanner) run() {
	s := sc.s
	i := sc.lineStart(0)
	for i < len(s) {
		c := s[i]
		at := i
		switch {
		case c >= '0' && c <= '9':
			i = sc.digits(i, i)
		case c == '\n':
			i = sc.lineStart(i + 1)
		case c == '[':
			if i+1 < len(s) && s[i+1] == '[' {
				i = sc.marker(i)
			} else {
				i = sc.reference(i)
			}
		case c == '-' || c == '+':
			if sc.signStart(i, 1) {
				i = sc.digits(i, i+1)
			} else {
				i++
			}
		case c == '.':
			if i+1 < len(s) && isDigit(s[i+1]) && !isAlnum(sc.prevByte(i)) {
				i = sc.digits(i, i)
			} else {
				i++
			}
		case c == '#':
			if i+1 < len(s) && isDigit(s[i+1]) {
				j := skipDigits(s, i+1)
				sc.ignore(i, j, IgnoredOrdinal)
				i = j
			} else {
				i++
			}
		case isAlpha(c):
			i = sc.word(i)
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == '−' || r == '－': // minus sign, full-width hyphen-minus
				if sc.signStart(i, size) {
					i = sc.digits(i, i+size)
				} else {
					i += size
				}
			case isZhNumeralStart(r):
				i = sc.zh(i, r, size)
			case r == '¹' || r == '²' || r == '³' || r == '⁰' || r >= '⁴' && r <= '⁹':
				i = sc.superscript(i)
			default:
				i += size
			}
		}
		if i <= at {
			// Every path consumes at least one byte; this keeps the scan
			// linear even if a rule is later changed carelessly.
			_, size := utf8.DecodeRuneInString(s[at:])
			i = at + size
		}
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isAlnum(c byte) bool { return isDigit(c) || isAlpha(c) }

func skipDigits(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

func skipAlnum(s string, i int) int {
	for i < len(s) && isAlnum(s[i]) {
		i++
	}
	return i
}

func (sc *scanner) prevByte(i int) byte {
	if i == 0 {
		return ' '
	}
	return sc.s[i-1]
}

// prevRune is the rune that ends right before offset i (0 at the start).
func (sc *scanner) prevRune(i int) rune {
	if i == 0 {
		return 0
	}
	if c := sc.s[i-1]; c < utf8.RuneSelf {
		return rune(c)
	}
	r, _ := utf8.DecodeLastRuneInString(sc.s[:i])
	return r
}

// signStart reports whether the sign of width w at i starts a signed
// number: a digit follows and no letter or digit precedes (3-5 is a range,
// COVID-19 a name).
func (sc *scanner) signStart(i, w int) bool {
	s := sc.s
	j := i + w
	if j >= len(s) {
		return false
	}
	if !isDigit(s[j]) && !(s[j] == '.' && j+1 < len(s) && isDigit(s[j+1])) {
		return false
	}
	p := sc.prevByte(i)
	return !isAlnum(p) && p != '.' && p != '-' && p != '_'
}

// marker consumes a citation marker [[…]]: everything up to the first "]]"
// within maxMarker bytes. A "[[" without a close is read as ordinary text.
// The offset of the next "]]" is cached, so a text full of stray "[[" is
// still read in linear time.
func (sc *scanner) marker(i int) int {
	s := sc.s
	if sc.nextClose < i+2 {
		if sc.nextClose == noClose {
			return i + 2
		}
		k := strings.Index(s[i+2:], "]]")
		if k < 0 {
			sc.nextClose = noClose
			return i + 2
		}
		sc.nextClose = i + 2 + k
	}
	if sc.nextClose-(i+2) > maxMarker {
		return i + 2
	}
	j := sc.nextClose + 2
	sc.ignore(i, j, IgnoredMarker)
	return j
}

// --- emitting ---------------------------------------------------------------

func (sc *scanner) newFloat(v float64) *float64 {
	if len(sc.floats) == cap(sc.floats) {
		sc.floats = make([]float64, 0, 128)
	}
	sc.floats = append(sc.floats, v)
	return &sc.floats[len(sc.floats)-1]
}

func (sc *scanner) newString(v string) *string {
	if len(sc.strs) == cap(sc.strs) {
		sc.strs = make([]string, 0, 64)
	}
	sc.strs = append(sc.strs, v)
	return &sc.strs[len(sc.strs)-1]
}

func (sc *scanner) newInterval(v [2]float64) *[2]float64 {
	if len(sc.intervals) == cap(sc.intervals) {
		sc.intervals = make([][2]float64, 0, 32)
	}
	sc.intervals = append(sc.intervals, v)
	return &sc.intervals[len(sc.intervals)-1]
}

// ignore records s[start:end] as a number that is not a quantity.
func (sc *scanner) ignore(start, end int, why string) {
	sc.add(Number{Text: sc.s[start:end], Start: start, End: end, Ignored: sc.newString(why)})
}

// emit records s[start:end] as the quantity q.
func (sc *scanner) emit(start, end int, q *qty) {
	n := Number{Text: sc.s[start:end], Start: start, End: end, Signed: q.signed, Per: uint16(q.per)}
	// A value too large for a float64 (a run of hundreds of digits) is
	// kept without a value: it is reported, and can never be traced.
	if q.intervalForm && !q.fraction {
		if iv := q.interval(); finite(iv[0]) && finite(iv[1]) {
			n.Interval = sc.newInterval(iv)
		}
	} else if v, tol := q.value(), q.tolerance(); finite(v) && finite(tol) {
		n.Value = sc.newFloat(v)
		n.Tolerance = tol
	}
	sc.add(n)
}

// add appends n, doubling the list when it is full: append grows large
// slices by a quarter at a time, which copies a dense narrative's list
// many times over.
func (sc *scanner) add(n Number) {
	// A number's text may reach back over the words before it (a hedge, a
	// currency, a version's name); it never reaches into the number
	// before it, whose unit suffix those letters may be ("0pp.0").
	if k := len(sc.out); k > 0 && n.Start < sc.out[k-1].End {
		n.Start = sc.out[k-1].End
		if n.Start >= n.End {
			return
		}
		n.Text = sc.s[n.Start:n.End]
	}
	if len(sc.out) == cap(sc.out) {
		grown := make([]Number, len(sc.out), 2*cap(sc.out)+8)
		copy(grown, sc.out)
		sc.out = grown
	}
	sc.out = append(sc.out, n)
}

// lastIgnoredEndsNear reports whether the previous number was a date or a
// quarter ending just before i (separated by at most ", "), so that the
// year in "Q3 2026" or "H1, 2026" is read as part of a date.
func (sc *scanner) lastIgnoredEndsNear(i int) bool {
	if len(sc.out) == 0 {
		return false
	}
	last := &sc.out[len(sc.out)-1]
	if last.Ignored == nil || (*last.Ignored != IgnoredDate && *last.Ignored != IgnoredQuarter) {
		return false
	}
	gap := sc.s[last.End:i]
	return len(gap) <= 2 && strings.Trim(gap, " ,") == ""
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

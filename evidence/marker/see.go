package marker

import (
	"strings"
	"unicode/utf8"
)

// closers are the characters before which a writer never leaves a space:
// ASCII and CJK (full-width) sentence punctuation and a closing
// parenthesis.
const closers = ".,;:!?)。，；：！？"

// TrimSee drops the white space a see marker would strand once it is
// removed. A see marker is not rendered (docs/evidence.md), so in "GMV rose
// [[see:m:gmv]]." the space before the marker would end up before the
// full stop ("GMV rose ."), and in "rose [[see:Q1]] sharply" two spaces
// would stand between the words. When what follows a see marker —
// skipping see markers written right after it — is a closer (see closers),
// white space (a space, a tab or a line end) or the end of the text, the
// spaces and tabs that end the text segment right before the marker are
// dropped; a see marker between words therefore leaves exactly the one
// space after it.
//
// The rule is a function of the source bytes only, so that every filler
// agrees: the engine's filled text, the HTML report (package
// evidence/render) and the bundle verifier's check that the parts of a
// report cover its source (verify/assets/verify.js, seeGapOK). A trimmed
// segment keeps its Start; its text ends earlier. Segments left empty are
// removed. segs is not modified.
func TrimSee(segs []Segment) []Segment {
	out := append([]Segment(nil), segs...)
	for i := range out {
		if !isSee(out[i]) || i == 0 || out[i-1].Marker != nil {
			continue
		}
		if closesAfter(segs, i) {
			out[i-1].Text = strings.TrimRight(out[i-1].Text, " \t")
		}
	}
	kept := out[:0]
	for _, sg := range out {
		if sg.Marker != nil || sg.Text != "" {
			kept = append(kept, sg)
		}
	}
	return kept
}

// closesAfter reports whether what follows the see marker segs[i], past
// the see markers written right after it, lets the space before it go.
func closesAfter(segs []Segment, i int) bool {
	j := i + 1
	for j < len(segs) && isSee(segs[j]) {
		j++
	}
	if j == len(segs) {
		return true // the end of the text
	}
	if segs[j].Marker != nil {
		return false // a rendered marker: the space separates it
	}
	r, _ := utf8.DecodeRuneInString(segs[j].Text)
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || strings.ContainsRune(closers, r)
}

func isSee(sg Segment) bool { return sg.Marker != nil && sg.Marker.Kind == See }

package diag

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// EditDistance is the number of single-rune insertions, deletions,
// substitutions and swaps of two neighbours that turn a into b (optimal
// string alignment). A swap counts as one edit because "agnet" for "agent"
// is the commonest typo of all. The comparison is case-sensitive; Closest
// folds case itself.
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	pp := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], pp[j-2]+1)
			}
		}
		pp, prev, cur = prev, cur, pp
	}
	return prev[len(rb)]
}

// MaxEdits is how many edits a name may be away from a candidate and still
// be taken for a typo of it: a third of its length, at most three. Names
// shorter than three runes only match up to case, since one edit turns
// any two-letter name into almost any other.
func MaxEdits(name string) int {
	return min(3, utf8.RuneCountInString(name)/3)
}

// Closest returns the candidate nearest to name when it is within
// MaxEdits(name) edits, ignoring case. See ClosestWithin.
func Closest(name string, candidates []string) (string, bool) {
	return ClosestWithin(name, candidates, MaxEdits(name))
}

// ClosestWithin returns the candidate with the smallest case-insensitive
// EditDistance to name, if that distance is at most maxEdits. A candidate
// equal to name (distance 0) is a match like any other; callers that look
// up unknown names never pass it. Ties go to the alphabetically first
// candidate so that messages do not depend on the order of a map or list.
func ClosestWithin(name string, candidates []string, maxEdits int) (string, bool) {
	if maxEdits < 0 {
		return "", false
	}
	ln := strings.ToLower(name)
	nl := utf8.RuneCountInString(ln)
	best, bestD := "", maxEdits+1
	for _, c := range candidates {
		lc := strings.ToLower(c)
		// Lengths alone bound the distance from below; skipping here also
		// keeps a very long name from costing quadratic work.
		if diff := nl - utf8.RuneCountInString(lc); diff > maxEdits || -diff > maxEdits {
			continue
		}
		d := EditDistance(ln, lc)
		if d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	return best, bestD <= maxEdits
}

// DidYouMean is the sentence `did you mean "x"?` naming the Closest
// candidate, or "" when none is close or the closest is name itself.
// Messages that need another shape build it around Closest.
func DidYouMean(name string, candidates []string) string {
	if s, ok := Closest(name, candidates); ok && s != name {
		return fmt.Sprintf("did you mean %q?", s)
	}
	return ""
}

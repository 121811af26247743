package compile

import (
	"sort"
	"strings"
)

// levenshtein is the edit distance between a and b (bytes; names are
// ASCII), counting the swap of two neighbours as one edit (optimal string
// alignment), since "agnet" for "agent" is the commonest typo of all.
func levenshtein(a, b string) int {
	pp := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], pp[j-2]+1)
			}
		}
		pp, prev, cur = prev, cur, pp
	}
	return prev[len(b)]
}

// suggest returns the closest candidate to s, or "" when none is close
// enough to be a likely typo (distance at most a third of the length, min 1,
// max 3; names shorter than three letters only match up to case). Ties go to the alphabetically first candidate so that messages
// are deterministic.
func suggest(s string, candidates []string) string {
	best, bestD := "", 1<<30
	limit := max(1, min(3, len(s)/3))
	ls := strings.ToLower(s)
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted)
	for _, c := range sorted {
		d := levenshtein(ls, strings.ToLower(c))
		if d < bestD {
			best, bestD = c, d
		}
	}
	if bestD == 0 || (bestD <= limit && len(s) >= 3) {
		return best
	}
	return ""
}

// didYouMean formats a suggestion for a message, or "".
func didYouMean(s string, candidates []string) string {
	if m := suggest(s, candidates); m != "" {
		return "did you mean \"" + m + "\"? "
	}
	return ""
}

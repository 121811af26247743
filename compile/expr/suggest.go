package expr

import (
	"sort"
	"strings"
)

// Suggest returns the candidate closest to name, or "" when none is close
// enough to be a plausible typo. Matching ignores case first, then allows
// an edit distance of about a third of the name's length.
func Suggest(name string, candidates []string) string {
	best, bestD := "", -1
	limit := len(name)/3 + 1
	if len(name) <= 3 {
		limit = 1 // short names are too easily "close" to anything
	}
	for _, c := range candidates {
		if strings.EqualFold(c, name) && c != name {
			return c
		}
		d := distance(strings.ToLower(name), strings.ToLower(c))
		if d <= limit && (bestD < 0 || d < bestD || (d == bestD && c < best)) {
			best, bestD = c, d
		}
	}
	if best == name {
		return ""
	}
	return best
}

// distance is the edit distance between a and b (bytes), counting a swap
// of two neighbours as one edit (optimal string alignment), since "gvm"
// for "gmv" is as common a typo as a wrong letter.
func distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		// Long names are never typos of short ones; avoid quadratic work.
		if a == b {
			return 0
		}
		return 1 << 20
	}
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// sortedKeys returns the true keys of m in order.
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k, ok := range m {
		if ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// didYouMean formats a suggestion as a sentence fragment, or "".
func didYouMean(name string, candidates []string) string {
	if s := Suggest(name, candidates); s != "" {
		return "did you mean " + quote(s) + "?"
	}
	return ""
}

// quote puts a name in the quotes used by every message.
func quote(s string) string { return "\"" + s + "\"" }

// listOf renders candidates for a fix sentence, at most 8 of them.
func listOf(c []string) string {
	if len(c) == 0 {
		return "(none)"
	}
	if len(c) > 8 {
		return strings.Join(c[:8], ", ") + ", …"
	}
	return strings.Join(c, ", ")
}

package presets

import "fmt"

// suggest returns the candidate closest to got when it is close enough to
// be a likely typo, else "".
func suggest(got string, candidates []string) string {
	best, bestD := "", len(got)/2+2
	for _, c := range candidates {
		if d := editDistance(got, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// fixUnknown is the fix sentence for an unknown key.
func fixUnknown(got string, allowed []string) string {
	if s := suggest(got, allowed); s != "" {
		return fmt.Sprintf("did you mean %q? allowed keys: %v", s, allowed)
	}
	return fmt.Sprintf("remove it; allowed keys: %v", allowed)
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
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
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

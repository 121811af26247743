package suite

// suggest returns the allowed key closest to name when it is close enough
// to be a typo (edit distance at most 2, or a third of the name).
func suggest(name string, allowed []string) string {
	best, bestD := "", 3
	if lim := len(name) / 3; lim > bestD {
		bestD = lim
	}
	for _, a := range allowed {
		if d := editDistance(name, a); d < bestD {
			best, bestD = a, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			c := 1
			if ra[i-1] == rb[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

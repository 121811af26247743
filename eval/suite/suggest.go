package suite

import "github.com/agentlab/agentlab/diag"

// suggest returns the allowed key closest to name when it is close enough
// to be a typo (edit distance at most 2, or a third of the name less one).
func suggest(name string, allowed []string) string {
	best, _ := diag.ClosestWithin(name, allowed, max(3, len(name)/3)-1)
	return best
}

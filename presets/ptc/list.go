package ptc

import "strings"

// splitList reads a comma-separated list: items are trimmed, empty items
// dropped. Matching against the list is exact (case-sensitive).
func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

func inList(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

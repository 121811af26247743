package redact

import "strings"

// Unfinished redacts text that is still arriving, such as the tokens a
// model streams to the live progress view: besides every registered
// value (String), it hides an end that could be the start of one — at
// least MinLen bytes of a form whose rest has not arrived yet — so that
// the frames drawn while a key streams in never show it piece by piece.
func Unfinished(s string) string {
	s = String(s)
	set.mu.RLock() // held while reading: Add sorts the needles in place
	defer set.mu.RUnlock()
	cut := len(s)
	for _, n := range set.needles {
		// The longest end of s that is a proper start of n.
		for k := min(len(n)-1, len(s)); k >= MinLen; k-- {
			if strings.HasSuffix(s, n[:k]) {
				if len(s)-k < cut {
					cut = len(s) - k
				}
				break
			}
		}
	}
	if cut == len(s) {
		return s
	}
	return s[:cut] + Mark
}

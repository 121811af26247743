package provider

import (
	"strings"
	"unicode"
)

// pickLabel chooses the semantic-branch label whose words occur most often
// in the question, ties going to the earlier label. When no label's words
// occur, or every label scores the same (a prompt that merely lists the
// labels), the choice is made by the seed.
func pickLabel(r *rng, labels []string, question string) string {
	counts := map[string]int{}
	for _, w := range splitWords(question) {
		counts[w]++
	}
	q := strings.ToLower(question)
	best, bestScore, tied := -1, 0, 0
	for i, l := range labels {
		score := 0
		for _, w := range splitWords(l) {
			if strings.IndexFunc(w, isCJK) >= 0 {
				score += strings.Count(q, w) // CJK words are not space-separated
			} else {
				score += counts[w]
			}
		}
		switch {
		case score > bestScore:
			best, bestScore, tied = i, score, 1
		case score == bestScore && score > 0:
			tied++
		}
	}
	if best >= 0 && tied < len(labels) {
		return labels[best]
	}
	return labels[r.intn(len(labels))]
}

// splitWords lower-cases s and splits it at anything that is not a letter
// or digit (so "needs_review" is "needs", "review").
func splitWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

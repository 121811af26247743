package expr

import (
	"sort"
	"strings"

	"github.com/agentlab/agentlab/diag"
)

// Suggest returns the candidate closest to name, or "" when none is close
// enough to be a plausible typo or the closest is name itself. Matching
// ignores case and allows an edit distance of about a third of the name's
// length plus one (one for names of up to three letters, which are too
// easily "close" to anything).
func Suggest(name string, candidates []string) string {
	limit := len(name)/3 + 1
	if len(name) <= 3 {
		limit = 1
	}
	if best, ok := diag.ClosestWithin(name, candidates, limit); ok && best != name {
		return best
	}
	return ""
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

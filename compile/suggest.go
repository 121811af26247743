package compile

import "github.com/agentlab/agentlab/diag"

// didYouMean formats a suggestion as the start of a fix sentence
// (`did you mean "x"? `, with a trailing space so that the rest of the
// sentence follows it), or "".
func didYouMean(s string, candidates []string) string {
	if m := diag.DidYouMean(s, candidates); m != "" {
		return m + " "
	}
	return ""
}

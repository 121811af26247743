package compile

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentlab/agentlab/diag"
)

// didYouMean formats a suggestion as the start of a fix sentence
// (`did you mean "x"? `, with a trailing space so that the rest of the
// sentence follows it), or "".
func didYouMean(s string, candidates []string) string {
	if m := diag.DidYouMean(s, candidates); m != "" {
		return m + " "
	}
	return ""
}

// didYouMeanNode is didYouMean for a node id. A flow has few node ids, so
// a name shorter than three runes (too short for diag.Closest) is still
// taken for a typo of the one id that is a single edit away: "ot" for
// "out". With two such ids nothing is suggested.
func didYouMeanNode(id string, ids []string) string {
	if m := didYouMean(id, ids); m != "" || utf8.RuneCountInString(id) >= 3 {
		return m
	}
	var near []string
	for _, c := range ids {
		if c != id && diag.EditDistance(strings.ToLower(id), strings.ToLower(c)) == 1 {
			near = append(near, c)
		}
	}
	if len(near) != 1 {
		return ""
	}
	return fmt.Sprintf("did you mean %q? ", near[0])
}

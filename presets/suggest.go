package presets

import (
	"fmt"

	"github.com/agentlab/agentlab/diag"
)

// suggest returns the candidate closest to got when it is close enough to
// be a likely typo, else "". Preset names and keys are short, so the
// allowance is generous: half the name's length plus one edit.
func suggest(got string, candidates []string) string {
	best, _ := diag.ClosestWithin(got, candidates, len(got)/2+1)
	return best
}

// fixUnknown is the fix sentence for an unknown key.
func fixUnknown(got string, allowed []string) string {
	if s := suggest(got, allowed); s != "" {
		return fmt.Sprintf("did you mean %q? allowed keys: %v", s, allowed)
	}
	return fmt.Sprintf("remove it; allowed keys: %v", allowed)
}

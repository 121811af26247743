package retrieve

import "github.com/agentlab/agentlab/evidence"

// Quote reports whether words appear verbatim in a hit's text; see
// evidence.Quote, which the renderer and the verifier use too.
func Quote(hitText, words string) bool { return evidence.Quote(hitText, words) }

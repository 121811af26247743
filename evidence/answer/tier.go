package answer

import "github.com/agentlab/agentlab/issuance"

// tierRank orders issuance tiers from best to worst; "" (no contract) is
// better than any.
var tierRank = map[string]int{"": 0, issuance.TierFormal: 1, issuance.TierDegraded: 2, issuance.TierWithheld: 3}

// WorseTier is the worse of two issuance tiers: an answer is issued at the
// worst verdict among the contracted outputs and the run that gave it.
func WorseTier(a, b string) string {
	if tierRank[b] > tierRank[a] {
		return b
	}
	return a
}

package compile

import (
	"fmt"
	"math"

	"github.com/agentlab/agentlab/run/retrieve"
)

// CodeRetrieveAlpha warns that a retrieve node sets `alpha`, whose meaning
// was reversed: it now weights the vector side (0 pure keyword, 1 pure
// vector), so a value chosen under the old convention ranks the other way.
const CodeRetrieveAlpha = "W-RET-ALPHA"

// checkRetrieve records the scoring convention the plan is compiled for
// (so a plan says what its alpha means, and its hash changes with it),
// warns on an explicit alpha other than 0.5, and refuses rerank_candidates without a
// rerank model.
func (f *flow) checkRetrieve(n *nodeInfo) {
	n.fields["scoring"] = retrieve.Scoring
	// 0.5 is the same mix under either convention: nothing to look at.
	if a, _ := n.fields["alpha"].(float64); n.v.KeyOf("alpha") != nil && a != 0.5 {
		k := n.v.KeyOf("alpha")
		flip := math.Round((1-a)*1e9) / 1e9 // 0.3, not 0.30000000000000004
		f.l.Warnf(f.src.file, k.Pos(), CodeRetrieveAlpha,
			fmt.Sprintf("if %g was chosen when alpha weighted keywords, write `alpha: %g`; to take the even default, remove the key", a, flip),
			"retrieve %q sets alpha %g: alpha now weights the vector side (0 pure keyword, 1 pure vector), so this is %g keyword and %g vector; it used to be the other way round",
			n.id, a, flip, a)
	}
	if k := n.v.KeyOf("rerank_candidates"); k != nil && n.str("rerank_model") == "" {
		f.dec.errf(k, "E-SCHEMA-EXCLUSIVE", "add `rerank_model: NAME`, or remove `rerank_candidates:`",
			"retrieve %q sets rerank_candidates without a rerank_model", n.id)
	}
}

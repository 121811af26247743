package compile

import "github.com/agentlab/agentlab/run/retrieve"

// CodeRetrieveAlpha warns that a retrieve node sets `alpha`, whose meaning
// was reversed: it now weights the vector side (0 pure keyword, 1 pure
// vector), so a value chosen under the old convention ranks the other way.
const CodeRetrieveAlpha = "W-RET-ALPHA"

// checkRetrieve records the scoring convention the plan is compiled for
// (so a plan says what its alpha means, and its hash changes with it),
// warns on an explicit alpha, and refuses rerank_candidates without a
// rerank model.
func (f *flow) checkRetrieve(n *nodeInfo) {
	n.fields["scoring"] = retrieve.Scoring
	if k := n.v.KeyOf("alpha"); k != nil {
		a, _ := n.fields["alpha"].(float64)
		f.l.Warnf(f.src.file, k.Pos(), CodeRetrieveAlpha,
			"alpha now weights the vector side (0 pure keyword, 1 pure vector): if the value was chosen under the old convention, write 1 − value; remove the key to take the even default 0.5",
			"retrieve %q sets alpha %g, which now means %g keyword and %g vector; alpha used to weight the keyword side",
			n.id, a, 1-a, a)
	}
	if k := n.v.KeyOf("rerank_candidates"); k != nil && n.str("rerank_model") == "" {
		f.dec.errf(k, "E-SCHEMA-EXCLUSIVE", "add `rerank_model: NAME`, or remove `rerank_candidates:`",
			"retrieve %q sets rerank_candidates without a rerank_model", n.id)
	}
}

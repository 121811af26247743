package compile

// violationDefaults gives every report node that does not say its
// on_violation: an exploratory flow keeps a report with its violations
// marked (the run goes on and a contracted output is degraded), a
// published or governed one fails on them. It is decided at compile time,
// by the tier the flow is checked at, so that the plan records it and its
// hash covers it; a formal run only takes published or governed plans, so
// it fails on a violation unless the node says mark.
func (f *flow) violationDefaults() {
	def := "fail"
	if tierRank(f.effTier) == 0 {
		def = "mark"
	}
	for _, n := range f.nodes {
		if n.typ != "report" {
			continue
		}
		if _, set := n.fields["on_violation"]; !set {
			n.fields["on_violation"] = def
		}
	}
}

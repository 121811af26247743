package render

// contractVerdicts gathers the issuance verdicts of the output nodes with a
// contract, from their node.finished events (data.contract: {tier,
// issuance: {reasons}}), so that the report can declare why a run is not
// formal (docs/evidence.md). assets/verify.js holds the same rules.
type contractVerdicts struct {
	nodes []string            // contracted output nodes, in event order
	seen  map[string]bool     // nodes already in nodes
	bad   map[string][]string // reasons of the nodes whose verdict is not formal
	order []string            // nodes with reasons, in event order
}

// add records the contract of node, if x is one with a tier.
func (c *contractVerdicts) add(node string, x any) {
	ct, _ := x.(map[string]any)
	tier, _ := ct["tier"].(string)
	if tier == "" {
		return
	}
	if c.seen == nil {
		c.seen, c.bad = map[string]bool{}, map[string][]string{}
	}
	if !c.seen[node] {
		c.seen[node] = true
		c.nodes = append(c.nodes, node)
	}
	if tier == "formal" {
		return
	}
	is, _ := ct["issuance"].(map[string]any)
	rs, _ := is["reasons"].([]any)
	if _, ok := c.bad[node]; !ok {
		c.order = append(c.order, node)
	}
	for _, r := range rs {
		if s, ok := r.(string); ok {
			c.bad[node] = append(c.bad[node], s)
		}
	}
	if c.bad[node] == nil {
		c.bad[node] = []string{}
	}
}

// reasons lists the reasons, prefixed with the node when several outputs
// carry a contract, without duplicates; nil when there are none.
func (c *contractVerdicts) reasons() []string {
	var out []string
	dup := map[string]bool{}
	for _, n := range c.order {
		for _, r := range c.bad[n] {
			if len(c.nodes) > 1 {
				r = "output " + n + ": " + r
			}
			if !dup[r] {
				dup[r] = true
				out = append(out, r)
			}
		}
	}
	return out
}

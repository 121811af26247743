package engine

import (
	"sort"

	"github.com/agentlab/agentlab/plan"
)

// NodesWithoutModel lists the nodes of p (full ids, loop bodies as
// <loop>[].<node>, subflows included) that call a model and name none:
// llm, agent, report and supervisor nodes and semantic branches without
// `model:`. A provider without a default model cannot answer them, which
// is better said before a run is created than at the first call.
func NodesWithoutModel(p *plan.Plan) []string {
	var out []string
	eachNode(p, func(id string, n *plan.Node) {
		calls := false
		switch n.Type {
		case "llm", "agent", "report", "supervisor":
			calls = true
		case "branch":
			calls = n.Str("mode") == "semantic"
		}
		if calls && n.Str("model") == "" {
			out = append(out, id)
		}
	})
	return out
}

// NodesWithRetrievalModels lists the retrieve nodes of p (full ids, as
// NodesWithoutModel) that name an `embed_model` or a `rerank_model`: they
// need the embeddings and rerank endpoints, whose configuration is then
// checked before a run is created rather than when the node runs.
func NodesWithRetrievalModels(p *plan.Plan) []string {
	var out []string
	eachNode(p, func(id string, n *plan.Node) {
		if n.Type == "retrieve" && (n.Str("embed_model") != "" || n.Str("rerank_model") != "") {
			out = append(out, id)
		}
	})
	return out
}

// eachNode calls f on every node of p with its full id: loop bodies as
// <loop>[].<node>, subflows (each once, in name order) prefixed with their
// short pin; nesting deeper than maxModelIDDepth is not followed.
func eachNode(p *plan.Plan, f func(id string, n *plan.Node)) {
	seen := map[*plan.Plan]bool{}
	var walk func(nodes []plan.Node, prefix string, depth int)
	walk = func(nodes []plan.Node, prefix string, depth int) {
		if depth > maxModelIDDepth {
			return
		}
		for i := range nodes {
			n := &nodes[i]
			id := prefix + n.ID
			f(id, n)
			if n.Body != nil {
				walk(n.Body.Nodes, id+IterationIndex+".", depth+1)
			}
		}
	}
	var walkPlan func(p *plan.Plan, prefix string, depth int)
	walkPlan = func(p *plan.Plan, prefix string, depth int) {
		if p == nil || seen[p] || depth > maxModelIDDepth {
			return
		}
		seen[p] = true
		walk(p.Nodes, prefix, depth)
		keys := make([]string, 0, len(p.Subflows))
		for k := range p.Subflows {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			walkPlan(p.Subflows[k], "subflow "+shortPin(k)+": ", depth+1)
		}
	}
	walkPlan(p, "", 0)
}

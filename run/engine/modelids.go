package engine

import (
	"sort"

	"github.com/agentlab/agentlab/plan"
)

// IterationIndex is how ModelNodeIDs writes a loop iteration: the engine
// names the nodes of a loop's body <loop>[<i>].<node>, with i counting
// from 0, and "[]" stands for every i.
const IterationIndex = "[]"

// maxModelIDDepth bounds the nesting of loops and subflows ModelNodeIDs
// follows, so that a malformed plan (a subflow that contains itself)
// cannot make it run forever.
const maxModelIDDepth = 64

// ModelNodeIDs lists the node ids the engine can give a model provider
// (ModelRequest.Node) when it runs p: every node's full id — loop bodies as
// <loop>[].<node> (see IterationIndex), subflows as <subgraph>.<node>, at
// any depth — plus the ids of the calls a node makes under another name:
// a report's judge (<report>:judge) and a supervisor's workers
// (<supervisor>.<worker>). A script file (provider script:FILE) answers a
// call whose id equals its key, so these are the keys it may use; nodes
// that call no model are listed too, as scripting them is harmless. The
// list is sorted and has no duplicates.
func ModelNodeIDs(p *plan.Plan) []string {
	seen := map[string]bool{}
	var walk func(nodes []plan.Node, prefix string, chain []*plan.Plan, depth int)
	walk = func(nodes []plan.Node, prefix string, chain []*plan.Plan, depth int) {
		if depth > maxModelIDDepth {
			return
		}
		for i := range nodes {
			n := &nodes[i]
			id := prefix + n.ID
			seen[id] = true
			switch n.Type {
			case "report":
				seen[id+":judge"] = true
			case "supervisor":
				for _, w := range workersOf(n) {
					seen[id+"."+w.id] = true
				}
			case "loop":
				if n.Body != nil {
					walk(n.Body.Nodes, id+IterationIndex+".", chain, depth+1)
				}
			case "subgraph":
				pin := n.Str("plan")
				if pin == "" {
					pin = n.Str("pin")
				}
				if sub := subflowOf(chain, pin); sub != nil {
					walk(sub.Nodes, id+".", append(chain[:len(chain):len(chain)], sub), depth+1)
				}
			}
		}
	}
	if p != nil {
		walk(p.Nodes, "", []*plan.Plan{p}, 0)
	}
	out := make([]string, 0, len(seen))
	for id := range seen {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// subflowOf finds a subflow the way a running subgraph node does
// (graphRun.subflow): in the innermost plan first, then outwards.
func subflowOf(chain []*plan.Plan, pin string) *plan.Plan {
	for i := len(chain) - 1; i >= 0; i-- {
		if s := chain[i].Subflows[pin]; s != nil {
			return s
		}
	}
	return nil
}

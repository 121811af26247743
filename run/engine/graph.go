package engine

import (
	"fmt"
	"sort"

	"github.com/agentlab/agentlab/plan"
)

// gnode is one node of an indexed graph.
type gnode struct {
	n    *plan.Node
	pos  int         // position in commit order
	rank int         // longest path from a source
	in   []plan.Edge // in-edges
	out  []*gnode    // distinct successors
}

// gindex is a graph prepared for scheduling: nodes sorted in commit order
// (rank, then id) with their in-edges and successors.
type gindex struct {
	nodes []*gnode
	byID  map[string]*gnode
}

// indexGraph orders g's nodes; a cycle or an edge to an unknown node is an
// error (compile rejects both, so this only guards hand-written plans).
func indexGraph(g *plan.Graph) (*gindex, error) {
	ix := &gindex{byID: make(map[string]*gnode, len(g.Nodes))}
	for i := range g.Nodes {
		n := &g.Nodes[i]
		if _, dup := ix.byID[n.ID]; dup {
			return nil, fmt.Errorf("the plan has two nodes with id %q; recompile the flow", n.ID)
		}
		gn := &gnode{n: n}
		ix.byID[n.ID] = gn
		ix.nodes = append(ix.nodes, gn)
	}
	indeg := make(map[*gnode]int, len(ix.nodes))
	seen := make(map[[2]*gnode]bool, len(g.Edges))
	for _, e := range g.Edges {
		from, to := ix.byID[e.From], ix.byID[e.To]
		if from == nil || to == nil {
			return nil, fmt.Errorf("the plan has an edge %s -> %s to a node it does not define; recompile the flow", e.From, e.To)
		}
		to.in = append(to.in, e)
		if !seen[[2]*gnode{from, to}] {
			seen[[2]*gnode{from, to}] = true
			from.out = append(from.out, to)
			indeg[to]++
		}
	}
	// Kahn's algorithm computing the longest-path rank.
	var queue []*gnode
	for _, gn := range ix.nodes {
		if indeg[gn] == 0 {
			queue = append(queue, gn)
		}
	}
	done := 0
	for len(queue) > 0 {
		gn := queue[0]
		queue = queue[1:]
		done++
		for _, s := range gn.out {
			if gn.rank+1 > s.rank {
				s.rank = gn.rank + 1
			}
			indeg[s]--
			if indeg[s] == 0 {
				queue = append(queue, s)
			}
		}
	}
	if done != len(ix.nodes) {
		return nil, fmt.Errorf("the plan's graph has a cycle outside a loop body; recompile the flow")
	}
	sort.SliceStable(ix.nodes, func(i, j int) bool {
		a, b := ix.nodes[i], ix.nodes[j]
		if a.rank != b.rank {
			return a.rank < b.rank
		}
		return a.n.ID < b.n.ID
	})
	for i, gn := range ix.nodes {
		gn.pos = i
	}
	return ix, nil
}

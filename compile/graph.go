package compile

import (
	"github.com/agentlab/agentlab/diag"
	"sort"
	"strings"
)

// ports returns the named outputs of a node: a branch's case ports and
// default (or a semantic branch's labels), a human gate's approve/reject.
// Every other node has one unnamed output.
func ports(n *nodeInfo) []string {
	switch n.typ {
	case "branch":
		var out []string
		for _, p := range branchPortVs(n) {
			out = append(out, p.Str)
		}
		return out
	case "human":
		return []string{"approve", "reject"}
	}
	return nil
}

// hasPorts reports whether edges leaving n must name a port.
func hasPorts(n *nodeInfo) bool { return n.typ == "branch" || n.typ == "human" }

// graphPass checks edges, ports, cycles and reachability, and builds the
// predecessor lists and topological positions that scopes and governance
// use. It is linear in nodes + edges.
func (f *flow) graphPass() {
	nn := len(f.nodes)
	f.outPorts = make([]map[string]bool, nn)
	var links []link
	for gi, g := range f.graphs {
		seen := map[[3]string]bool{}
		kept := g.edges[:0]
		for _, e := range g.edges {
			a, okA := f.edgeEnd(gi, e, false)
			b, okB := f.edgeEnd(gi, e, true)
			if !okA || !okB {
				continue
			}
			if !f.checkPort(a, e) {
				continue
			}
			key := [3]string{e.from, e.port, e.to}
			if seen[key] {
				f.l.Warnf(f.src.file, f.fromPos(e), "W-GRAPH-DUP-EDGE", "remove the repeated edge",
					"edge %s -> %s is listed twice", portName(e), e.to)
				continue
			}
			seen[key] = true
			kept = append(kept, e)
			links = append(links, link{int32(a.idx), int32(b.idx)})
			if e.port != "" {
				if f.outPorts[a.idx] == nil {
					f.outPorts[a.idx] = map[string]bool{}
				}
				f.outPorts[a.idx][e.port] = true
			}
		}
		g.edges = kept
	}
	f.succs = newAdjacency(nn, links, false)
	f.preds = newAdjacency(nn, links, true)
	f.topo = make([]int32, nn)
	// Scratch indexed by node, shared by the graphs (each node is in
	// exactly one), so that many small loop bodies cost no more than one
	// graph of the same size.
	scratch := make([]int32, nn)
	for gi := range f.graphs {
		f.order(gi, scratch)
	}
	for gi := range f.graphs {
		f.reach(gi, scratch)
	}
	f.checkShape()
}

// link is a kept edge between two nodes, by index.
type link struct{ from, to int32 }

// adjacency lists every node's neighbours along the kept edges, in edge
// order, in one array: one allocation for the whole flow instead of a
// slice per node.
type adjacency struct {
	start []int32 // node i's neighbours are to[start[i]:start[i+1]]
	to    []int32
}

// newAdjacency builds the successor lists of links, or with back set the
// predecessor lists.
func newAdjacency(n int, links []link, back bool) adjacency {
	a := adjacency{start: make([]int32, n+1), to: make([]int32, len(links))}
	for _, l := range links {
		x := l.from
		if back {
			x = l.to
		}
		a.start[x+1]++
	}
	for i := 1; i <= n; i++ {
		a.start[i] += a.start[i-1]
	}
	next := append([]int32(nil), a.start[:n]...)
	for _, l := range links {
		x, y := l.from, l.to
		if back {
			x, y = y, x
		}
		a.to[next[x]] = y
		next[x]++
	}
	return a
}

// of returns the neighbours of node i.
func (a adjacency) of(i int) []int32 { return a.to[a.start[i]:a.start[i+1]] }

func portName(e edgeInfo) string {
	if e.port != "" {
		return e.from + "." + e.port
	}
	return e.from
}

// edgeEnd resolves one end of an edge in graph gi.
func (f *flow) edgeEnd(gi int, e edgeInfo, to bool) (*nodeInfo, bool) {
	id := e.from
	if to {
		id = e.to
	}
	// The position is computed only for a message: locating a part of
	// an edge string means walking the line it is on.
	at := func() diag.Pos {
		if to {
			return f.toPos(e)
		}
		return f.fromPos(e)
	}
	idx, ok := f.byID[id]
	if !ok && f.broken[id] {
		return nil, false
	}
	if !ok {
		f.l.Errorf(f.src.file, at(), "E-GRAPH-UNKNOWN-NODE", "use the id of a node in this graph",
			"edge refers to unknown node %q%s", id, suffix(didYouMeanNode(id, f.graphIDs(gi))))
		return nil, false
	}
	n := f.nodes[idx]
	if n.graph != gi {
		where := "the top-level graph"
		if o := f.graphs[n.graph].owner; o >= 0 {
			where = "the body of loop \"" + f.nodes[o].id + "\""
		}
		f.l.Errorf(f.src.file, at(), "E-GRAPH-CROSS-EDGE", "connect only nodes of the same graph; a loop body talks to the outside through the loop node",
			"edge refers to node %q, which is in %s", id, where)
		return nil, false
	}
	return n, true
}

// graphIDs lists the node ids of graph gi, for suggestions.
func (f *flow) graphIDs(gi int) []string {
	ids := make([]string, 0, len(f.graphs[gi].nodes))
	for _, i := range f.graphs[gi].nodes {
		ids = append(ids, f.nodes[i].id)
	}
	return ids
}

// checkPort checks the port of an edge against the ports its source has.
func (f *flow) checkPort(a *nodeInfo, e edgeInfo) bool {
	ps := ports(a)
	if !hasPorts(a) {
		if e.port != "" {
			f.l.Errorf(f.src.file, f.portPos(e), "E-GRAPH-UNKNOWN-PORT", "write the edge as \""+e.from+" -> "+e.to+"\"",
				"node %q (type %s) has no ports, but the edge uses port %q", a.id, a.typ, e.port)
			return false
		}
		return true
	}
	if e.port == "" {
		f.l.Errorf(f.src.file, f.fromPos(e), "E-GRAPH-PORT-REQUIRED", "write \""+e.from+".PORT -> "+e.to+"\" with one of: "+strings.Join(ps, ", "),
			"edge leaves %s %q without naming a port", a.typ, a.id)
		return false
	}
	for _, p := range ps {
		if p == e.port {
			return true
		}
	}
	f.l.Errorf(f.src.file, f.portPos(e), "E-GRAPH-UNKNOWN-PORT", "use one of: "+strings.Join(ps, ", "),
		"%s %q has no port %q%s", a.typ, a.id, e.port, suffix(didYouMean(e.port, ps)))
	return false
}

// order computes a topological order of graph gi (Kahn's algorithm, ties
// broken by declaration order) and reports a cycle if there is one. Nodes
// on or behind a cycle get topo = -1.
func (f *flow) order(gi int, indeg []int32) {
	g := f.graphs[gi]
	for _, i := range g.nodes {
		indeg[i] = int32(len(f.preds.of(i)))
		f.topo[i] = -1
	}
	queue := make([]int32, 0, len(g.nodes))
	for _, i := range g.nodes {
		if indeg[i] == 0 {
			queue = append(queue, int32(i))
		}
	}
	pos := int32(0)
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		f.topo[x] = pos
		pos++
		for _, s := range f.succs.of(int(x)) {
			indeg[s]--
			if indeg[s] == 0 {
				queue = append(queue, s)
			}
		}
	}
	if int(pos) == len(g.nodes) {
		return
	}
	// Find one cycle among the unordered nodes and report it once.
	state := map[int32]uint8{}
	var stack []int32
	var found []int32
	var dfs func(x int32) bool
	dfs = func(x int32) bool {
		state[x] = 1
		stack = append(stack, x)
		for _, s := range f.succs.of(int(x)) {
			if f.topo[s] >= 0 {
				continue
			}
			if state[s] == 1 {
				for k := len(stack) - 1; k >= 0; k-- {
					if stack[k] == s {
						found = append([]int32(nil), stack[k:]...)
						break
					}
				}
				return true
			}
			if state[s] == 0 && dfs(s) {
				return true
			}
		}
		stack = stack[:len(stack)-1]
		state[x] = 2
		return false
	}
	for _, i := range g.nodes {
		if f.topo[i] < 0 && state[int32(i)] == 0 && dfs(int32(i)) {
			break
		}
	}
	if len(found) == 0 {
		return
	}
	names := make([]string, 0, len(found)+1)
	for _, x := range found {
		names = append(names, f.nodes[x].id)
	}
	names = append(names, f.nodes[found[0]].id)
	// Point at the edge that closes the cycle.
	last, first := f.nodes[found[len(found)-1]].id, f.nodes[found[0]].id
	p := f.nodes[found[0]].v.Pos()
	for _, e := range g.edges {
		if e.from == last && e.to == first {
			p = f.fromPos(e)
			break
		}
	}
	f.l.Errorf(f.src.file, p, "E-GRAPH-CYCLE", "remove an edge of the cycle; to repeat steps, put them in the body of a `loop` node",
		"edges form a cycle: %s", strings.Join(names, " -> "))
}

// reach warns about nodes that cannot be reached from the start of graph
// gi: its input node when it has one, otherwise every node without
// in-edges.
func (f *flow) reach(gi int, seen []int32) {
	g := f.graphs[gi]
	var starts []int
	var inputs []int
	for _, i := range g.nodes {
		if f.nodes[i].typ == "input" {
			inputs = append(inputs, i)
		}
	}
	if gi != 0 && len(inputs) > 0 {
		for _, i := range inputs {
			f.l.Errorf(f.src.file, f.nodes[i].v.Get("type").Pos(), "E-GRAPH-INPUT", "remove the input node from the loop body; body nodes see the flow's inputs anyway",
				"input node %q is inside a loop body", f.nodes[i].id)
		}
		inputs = nil
	}
	if len(inputs) > 1 {
		first := f.nodes[inputs[0]]
		for _, i := range inputs[1:] {
			f.l.Errorf(f.src.file, f.nodes[i].v.Get("type").Pos(), "E-GRAPH-INPUT", "keep one input node",
				"a flow has at most one input node; %q is already one (line %d)", first.id, first.v.Line)
		}
	}
	for _, i := range inputs {
		if len(f.preds.of(i)) > 0 {
			f.l.Errorf(f.src.file, f.nodes[i].v.Get("type").Pos(), "E-GRAPH-INPUT", "remove the edges that lead into the input node",
				"input node %q has incoming edges; the input node starts the flow", f.nodes[i].id)
		}
	}
	if len(inputs) > 0 {
		starts = inputs[:1]
	} else {
		for _, i := range g.nodes {
			if len(f.preds.of(i)) == 0 {
				starts = append(starts, i)
			}
		}
	}
	for _, i := range g.nodes {
		seen[i] = 0
	}
	stack := make([]int32, 0, len(starts))
	for _, s := range starts {
		seen[s] = 1
		stack = append(stack, int32(s))
	}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, s := range f.succs.of(int(x)) {
			if seen[s] == 0 {
				seen[s] = 1
				stack = append(stack, s)
			}
		}
	}
	for _, i := range g.nodes {
		if seen[i] == 0 {
			n := f.nodes[i]
			why := "no path leads to it from the nodes without incoming edges"
			if len(inputs) > 0 {
				why = "no path leads to it from input node \"" + f.nodes[inputs[0]].id + "\""
			}
			f.l.Warnf(f.src.file, n.v.Get("id").Pos(), "W-GRAPH-UNREACHABLE", "add an edge that leads to this node, or remove it",
				"node %q is unreachable: %s", n.id, why)
		}
	}
}

// checkShape applies the whole-graph rules: an output node exists, every
// branch port is wired, a collecting loop body ends in one node.
func (f *flow) checkShape() {
	hasOutput := false
	for _, n := range f.nodes {
		if n.typ == "output" && n.graph == 0 {
			hasOutput = true
		}
		if n.typ == "branch" {
			for _, p := range branchPortVs(n) {
				if !f.outPorts[n.idx][p.Str] {
					f.l.Warnf(f.src.file, p.Pos(), "W-GRAPH-PORT-UNUSED", "add an edge \""+n.id+"."+p.Str+" -> NODE\" or remove the port",
						"port %q of branch %q has no edge; the flow ends there when it is taken", p.Str, n.id)
				}
			}
		}
		if n.typ == "loop" && n.body >= 0 && n.str("collect") != "" {
			var sinks []string
			for _, i := range f.graphs[n.body].nodes {
				if len(f.succs.of(i)) == 0 {
					sinks = append(sinks, f.nodes[i].id)
				}
			}
			if len(sinks) > 1 {
				sort.Strings(sinks)
				f.l.Errorf(f.src.file, n.v.Get("collect").Pos(), "E-GRAPH-LOOP-SINK", "join the body's last nodes into one node (e.g. a transform) whose output is collected",
					"loop %q collects the output of its body's last node, but the body ends in %d nodes: %s", n.id, len(sinks), strings.Join(sinks, ", "))
			}
		}
	}
	if !hasOutput && len(f.nodes) > 0 {
		at := f.root.KeyOf("nodes")
		f.l.Warnf(f.src.file, at.Pos(), "W-GRAPH-NO-OUTPUT", "add a node of type output that says what the flow returns",
			"flow has no output node; its run has no outputs")
	}
}

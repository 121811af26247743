package compile

import (
	"strings"

	"github.com/agentlab/agentlab/compile/expr"
)

// Scopes are built per string, not per node: a string can only refer to
// names it spells, so its scope holds just the identifiers it contains that
// are visible at its node. Visibility is answered by a reachability query
// pruned by topological position, so a 10,000-node chain needs no
// ancestor sets (which would be O(n²) memory).

// isAncestor reports whether a is a strict ancestor of n in their graph.
func (f *flow) isAncestor(a, n int) bool {
	if a == n || f.nodes[a].graph != f.nodes[n].graph {
		return false
	}
	ta, tn := f.topo[a], f.topo[n]
	if ta < 0 || tn < 0 || ta >= tn {
		return false
	}
	if f.stamp == nil {
		f.stamp = make([]uint32, len(f.nodes))
	}
	f.gen++
	stack := append(f.stack[:0], int32(n))
	f.stamp[n] = f.gen
	found := false
	for len(stack) > 0 && !found {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, p := range f.preds.of(int(x)) {
			if int(p) == a {
				found = true
				break
			}
			if f.stamp[p] == f.gen || f.topo[p] < ta {
				continue
			}
			f.stamp[p] = f.gen
			stack = append(stack, p)
		}
	}
	f.stack = stack
	return found
}

// visible reports whether node target has finished whenever node from runs:
// it is an ancestor of from, or of a loop that (transitively) contains from.
func (f *flow) visible(target, from int) bool {
	tg := f.nodes[target].graph
	for x := from; x >= 0; {
		if f.nodes[x].graph == tg {
			return f.isAncestor(target, x)
		}
		x = f.graphs[f.nodes[x].graph].owner
	}
	return false
}

// inLoop reports whether node n runs inside a loop body.
func (f *flow) inLoop(n int) bool { return n >= 0 && f.nodes[n].graph != 0 }

// outputFields lists the fields of a node's output object (nil: any). The
// lists mirror what the executors of run/engine return, so that a field a
// run provides is never refused and a misspelt one is caught.
func (f *flow) outputFields(n *nodeInfo) []string {
	withJSON := func(fields ...string) []string {
		if _, ok := n.fields["output_schema"]; ok {
			fields = append(fields, "json")
		}
		return fields
	}
	switch n.typ {
	case "llm":
		return withJSON("text", "model", "usage")
	case "agent":
		return withJSON("text", "model", "usage", "steps", "tool_calls", "stop", "snapshots")
	case "supervisor":
		return []string{"text", "model", "usage", "rounds", "assignments", "snapshots"}
	case "report":
		return []string{"text", "source", "violations", "model", "usage"}
	case "tool":
		if !strings.HasPrefix(n.str("tool"), "db_query__") {
			return nil // a registry tool's result has no fixed shape
		}
		return snapshotFields
	case "merge":
		return snapshotFields
	case "retrieve":
		return []string{"hits", "query"}
	case "metrics":
		if names := f.metricNames(n); names != nil {
			return names
		}
	case "subgraph":
		// The fields of the subflow's outputs; never a snapshot, so col,
		// cell and rows on a subgraph are refused at lint as at run time.
		if fields, ok := f.subOut[n.id]; ok {
			return fields
		}
	case "human":
		// run/engine execHuman; form only when the node declares one.
		fields := []string{"decision", "approvals", "rejections", "decisions", "timed_out"}
		if _, ok := n.fields["form"]; ok {
			fields = append(fields, "form")
		}
		return fields
	}
	return nil
}

// subfields lists what is known of the objects inside a node's output:
// the fields of a human node's form (nil: nothing).
func subfields(n *nodeInfo) map[string][]string {
	m, ok := n.fields["form"].(map[string]any)
	if !ok || n.typ != "human" {
		return nil
	}
	return map[string][]string{"form": sortedMapKeys(m)}
}

// snapshotFields are the fields of a snapshot object, the output of a
// db_query tool node and of a merge node.
var snapshotFields = []string{"node", "snapshot", "columns", "rows", "truncated"}

// varAssigners maps each variable name to the nodes that set it.
func (f *flow) buildVars() {
	f.assigners = map[string][]int{}
	for _, n := range f.nodes {
		if v := n.str("assign_to"); v != "" {
			f.assigners[v] = append(f.assigners[v], n.idx)
		}
		if n.typ == "loop" {
			if v := n.str("collect"); v != "" {
				f.assigners[v] = append(f.assigners[v], n.idx)
			}
		}
	}
	f.inputs = map[string]bool{}
	if in, ok := f.top["inputs"].(map[string]any); ok {
		for k := range in {
			f.inputs[k] = true
		}
	}
}

// scopeFor builds the scope of string s written in node `from`.
func (f *flow) scopeFor(s string, from int, r *strRef) expr.Scope {
	// Nodes and Vars stay nil (an empty scope) unless the string names
	// something visible: most strings name one or two things at most.
	sc := expr.Scope{Inputs: f.inputs, InLoop: f.inLoop(from)}
	if r != nil && r.metric != nil {
		sc.Metrics = r.metric
	}
	var loopVars map[string]bool
	if r != nil && r.field == "while" && from >= 0 && f.nodes[from].typ == "loop" {
		loopVars = f.loopOwnVars(from)
	}
	forIdents(s, func(w string) {
		if i, ok := f.byID[w]; ok && from >= 0 && f.visible(i, from) {
			if sc.Nodes == nil {
				sc.Nodes = map[string][]string{}
			}
			sc.Nodes[w] = f.outputFields(f.nodes[i])
			if sub := subfields(f.nodes[i]); sub != nil {
				if sc.Subfields == nil {
					sc.Subfields = map[string]map[string][]string{}
				}
				sc.Subfields[w] = sub
			}
		}
		if loopVars[w] {
			if sc.Vars == nil {
				sc.Vars = map[string]bool{}
			}
			sc.Vars[w] = true
			return
		}
		for _, a := range f.assigners[w] {
			if from >= 0 && f.visible(a, from) {
				if sc.Vars == nil {
					sc.Vars = map[string]bool{}
				}
				sc.Vars[w] = true
				break
			}
		}
	})
	return sc
}

// loopOwnVars are the variables a loop's `while` may read besides its
// upstream ones: its own collect variable and those set inside its body.
func (f *flow) loopOwnVars(loop int) map[string]bool {
	m := map[string]bool{}
	n := f.nodes[loop]
	if c := n.str("collect"); c != "" {
		m[c] = true
	}
	var walk func(g int)
	walk = func(g int) {
		for _, i := range f.graphs[g].nodes {
			b := f.nodes[i]
			if v := b.str("assign_to"); v != "" {
				m[v] = true
			}
			if b.body >= 0 {
				walk(b.body)
			}
		}
	}
	if n.body >= 0 {
		walk(n.body)
	}
	return m
}

// forIdents calls fn for every identifier-like word in s.
func forIdents(s string, fn func(string)) {
	for i := 0; i < len(s); {
		c := s[i]
		if c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') {
			j := i + 1
			for j < len(s) && isIdentByte(s[j]) {
				j++
			}
			fn(s[i:j])
			i = j
			continue
		}
		i++
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || (c >= '0' && c <= '9') || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

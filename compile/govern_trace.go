package compile

import (
	"sort"
	"strings"

	"github.com/agentlab/agentlab/compile/expr"
)

// gateMetricTrace is G6, governed means traced to data: every metric a
// metrics node computes reads query snapshots (tool and merge nodes)
// through col, cell or rows, or declared inputs, and nothing else; a
// literal, a model's text, a variable, or anything derived from them is
// refused, because its value would be issued as evidence with nothing in
// the ledger behind it. The same rule (expr.Untraced) keeps such a metric
// from making a run formal when a plan was built without lint.
func (f *flow) gateMetricTrace(n *nodeInfo) {
	defs := map[string]string{}
	pos := map[string]*V{}
	origin := "metrics node \"" + n.id + "\""
	if mv := n.v.Get("metrics"); mv != nil && mv.Kind == vMap {
		for i, k := range mv.Keys() {
			if e := mv.Vals()[i].Get("expr"); e != nil && e.Kind == vScalar {
				defs[k.Str] = e.Str
				pos[k.Str] = e
			}
		}
	} else if cr := f.cards[n.id]; cr != nil && cr.loaded != nil && cr.loaded.card != nil {
		origin = "card " + cr.key + " of metrics node \"" + n.id + "\""
		for name, m := range cr.loaded.card.Metrics {
			defs[name] = m.Expr
		}
	}
	bad := expr.Untraced(defs, f.isSnapshotNode)
	names := make([]string, 0, len(bad))
	for k := range bad {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		at := pos[k]
		if at == nil {
			if at = n.v.Get("card"); at == nil {
				at = n.v.Get("type")
			}
		}
		f.gov(at, "E-GATE-G6", "compute the metric from a query snapshot with col(), cell() or rows(), or from a declared input (`input.NAME`); a target or threshold belongs in an input, not in a literal",
			"metric %q of %s does not trace to data (G6): %s", k, origin, bad[k])
	}
}

// isSnapshotNode reports whether a node's output is a query snapshot whose
// cells the ledger records: a db_query tool node or a merge node.
func (f *flow) isSnapshotNode(id string) bool {
	i, ok := f.byID[id]
	if !ok {
		return false
	}
	m := f.nodes[i]
	switch m.typ {
	case "merge":
		return true
	case "tool":
		return strings.HasPrefix(m.str("tool"), "db_query__")
	}
	return false
}

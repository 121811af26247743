package compile

import "strings"

// refRule says which node types a node-naming field accepts.
var refRule = map[string][]string{
	"contract.report_from":  {"report"},
	"contract.metrics_from": {"metrics"},
	"inputs":                {"tool", "merge"},
}

// checkRefs checks fields that name other nodes: the node exists, has
// the right type, and runs before the node that names it.
func (f *flow) checkRefs() {
	for _, r := range f.dec.refs {
		if r.node < 0 {
			continue
		}
		owner := f.nodes[r.node]
		id := r.v.Str
		idx, ok := f.byID[id]
		if !ok && f.broken[id] {
			continue
		}
		if !ok {
			ids := make([]string, 0, len(f.byID))
			for k := range f.byID {
				ids = append(ids, k)
			}
			f.l.Errorf(f.src.file, r.v.Pos(), "E-GRAPH-UNKNOWN-NODE", "use the id of a node that runs before \""+owner.id+"\"",
				"%q names unknown node %q%s", r.field, id, suffix(didYouMeanNode(id, ids)))
			continue
		}
		target := f.nodes[idx]
		if types := refRule[r.field]; types != nil && !contains(types, target.typ) {
			f.l.Errorf(f.src.file, r.v.Pos(), "E-GRAPH-REF-TYPE", "name a node of type "+strings.Join(types, " or "),
				"%q names %q, a %s node; it must be a %s node", r.field, id, target.typ, strings.Join(types, " or "))
			continue
		}
		if !f.visible(idx, r.node) {
			f.l.Errorf(f.src.file, r.v.Pos(), "E-GRAPH-NOT-UPSTREAM", "add edges so that \""+id+"\" runs before \""+owner.id+"\"",
				"%q names node %q, which does not run before %q", r.field, id, owner.id)
		}
	}
}

// checkRequiredMetrics checks that an output contract's required_metrics
// are metrics of its metrics_from node.
func (f *flow) checkRequiredMetrics() {
	for _, n := range f.nodes {
		if n.typ != "output" {
			continue
		}
		c, _ := n.fields["contract"].(map[string]any)
		from, _ := c["metrics_from"].(string)
		req, _ := c["required_metrics"].([]any)
		idx, ok := f.byID[from]
		if !ok || len(req) == 0 || f.nodes[idx].typ != "metrics" {
			continue
		}
		names := f.metricNames(f.nodes[idx])
		if names == nil {
			continue // the card could not be resolved; reported already
		}
		rv := n.v.Get("contract").Get("required_metrics")
		for i, x := range req {
			name, _ := x.(string)
			if contains(names, name) {
				continue
			}
			at := rv
			if rv != nil && i < len(rv.Items()) {
				at = rv.Items()[i]
			}
			f.l.Errorf(f.src.file, at.Pos(), "E-GRAPH-UNKNOWN-METRIC", "use one of the metrics of \""+from+"\": "+strings.Join(names, ", "),
				"required metric %q is not computed by metrics node %q%s", name, from, suffix(didYouMean(name, names)))
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

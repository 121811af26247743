package compile

import (
	"sort"
	"strings"

	"github.com/agentlab/agentlab/plan"
)

// tierRank orders tiers from weakest to strictest.
func tierRank(t string) int {
	switch t {
	case plan.TierPublished:
		return 1
	case plan.TierGoverned:
		return 2
	}
	return 0
}

// effectiveTier is the stricter of the declared tier and the one asked for
// on the command line; --tier never weakens a flow's own tier.
func effectiveTier(declared, asked string) string {
	if tierRank(asked) > tierRank(declared) {
		return asked
	}
	if declared == "" {
		return plan.TierExploratory
	}
	return declared
}

// gov reports a governance finding: an error at governed, a warning at
// published, nothing at exploratory.
func (f *flow) gov(v *V, code, fix, format string, args ...any) {
	switch f.effTier {
	case plan.TierGoverned:
		f.l.Errorf(f.src.file, v.Pos(), code, fix, format, args...)
	case plan.TierPublished:
		f.l.Warnf(f.src.file, v.Pos(), code, fix, format, args...)
	}
}

// governance applies the tier rules and evidence gates G1–G6 (docs/language.md,
// tiers and governance).
func (f *flow) governance() {
	if tierRank(f.effTier) == 0 {
		return
	}
	for _, n := range f.nodes {
		switch n.typ {
		case "supervisor":
			f.gov(n.v.Get("type"), "E-GOV-SUPERVISOR", "replace the supervisor with explicit agent nodes and edges, or lower the tier to exploratory",
				"supervisor %q is allowed only at tier exploratory", n.id)
		case "metrics":
			if _, inline := n.fields["metrics"]; inline {
				f.gov(n.v.KeyOf("metrics"), "E-GOV-CARD-PIN", "move the metrics into a card file and pin it with `card: NAME@VERSION`",
					"metrics node %q defines its metrics inline; at tier %s metrics come from a pinned card", n.id, f.effTier)
			} else if c := n.str("card"); c != "" && !strings.Contains(c, "@") {
				f.gov(n.v.Get("card"), "E-GOV-CARD-PIN", "pin the version: `card: "+c+"@N`",
					"metric card %q is not pinned to a version", c)
			}
			f.gateMetricInputs(n)
			f.gateMetricTrace(n) // govern_trace.go
		case "agent":
			if rv := n.v.Get("permissions"); rv != nil && rv.Kind == vSeq {
				for _, r := range rv.Items() {
					t, a := r.Get("tool"), r.Get("action")
					if t != nil && a != nil && (t.Str == "*" || t.Str == "**") && a.Str == "allow" {
						f.gov(r, "E-GOV-APPROVALS", "allow named tools only, and leave the rest to ask",
							"agent %q allows every tool without approval", n.id)
					}
				}
			}
		case "subgraph":
			if n.str("pin") == "" {
				f.gov(n.v.Get("flow"), "E-GOV-PIN", "add `pin: b3:…` with the subflow's plan hash (agentlab compile prints it)",
					"subgraph %q is not pinned to a plan hash", n.id)
			}
		case "report":
			f.gateReport(n)
		case "output":
			if n.graph == 0 {
				f.gateOutput(n)
			}
		}
	}
}

// gateReport is G3: report nodes check their numbers strictly, fail on a
// violation and require citations (or a judge with a budget).
func (f *flow) gateReport(n *nodeInfo) {
	at := func(k string) *V {
		if kv := n.v.KeyOf(k); kv != nil {
			return n.v.Get(k)
		}
		return n.v.Get("type")
	}
	if n.str("numbers") != "strict" {
		f.gov(at("numbers"), "E-GATE-G3", "set `numbers: strict`", "report %q must check numbers strictly (G3)", n.id)
	}
	if n.str("on_violation") != "fail" {
		f.gov(at("on_violation"), "E-GATE-G3", "set `on_violation: fail`", "report %q must fail on a number violation (G3)", n.id)
	}
	switch n.str("claims") {
	case "require_citation":
	case "judge":
		j, _ := n.fields["judge"].(map[string]any)
		if _, ok := j["max_cost_usd"]; !ok {
			f.gov(at("claims"), "E-GATE-G3", "give the judge a budget: `judge: {max_cost_usd: …}`",
				"report %q uses a claims judge without a budget (G3)", n.id)
		}
	default:
		f.gov(at("claims"), "E-GATE-G3", "set `claims: require_citation` (or `judge` with a budget)",
			"report %q must require citations for its claims (G3)", n.id)
	}
}

// gateOutput checks the issuance contract and gates G1 and G2 for one output.
func (f *flow) gateOutput(n *nodeInfo) {
	contract, _ := n.fields["contract"].(map[string]any)
	if _, ok := contract["report_from"]; !ok {
		f.gov(n.v.Get("type"), "E-GOV-CONTRACT", "add `contract: {report_from: REPORT_NODE, metrics_from: METRICS_NODE}`",
			"output %q has no issuance contract with report_from", n.id)
	}
	// G1: text fields of a contracted output come only from report nodes.
	if contract != nil {
		if fv := n.v.Get("fields"); fv != nil && fv.Kind == vMap {
			for i, k := range fv.Keys() {
				for _, src := range f.textSources(fv.Vals()[i].Str) {
					f.gov(fv.Vals()[i], "E-GATE-G1", "take the text from a report node, which checks numbers and citations",
						"output field %q takes text from %s %q; text of a contracted output comes only from report nodes (G1)",
						k.Str, f.nodes[src].typ, f.nodes[src].id)
				}
			}
		}
	}
	// G2: no model text reaches the output without passing a report node.
	hits := f.unreportedModelText(f.preds.of(n.idx))
	sort.Ints(hits)
	for _, h := range hits {
		f.gov(n.v.Get("type"), "E-GATE-G2", "route \""+f.nodes[h].id+"\" through a report node before the output",
			"model text of %s %q reaches output %q without passing a report node (G2)", f.nodes[h].typ, f.nodes[h].id, n.id)
	}
}

// bodyModelText returns the model nodes whose text a loop body passes
// out (through its last nodes, which collect gathers) without a report
// node in between; nested loops are followed.
func (f *flow) bodyModelText(g int) []int {
	var last []int32
	for _, i := range f.graphs[g].nodes {
		if len(f.succs.of(i)) == 0 {
			last = append(last, int32(i))
		}
	}
	return f.unreportedModelText(last)
}

// unreportedModelText walks back from the nodes in from and returns the
// model nodes it reaches without crossing a report node, looking into the
// bodies of loops on the way.
func (f *flow) unreportedModelText(from []int32) []int {
	var hits []int
	seen := map[int32]bool{}
	stack := append([]int32(nil), from...)
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[x] {
			continue
		}
		seen[x] = true
		m := f.nodes[x]
		if m.typ == "report" {
			continue
		}
		if modelTypes[m.typ] {
			hits = append(hits, int(x))
		} else if m.typ == "loop" && m.body >= 0 {
			hits = append(hits, f.bodyModelText(m.body)...)
		}
		stack = append(stack, f.preds.of(int(x))...)
	}
	return hits
}

// textSources returns the non-report model nodes a template reads,
// directly (nodes.<id>) or through a variable they assigned.
func (f *flow) textSources(s string) []int {
	var out []int
	add := func(i int) {
		m := f.nodes[i]
		if modelTypes[m.typ] && m.typ != "report" && !containsInt(out, i) {
			out = append(out, i)
		}
	}
	for _, m := range refNodesRe.FindAllStringSubmatch(s, -1) {
		if i, ok := f.byID[m[1]]; ok {
			add(i)
		}
	}
	for _, m := range refVarsRe.FindAllStringSubmatch(s, -1) {
		for _, a := range f.assigners[m[1]] {
			add(a)
		}
	}
	return out
}

func containsInt(l []int, x int) bool {
	for _, y := range l {
		if y == x {
			return true
		}
	}
	return false
}

// metricFeeders returns the nodes a metrics node reads: those named in its
// metric expressions (inline or from its card) and its direct predecessors.
func (f *flow) metricFeeders(n *nodeInfo) []int {
	var out []int
	add := func(i int) {
		if !containsInt(out, i) {
			out = append(out, i)
		}
	}
	var exprs []string
	if ms, ok := n.fields["metrics"].(map[string]any); ok {
		for _, mv := range ms {
			if m, ok := mv.(map[string]any); ok {
				if e, ok := m["expr"].(string); ok {
					exprs = append(exprs, e)
				}
			}
		}
	} else if cr := f.cards[n.id]; cr != nil && cr.loaded != nil && cr.loaded.card != nil {
		for _, m := range cr.loaded.card.Metrics {
			exprs = append(exprs, m.Expr)
		}
		if old := cr.loaded.previous[cr.pinned]; cr.oldKey != "" && old != nil {
			for _, m := range old.Metrics {
				exprs = append(exprs, m.Expr)
			}
		}
	}
	for _, e := range exprs {
		for _, m := range refNodesRe.FindAllStringSubmatch(e, -1) {
			if i, ok := f.byID[m[1]]; ok {
				add(i)
			}
		}
	}
	for _, p := range f.preds.of(n.idx) {
		add(int(p))
	}
	sort.Ints(out)
	return out
}

// gateMetricInputs is G4 (no computed code output feeds a card) and G5
// (agents that feed a card return structured, cited output).
func (f *flow) gateMetricInputs(n *nodeInfo) {
	at := n.v.Get("card")
	if at == nil {
		at = n.v.Get("type")
	}
	for _, i := range f.metricFeeders(n) {
		m := f.nodes[i]
		switch m.typ {
		case "code":
			if m.str("evidence_role") == "compute" {
				f.gov(at, "E-GATE-G4", "compute the figure in SQL (a tool or merge node) or in the card itself; or mark the code node `evidence_role: source` if it only fetches data",
					"metrics %q reads code node %q, whose output is computed (G4)", n.id, m.id)
			}
		case "agent":
			cite, _ := m.fields["cite_fields"].(bool)
			if _, ok := m.fields["output_schema"]; !ok || !cite {
				f.gov(m.v.Get("type"), "E-GATE-G5", "give agent \""+m.id+"\" an `output_schema` and `cite_fields: true`",
					"agent %q feeds metrics %q without an output_schema and cite_fields: true (G5)", m.id, n.id)
			}
		}
	}
}

package compile

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"

	"github.com/agentlab/agentlab/plan"
)

// build turns a checked flow into its plan. The plan is then normalised
// through its canonical JSON, so that the value returned equals what
// plan.Decode reads back from the plan file.
func (f *flow) build(pre plan.Preset, subs map[string]*plan.Plan) (*plan.Plan, error) {
	p := &plan.Plan{
		Format:   plan.FormatVersion,
		Agentlab: 1,
		Tier:     f.tier,
		Preset:   pre,
		Inputs:   map[string]plan.Input{},
		Sources:  map[string]plan.Source{},
		Settings: plan.DefaultSettings,
	}
	p.Name, _ = f.top["name"].(string)
	p.Title, _ = f.top["title"].(string)
	// The flow's and its inputs' descriptions are documentation: they stay
	// out of the plan, so that editing one changes neither the plan hash
	// nor a subflow's pin (docs/language.md, "The plan").
	p.Version, _ = f.top["version"].(string)
	if in, ok := f.top["inputs"].(map[string]any); ok {
		for name, x := range in {
			m, _ := x.(map[string]any)
			pi := plan.Input{Default: m["default"]}
			pi.Type, _ = m["type"].(string)
			pi.Required, _ = m["required"].(bool)
			if e, ok := m["enum"].([]any); ok {
				pi.Enum = e
			}
			p.Inputs[name] = pi
		}
	}
	if srcs, ok := f.top["sources"].(map[string]any); ok {
		for name, x := range srcs {
			m, _ := x.(map[string]any)
			ps := plan.Source{}
			ps.Kind, _ = m["kind"].(string)
			ps.Path, _ = m["path"].(string)
			ps.Table, _ = m["table"].(string)
			ps.MaskColumns = strList(m["mask_columns"])
			if rc, ok := m["row_cap"].(int64); ok {
				ps.RowCap = int(rc)
			}
			p.Sources[name] = ps
		}
	}
	for name, s := range f.subSources { // subflow.go, liftSources
		if _, own := p.Sources[name]; !own {
			p.Sources[name] = s
		}
	}
	if st, ok := f.top["settings"].(map[string]any); ok {
		if v, ok := st["max_graph_steps"].(int64); ok {
			p.Settings.MaxGraphSteps = int(v)
		}
		if v, ok := st["run_timeout_s"].(float64); ok {
			p.Settings.RunTimeoutS = v
		}
		if v, ok := st["parallel"].(int64); ok {
			p.Settings.Parallel = int(v)
		}
		if v, ok := st["row_cap"].(int64); ok {
			p.Settings.RowCap = int(v)
		}
	}
	g := f.buildGraph(0)
	p.Nodes, p.Edges = g.Nodes, g.Edges
	for _, cr := range f.cards {
		if cr.loaded != nil && cr.loaded.card != nil {
			if p.Cards == nil {
				p.Cards = map[string]plan.Card{}
			}
			p.Cards[cr.key] = *cr.loaded.card
			if cr.oldKey != "" {
				p.Cards[cr.oldKey] = *cr.loaded.previous[cr.pinned]
			}
		}
	}
	if len(subs) > 0 {
		p.Subflows = subs
	}
	p.Tools = f.buildCustomTools()
	return normalise(p)
}

// normalise gives every value of p the type plan.Decode gives it
// (numbers float64, lists []any, empty maps non-nil …), so that the plan
// compile returns equals the plan read back from its file. Specs are
// converted by walking them, which is much cheaper than a JSON round trip;
// the preset (small, built elsewhere) does take the round trip.
// TestGoldenPlans checks the result against plan.Decode of canonical bytes.
func normalise(p *plan.Plan) (*plan.Plan, error) {
	b, err := json.Marshal(p.Preset)
	if err != nil {
		return nil, err
	}
	var pre plan.Preset
	if err := json.Unmarshal(b, &pre); err != nil {
		return nil, err
	}
	p.Preset = pre
	for k, in := range p.Inputs {
		in.Default = normValue(in.Default)
		if in.Enum != nil {
			in.Enum = normValue(in.Enum).([]any)
		}
		p.Inputs[k] = in
	}
	normGraph(p.Nodes)
	return p, nil
}

func normGraph(nodes []plan.Node) {
	for i := range nodes {
		nodes[i].Spec = normValue(nodes[i].Spec).(map[string]any)
		if nodes[i].Body != nil {
			normGraph(nodes[i].Body.Nodes)
		}
	}
}

// normValue converts a decoded YAML value into the value encoding/json
// decodes its JSON to. Maps and lists built by the decoder belong to this
// compile alone, so they are converted in place.
func normValue(x any) any {
	switch v := x.(type) {
	case int64:
		return float64(v)
	case int:
		return float64(v)
	case map[string]any:
		if v == nil {
			return nil
		}
		for k, e := range v {
			switch e.(type) {
			case string, bool, float64, nil:
			default:
				v[k] = normValue(e)
			}
		}
		return v
	case []any:
		if v == nil {
			return nil
		}
		for i, e := range v {
			v[i] = normValue(e)
		}
		return v
	case []string:
		if v == nil {
			return nil
		}
		l := make([]any, len(v))
		for i, e := range v {
			l[i] = e
		}
		return l
	}
	return x
}

func strList(x any) []string {
	l, _ := x.([]any)
	if len(l) == 0 {
		return nil
	}
	out := make([]string, 0, len(l))
	for _, e := range l {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// buildGraph builds the plan graph of graph gi. Nodes keep their written
// order (the scheduler breaks ties by it); edges are sorted, because
// their order has no meaning and must not change the hash.
func (f *flow) buildGraph(gi int) *plan.Graph {
	g := f.graphs[gi]
	out := &plan.Graph{Nodes: make([]plan.Node, 0, len(g.nodes)), Edges: make([]plan.Edge, 0, len(g.edges))}
	for _, i := range g.nodes {
		out.Nodes = append(out.Nodes, f.buildNode(f.nodes[i]))
	}
	for _, e := range g.edges {
		out.Edges = append(out.Edges, plan.Edge{From: e.from, Port: e.port, To: e.to})
	}
	slices.SortFunc(out.Edges, func(x, y plan.Edge) int {
		return cmp.Or(strings.Compare(x.From, y.From), strings.Compare(x.Port, y.Port), strings.Compare(x.To, y.To))
	})
	return out
}

// buildNode splits a node's fields into the typed common fields and the
// type-specific Spec. `description` is documentation only and is left out.
// Building is the last pass, so the node's field map becomes its Spec.
func (f *flow) buildNode(n *nodeInfo) plan.Node {
	pn := plan.Node{ID: n.id, Type: n.typ}
	pn.Title = n.str("title")
	pn.AssignTo = n.str("assign_to")
	pn.When = n.str("when")
	pn.OnError = n.str("on_error")
	if t, ok := n.fields["timeout_s"].(float64); ok {
		pn.TimeoutS = t
	}
	if r, ok := n.fields["retry"].(map[string]any); ok {
		if m, ok := r["max"].(int64); ok {
			pn.Retry.Max = int(m)
		}
		pn.Retry.BackoffS, _ = r["backoff_s"].(float64)
	}
	for _, c := range commonFields.fields {
		delete(n.fields, c.name)
	}
	pn.Spec = n.fields
	if n.body >= 0 {
		pn.Body = f.buildGraph(n.body)
	}
	return pn
}

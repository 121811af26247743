package engine

import (
	"context"
	"fmt"
	"sort"

	"github.com/agentlab/agentlab/plan"
)

// execSubgraph runs the subflow compiled into Plan.Subflows under the hash
// that compile writes to the node's `plan` field (or its `pin`) with `inputs` rendered from templates and checked against
// the subflow's declarations. Its nodes are recorded as <node>.<inner>; its
// output is the subflow's outputs. The subflow has its own inputs, nodes
// and variables: nothing leaks in or out except through inputs and outputs.
func execSubgraph(ctx context.Context, t *task) (any, effects, error) {
	n := t.node
	pin := n.Str("plan")
	if pin == "" {
		pin = n.Str("pin")
	}
	sub := t.g.subflow(pin)
	if sub == nil {
		return nil, effects{}, fmt.Errorf("subgraph %q: the plan holds no subflow %q; recompile the flow", t.id, pin)
	}
	env := t.sc.env()
	spec := n.Map("inputs")
	names := make([]string, 0, len(spec))
	for k := range spec {
		names = append(names, k)
	}
	sort.Strings(names)
	raw := make(map[string]any, len(spec))
	for _, k := range names {
		if s, ok := spec[k].(string); ok {
			v, err := render(s, env)
			if err != nil {
				return nil, effects{}, fmt.Errorf("subgraph %q: input %q: %v", t.id, k, err)
			}
			raw[k] = v
		} else {
			raw[k] = spec[k]
		}
	}
	in, err := PrepareInputs(sub.Inputs, raw)
	if err != nil {
		return nil, effects{}, fmt.Errorf("subgraph %q: %v", t.id, err)
	}
	ix, err := t.r.planIndex(sub)
	if err != nil {
		return nil, effects{}, fmt.Errorf("subgraph %q: %v", t.id, err)
	}
	g := t.r.newGraphRun(sub, ix, t.id+".", newScope(&t.r.mu, in), slotSink{t.g.seq, t.gn.pos}, t.g)
	g.key = t.g.keyOf(t.gn.pos, 0)
	if err := g.run(ctx); err != nil {
		if isFatal(err) {
			return nil, effects{}, err
		}
		return nil, effects{}, fmt.Errorf("subgraph %q: %v", t.id, err)
	}
	return g.outputs(), effects{}, nil
}

// subflow finds a pinned subflow in this graph's plan or any enclosing one.
func (g *graphRun) subflow(pin string) *plan.Plan {
	for c := g; c != nil; c = c.parent {
		if s := c.plan.Subflows[pin]; s != nil {
			return s
		}
	}
	return g.r.cfg.Plan.Subflows[pin]
}

// planIndex indexes a plan's top-level graph once per run.
func (r *runner) planIndex(p *plan.Plan) (*gindex, error) {
	if ix, ok := r.cache.Load(p); ok {
		return ix.(*gindex), nil
	}
	ix, err := indexGraph(p.Graph())
	if err != nil {
		return nil, err
	}
	r.cache.Store(p, ix)
	return ix, nil
}

// outputs merges the fields of every finished output node, in commit order.
func (g *graphRun) outputs() map[string]any {
	out := map[string]any{}
	for _, gn := range g.ix.nodes {
		if gn.n.Type != "output" || g.status[gn.pos] != stDone {
			continue
		}
		v, _ := g.sc.node(gn.n.ID)
		if m, ok := v.(map[string]any); ok {
			for k, x := range m {
				out[k] = x
			}
		}
	}
	return out
}

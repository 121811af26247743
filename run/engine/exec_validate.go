package engine

import (
	"context"
	"fmt"

	"github.com/agentlab/agentlab/plan"
)

// execValidate checks the output of `target` against `schema` (a model
// node's parsed `json` when it has one, else its text parsed as JSON, else
// the output itself). On failure it runs the `rework` node again, with the
// violations appended to its prompt, up to `max_reworks` times; each rework
// is recorded as <validate>.rework[<k>]. The reworked output replaces the
// rework node's output for everything downstream, and is carried in the
// validate node's payload so that a resumed run restores it.
func execValidate(ctx context.Context, t *task) (any, effects, error) {
	n := t.node
	target := n.Str("target")
	schema := n.Map("schema")
	if schema == nil {
		return nil, effects{}, fmt.Errorf("validate %q has no schema", t.id)
	}
	reworkID := n.Str("rework")
	maxR := n.Int("max_reworks")
	cur, ok := t.sc.node(target)
	if !ok {
		return nil, effects{}, fmt.Errorf("validate %q: target %q has not finished; add an edge %s -> %s", t.id, target, target, n.ID)
	}
	eff := effects{}
	for k := 0; ; k++ {
		viol, err := t.r.validate(schema, instanceOf(cur))
		if err != nil {
			return nil, effects{}, fmt.Errorf("validate %q: %v", t.id, err)
		}
		if viol == "" {
			return map[string]any{"valid": true, "reworks": k}, eff, nil
		}
		if reworkID == "" || k >= maxR {
			how := "add rework: NODE and max_reworks"
			if reworkID != "" {
				how = "raise max_reworks or make the prompt of " + reworkID + " clearer"
			}
			return nil, effects{}, fmt.Errorf("validate %q: the output of %q does not match the schema after %d rework(s):\n%s\n(%s)%s", t.id, target, k, viol, how, t.earlyStops())
		}
		rn := t.g.findNode(reworkID)
		if rn == nil {
			return nil, effects{}, fmt.Errorf("validate %q: rework node %q is not in this graph", t.id, reworkID)
		}
		if err := t.r.countStep(); err != nil {
			return nil, effects{}, err
		}
		rt := &task{
			r: t.r, g: t.g, gn: t.gn, node: rn, id: fmt.Sprintf("%s.rework[%d]", t.id, k+1), sc: t.sc, emit: t.emit,
			model: t.g.prefix + reworkID,
			extra: "Your previous answer did not match the required JSON Schema:\n" + viol + "\nAnswer again and fix these problems.",
		}
		t.r.place(rt.id, t.g.keyOf(t.gn.pos, k+1))
		res, err := t.r.execute(ctx, rt)
		if err != nil {
			return nil, effects{}, fmt.Errorf("validate %q: rework %d of %q failed: %v", t.id, k+1, reworkID, err)
		}
		if err := t.emit(pendingEvent{EvNodeFinished, rt.id, res.record}); err != nil {
			return nil, effects{}, err
		}
		t.r.note(Update{Node: rt.id, Type: rn.Type, State: StateFinished, Elapsed: res.elapsed, Usage: usageOf(res.payload.Output)})
		t.sc.setNodeWhereDefined(reworkID, res.payload.Output)
		if eff.nodes == nil {
			eff.nodes, eff.vars = map[string]any{}, map[string]any{}
		}
		eff.nodes[reworkID] = res.payload.Output
		for v, x := range res.payload.Vars {
			eff.vars[v] = x
		}
		t.sc.setVars(res.payload.Vars)
		if reworkID == target {
			cur = res.payload.Output
		}
	}
}

// instanceOf picks what validate checks in a node output.
func instanceOf(out any) any {
	m, ok := out.(map[string]any)
	if !ok {
		return out
	}
	if j, ok := m["json"]; ok {
		return j
	}
	if s, ok := m["text"].(string); ok {
		if v, err := parseModelJSON(s); err == nil {
			return v
		}
		return s
	}
	return out
}

// findNode looks a node up in this graph and the enclosing ones.
func (g *graphRun) findNode(id string) *plan.Node {
	for c := g; c != nil; c = c.parent {
		if gn := c.ix.byID[id]; gn != nil {
			return gn.n
		}
	}
	return nil
}

package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/agentlab/agentlab/compile/expr"
	"github.com/agentlab/agentlab/plan"
)

// execLoop runs the body once per item of `over`, or while `while` holds,
// never more than `max_iterations` times (reaching it with work left is an
// error naming the loop). Body nodes are recorded as <loop>[<i>].<node>;
// `collect` gathers the output of the body's last finished node (last in
// commit order) of every iteration into a variable. The loop's payload
// carries every variable the body's nodes assigned (their last values), so
// that a resumed run restores them without re-running the body; nodes
// running beside the loop are not included.
func execLoop(ctx context.Context, t *task) (any, effects, error) {
	n := t.node
	if n.Body == nil || len(n.Body.Nodes) == 0 {
		return nil, effects{}, fmt.Errorf("loop %q has no body", t.id)
	}
	maxIt := n.Int("max_iterations")
	if maxIt <= 0 {
		return nil, effects{}, fmt.Errorf("loop %q needs max_iterations ≥ 1", t.id)
	}
	ix, err := t.r.bodyIndex(n)
	if err != nil {
		return nil, effects{}, fmt.Errorf("loop %q: %v", t.id, err)
	}
	over, while := n.Str("over"), n.Str("while")
	var items []any
	if over != "" {
		v, err := t.r.eval(over, expr.Over, t.sc)
		if err != nil {
			return nil, effects{}, fmt.Errorf("loop %q: over %q: %v", t.id, over, err)
		}
		if items, err = toList(v); err != nil {
			return nil, effects{}, fmt.Errorf("loop %q: over %q: %v", t.id, over, err)
		}
		if len(items) > maxIt {
			return nil, effects{}, fmt.Errorf("loop %q: over gives %d items but max_iterations is %d; raise max_iterations or shorten the list", t.id, len(items), maxIt)
		}
	}
	assigned := &varLog{m: map[string]any{}}
	var collected []any
	i := 0
	for ; ; i++ {
		if over != "" && i >= len(items) {
			break
		}
		var item any
		if over != "" {
			item = items[i]
		}
		sc := t.sc.child(item, i)
		if while != "" {
			ok, err := t.r.evalBool(while, sc)
			if err != nil {
				return nil, effects{}, fmt.Errorf("loop %q: while %q: %v", t.id, while, err)
			}
			if !ok {
				break
			}
		}
		if i >= maxIt {
			return nil, effects{}, fmt.Errorf("loop %q reached max_iterations (%d) while its condition %q still held; raise max_iterations or make the condition become false sooner", t.id, maxIt, while)
		}
		t.r.countIteration(t.id)
		g := t.r.newGraphRun(t.g.plan, ix, fmt.Sprintf("%s[%d].", t.id, i), sc, slotSink{t.g.seq, t.gn.pos}, t.g)
		g.assigned = assigned
		g.key = t.g.keyOf(t.gn.pos, i)
		if err := g.run(ctx); err != nil {
			if isFatal(err) {
				return nil, effects{}, err
			}
			return nil, effects{}, fmt.Errorf("loop %q, iteration %d: %v", t.id, i, err)
		}
		collected = append(collected, g.last())
	}
	changed := assigned.m
	out := map[string]any{"iterations": i}
	if c := n.Str("collect"); c != "" {
		if collected == nil {
			collected = []any{}
		}
		changed[c] = collected
		out["collected"] = collected
	}
	return out, effects{vars: changed}, nil
}

// bodyIndex indexes a loop body once per run.
func (r *runner) bodyIndex(n *plan.Node) (*gindex, error) {
	if ix, ok := r.cache.Load(n); ok {
		return ix.(*gindex), nil
	}
	ix, err := indexGraph(n.Body)
	if err != nil {
		return nil, err
	}
	r.cache.Store(n, ix)
	return ix, nil
}

// last returns the output of the last node in commit order that finished.
func (g *graphRun) last() any {
	for i := len(g.ix.nodes) - 1; i >= 0; i-- {
		if g.status[i] == stDone {
			v, _ := g.sc.node(g.ix.nodes[i].n.ID)
			return v
		}
	}
	return nil
}

// toList accepts any list value and returns it in JSON-decoded form.
func toList(v any) ([]any, error) {
	if v == nil {
		return nil, nil
	}
	if l, ok := v.([]any); ok {
		return l, nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return nil, fmt.Errorf("the value is %T, not a list", v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var l []any
	err = json.Unmarshal(b, &l)
	return l, err
}

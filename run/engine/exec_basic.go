package engine

import (
	"context"
	"fmt"
	"sort"

	"github.com/agentlab/agentlab/compile/expr"
)

// execInput exposes the (sub)flow's inputs, checked before the run began.
func execInput(_ context.Context, t *task) (any, effects, error) {
	return t.sc.input, effects{}, nil
}

// execOutput renders `fields` and checks them against `schema`; the
// graph's outputs are the union of its finished output nodes.
func execOutput(_ context.Context, t *task) (any, effects, error) {
	env := t.sc.env()
	fields := t.node.Map("fields")
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make(map[string]any, len(fields))
	for _, k := range names {
		src, ok := fields[k].(string)
		if !ok {
			out[k] = fields[k]
			continue
		}
		s, err := render(src, env)
		if err != nil {
			return nil, effects{}, fmt.Errorf("node %q: field %q: %v", t.id, k, err)
		}
		out[k] = s
	}
	if s := t.node.Map("schema"); s != nil {
		viol, err := t.r.validate(s, out)
		if err != nil {
			return nil, effects{}, fmt.Errorf("node %q: %v", t.id, err)
		}
		if viol != "" {
			return nil, effects{}, fmt.Errorf("node %q: the outputs do not match its schema:\n%s%s", t.id, viol, t.earlyStops())
		}
	}
	c, err := t.contract() // exec_contract.go
	if err != nil || c == nil {
		return out, effects{}, err
	}
	return out, effects{record: map[string]any{"contract": c}}, nil
}

// execTransform evaluates `expr`; its value is the output.
func execTransform(_ context.Context, t *task) (any, effects, error) {
	v, err := t.r.eval(t.node.Str("expr"), expr.Transform, t.sc)
	if err != nil {
		return nil, effects{}, fmt.Errorf("node %q: expression %q: %v", t.id, t.node.Str("expr"), err)
	}
	return v, effects{}, nil
}

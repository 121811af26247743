package engine

import (
	"context"
	"fmt"
	"strings"
)

// execBranch picks an output port. Expression cases are tried in order and
// the first true one wins, else `default`. With mode: semantic the model
// picks one of `labels`, each of which names a port.
func execBranch(ctx context.Context, t *task) (any, effects, error) {
	n := t.node
	env := t.sc.env()
	def := n.Str("default")
	pick := func(port string) (any, effects, error) {
		return map[string]any{"port": port}, effects{port: port}, nil
	}
	if n.Str("mode") == "semantic" {
		var labels []string
		for _, l := range n.List("labels") {
			if s, ok := l.(string); ok {
				labels = append(labels, s)
			}
		}
		if t.r.cfg.Model == nil {
			return nil, effects{}, fmt.Errorf("node %q: a semantic branch needs a model provider; pass --provider", t.id)
		}
		prompt, err := render(n.Str("prompt"), env)
		if err != nil {
			return nil, effects{}, fmt.Errorf("node %q: prompt: %v", t.id, err)
		}
		req := ModelRequest{
			Node: t.modelID(), Call: t.r.nextCall(t.modelID()), Kind: "branch",
			Model: modelName(t), Labels: labels, Seed: t.r.cfg.Seed,
			Messages: []Message{{Role: "user", Content: prompt}},
		}
		resp, err := t.r.cfg.Model.Complete(ctx, req, func(tok string) { t.r.note(Update{Node: t.id, Type: n.Type, State: StateRunning, Token: tok}) })
		if err != nil {
			return nil, effects{}, withUsage(fmt.Errorf("node %q: %w", t.id, err), billedBy(err))
		}
		// The call was paid for: its usage is part of the output (and of
		// the error), as for every other model node.
		picked := func(port string) (any, effects, error) {
			return map[string]any{"port": port, "usage": resp.Usage}, effects{port: port}, nil
		}
		got := strings.TrimSpace(resp.Text)
		for _, l := range labels {
			if strings.EqualFold(got, l) {
				return picked(l)
			}
		}
		if def != "" {
			return picked(def)
		}
		return nil, effects{}, withUsage(fmt.Errorf("node %q: the model answered %q, which is none of the labels %v; add default: PORT to the branch", t.id, got, labels), resp.Usage)
	}
	for i, c := range n.List("cases") {
		m, _ := c.(map[string]any)
		when, _ := m["when"].(string)
		port, _ := m["port"].(string)
		ok, err := t.r.evalBool(when, t.sc)
		if err != nil {
			return nil, effects{}, fmt.Errorf("node %q: case %d (%s): %v", t.id, i+1, when, err)
		}
		if ok {
			return pick(port)
		}
	}
	if def == "" {
		return nil, effects{}, fmt.Errorf("node %q: no case matched and the branch has no default; add default: PORT", t.id)
	}
	return pick(def)
}

func modelName(t *task) string {
	if m := t.node.Str("model"); m != "" {
		return m
	}
	return t.r.cfg.DefaultModel
}

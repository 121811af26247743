package engine

import (
	"context"
	"fmt"
)

// execLLM renders `system` and `prompt`, asks the model and streams its
// tokens to the Observer. With `output_schema` the answer must be JSON that
// conforms; it is parsed into the output's `json` field. The output is
// {text, json?, model, usage}.
func execLLM(ctx context.Context, t *task) (any, effects, error) {
	n := t.node
	system, prompt, err := modelPrompts(t)
	if err != nil {
		return nil, effects{}, err
	}
	schema := n.Map("output_schema")
	req := ModelRequest{
		Node: t.modelID(), Call: t.r.nextCall(t.modelID()), Kind: "llm",
		Model: modelName(t), System: system, Seed: t.r.cfg.Seed,
		Messages:     []Message{{Role: "user", Content: prompt}},
		OutputSchema: schema, MaxTokens: n.Int("max_tokens"),
	}
	if _, ok := n.Spec["temperature"]; ok {
		tv := n.Float("temperature")
		req.Temperature = &tv
	}
	resp, err := t.r.cfg.Model.Complete(ctx, req, func(tok string) {
		t.r.note(Update{Node: t.id, Type: n.Type, State: StateRunning, Token: tok})
	})
	if err != nil {
		return nil, effects{}, withUsage(fmt.Errorf("node %q: the model call failed: %w", t.id, err), billedBy(err))
	}
	out := map[string]any{
		"text":  resp.Text,
		"model": resp.Model,
		"usage": resp.Usage,
	}
	if schema != nil {
		v, err := parseModelJSON(resp.Text)
		if err != nil {
			return nil, effects{}, withUsage(fmt.Errorf("node %q: the model's answer is not JSON (%v); it must match output_schema", t.id, err), resp.Usage)
		}
		viol, err := t.r.validate(schema, v)
		if err != nil {
			return nil, effects{}, withUsage(fmt.Errorf("node %q: output_schema: %v", t.id, err), resp.Usage)
		}
		if viol != "" {
			return nil, effects{}, withUsage(fmt.Errorf("node %q: the model's answer does not match output_schema:\n%s", t.id, viol), resp.Usage)
		}
		out["json"] = v
	}
	return out, effects{}, nil
}

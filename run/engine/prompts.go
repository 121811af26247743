package engine

import "fmt"

// modelPrompts is how every node that writes with a model (llm, report,
// agent) begins: it refuses to run without a model provider, renders the
// node's `system` and `prompt` templates, and appends the rework note of a
// validate node (t.extra) to the prompt. Keeping it in one place keeps the
// three node types' errors and retry behaviour the same.
func modelPrompts(t *task) (system, prompt string, err error) {
	if t.r.cfg.Model == nil {
		return "", "", fmt.Errorf("node %q: no model provider is configured; pass --provider mock", t.id)
	}
	env := t.sc.env()
	system, err = render(t.node.Str("system"), env)
	if err != nil {
		return "", "", fmt.Errorf("node %q: system: %v", t.id, err)
	}
	prompt, err = render(t.node.Str("prompt"), env)
	if err != nil {
		return "", "", fmt.Errorf("node %q: prompt: %v", t.id, err)
	}
	if t.extra != "" {
		prompt += "\n\n" + t.extra
	}
	return system, prompt, nil
}

package run

import (
	"fmt"
	"strings"

	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run/engine"
)

// checkModelNamed refuses, before a run is created, a remote provider
// without --model when some node that calls a model names none: such a
// call could only fail, after the nodes before it had run (and cost).
func checkModelNamed(spec, model string, p *plan.Plan) error {
	if model != "" || (spec != "openai" && spec != "anthropic") {
		return nil
	}
	nodes := engine.NodesWithoutModel(p)
	if len(nodes) == 0 {
		return nil
	}
	shown := nodes
	if len(shown) > 5 {
		shown = append(shown[:5:5], fmt.Sprintf("and %d more", len(nodes)-5))
	}
	example := map[string]string{"openai": "gpt-4o", "anthropic": "claude-sonnet-4-5"}[spec]
	return fmt.Errorf("provider %s has no default model, and node(s) %s name none; run with --model NAME (such as --model %s) or set model: on them",
		spec, strings.Join(shown, ", "), example)
}

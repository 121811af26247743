package run

import (
	"fmt"
	"strings"

	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run/engine"
	"github.com/agentlab/agentlab/run/provider"
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

// checkRetrievalModels refuses, before a run is created, a plan whose
// retrieve nodes name an embed_model or a rerank_model when the endpoint
// configuration could only fail (no key for a remote server, a bad base
// URL): found at the node, the failure would come after the nodes before
// it had run.
func checkRetrievalModels(p *plan.Plan, m *provider.RetrievalModels) error {
	nodes := engine.NodesWithRetrievalModels(p)
	if len(nodes) == 0 {
		return nil
	}
	err := m.Ready()
	if err == nil {
		return nil
	}
	shown := nodes
	if len(shown) > 5 {
		shown = append(shown[:5:5], fmt.Sprintf("and %d more", len(nodes)-5))
	}
	return fmt.Errorf("retrieve node(s) %s name an embed_model or rerank_model, but the model endpoints cannot be used: %w", strings.Join(shown, ", "), err)
}

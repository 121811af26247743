package eval

import (
	"github.com/agentlab/agentlab/eval/suite"
	"github.com/agentlab/agentlab/plan"
)

// defaultTokensPerCall is the token estimate of one model call when the
// variant gives no tokens_per_run and the node no max_tokens: a prompt of
// a few paragraphs and an answer of one.
const defaultTokensPerCall = 1500

// Estimate is the expected size and cost of an evaluation, printed before
// it starts and compared with the cost cap.
type Estimate struct {
	Cases   int     `json:"cases"`
	Runs    int     `json:"runs"`
	Tokens  int     `json:"tokens"`
	CostUSD float64 `json:"cost_usd"`
	// Unpriced names variants on paid providers without a price: their
	// cost is unknown, not zero.
	Unpriced []string `json:"unpriced,omitempty"`
}

// modelCalls counts the model nodes of a plan (loop bodies and subflows
// counted once each: an estimate, not a bound).
func modelCalls(p *plan.Plan) (calls, maxTokens int) {
	var walk func(nodes []plan.Node)
	walk = func(nodes []plan.Node) {
		for i := range nodes {
			n := &nodes[i]
			switch n.Type {
			case "llm", "agent", "report", "supervisor":
				calls++
				if mt := n.Int("max_tokens"); mt > 0 {
					maxTokens += mt
				} else {
					maxTokens += defaultTokensPerCall
				}
			}
			if n.Body != nil {
				walk(n.Body.Nodes)
			}
		}
	}
	walk(p.Nodes)
	for _, sub := range p.Subflows {
		c, m := modelCalls(sub)
		calls, maxTokens = calls+c, maxTokens+m
	}
	return calls, maxTokens
}

// EstimateCost estimates the evaluation of cases (question × variant ×
// repeat counts per variant). Tokens per run come from the variant's
// tokens_per_run or the plan's model nodes; a priced variant splits them
// evenly between input and output for the cost. The mock and script
// providers cost nothing.
func EstimateCost(p *plan.Plan, variants []suite.Variant, questions int) Estimate {
	var e Estimate
	_, perRun := modelCalls(p)
	for _, v := range variants {
		runs := questions * v.Repeats
		e.Cases += runs
		e.Runs += runs
		tok := perRun
		if v.TokensPerRun > 0 {
			tok = v.TokensPerRun
		}
		e.Tokens += runs * tok
		if free(v.Provider) {
			continue
		}
		if v.Price == nil {
			e.Unpriced = append(e.Unpriced, v.Name)
			continue
		}
		half := float64(runs*tok) / 2
		e.CostUSD += half/1e6*v.Price.InputPerMTok + half/1e6*v.Price.OutputPerMTok
	}
	return e
}

func free(provider string) bool {
	return provider == "" || provider == "mock" || len(provider) > 7 && provider[:7] == "script:"
}

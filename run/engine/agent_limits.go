package engine

import (
	"encoding/json"

	"github.com/agentlab/agentlab/presets"
)

// EvAgentLimits records the limits an agent node runs under, before its
// first model call. A resumed run reads them back (Prior) instead of
// recomputing them, so that a changed environment
// (AGENTLAB_MAX_AGENT_STEPS) cannot make it stop in another place.
const EvAgentLimits = "agent.limits"

// Agent loop events.
const (
	EvAgentStep       = "agent.step"       // one model call: {step, tool_calls, usage}
	EvAgentWarning    = "agent.warning"    // the model was warned before a limit: {limit, sentence}
	EvAgentCompressed = "agent.compressed" // old tool results were compressed: {results, tokens_before, tokens_after}
	EvAgentStopped    = "agent.stopped"    // the loop ended: {reason, sentence, steps}
	EvPermission      = "permission.decided"
)

// DefaultAgentSteps is the step backstop when nothing sets a lower one.
const DefaultAgentSteps = 100

// agentLimits are the limits of one agent loop, fixed when it starts.
type agentLimits struct {
	MaxSteps        int     `json:"max_steps"`
	Tokens          int     `json:"tokens,omitempty"`   // 0: no token budget
	CostUSD         float64 `json:"cost_usd,omitempty"` // 0: no cost budget
	ContextWindow   int     `json:"context_window"`
	CompressAt      float64 `json:"compress_at"` // fraction of the window; 0: never
	WrapUpAt        float64 `json:"wrap_up_at"`  // fraction of the window
	NoProgressSteps int     `json:"no_progress_steps"`
	RepeatCall      string  `json:"repeat_call"` // reuse_result|stop
	KeepRecent      int     `json:"keep_recent"` // tool results never compressed
	ResultChars     int     `json:"result_chars"`
}

// resolveLimits combines the preset's guardrails, the node's max_steps
// and budget, and the host's cap: each limit is the strictest of those
// that set it.
func resolveLimits(a presets.Agent, spec map[string]any, h *Host) agentLimits {
	l := agentLimits{
		MaxSteps: DefaultAgentSteps, Tokens: a.MaxTokens, CostUSD: a.MaxCostUSD,
		ContextWindow: h.ContextWindow, CompressAt: 0.60, WrapUpAt: 0.85,
		NoProgressSteps: 3, RepeatCall: "reuse_result", KeepRecent: 4,
	}
	if a.MaxSteps > 0 {
		l.MaxSteps = min(l.MaxSteps, a.MaxSteps)
	}
	if n, ok := spec["max_steps"].(float64); ok && n >= 1 {
		l.MaxSteps = min(l.MaxSteps, int(n))
	}
	if h.MaxAgentSteps > 0 {
		l.MaxSteps = min(l.MaxSteps, h.MaxAgentSteps)
	}
	if b, ok := spec["budget"].(map[string]any); ok {
		if n, ok := b["tokens"].(float64); ok && n > 0 && (l.Tokens == 0 || int(n) < l.Tokens) {
			l.Tokens = int(n)
		}
		if c, ok := b["cost_usd"].(float64); ok && c > 0 && (l.CostUSD == 0 || c < l.CostUSD) {
			l.CostUSD = c
		}
	}
	if l.ContextWindow <= 0 {
		l.ContextWindow = DefaultContextWindow
	}
	// The preset decides compaction: a preset without (or with a disabled)
	// compaction row never compresses.
	l.CompressAt = a.CompressAt
	if a.WrapUpAt > 0 {
		l.WrapUpAt = a.WrapUpAt
	}
	if a.NoProgressSteps > 0 {
		l.NoProgressSteps = a.NoProgressSteps
	}
	if a.RepeatCall != "" {
		l.RepeatCall = a.RepeatCall
	}
	if a.KeepRecent > 0 {
		l.KeepRecent = a.KeepRecent
	}
	// A tool result may fill at most a tenth of the window (4 characters a
	// token), and never more than 16,000 characters.
	l.ResultChars = min(16000, max(400, l.ContextWindow*4/10))
	return l
}

// priorLimits returns the limits an earlier attempt recorded for node.
func (p *Prior) priorLimits(node string) (agentLimits, bool) {
	if p == nil || p.limits == nil {
		return agentLimits{}, false
	}
	raw, ok := p.limits[node]
	if !ok {
		return agentLimits{}, false
	}
	var l agentLimits
	if err := json.Unmarshal(raw, &l); err != nil || l.MaxSteps < 1 || l.ContextWindow < 1 {
		return agentLimits{}, false
	}
	return l, true
}

// WarnCostUnknown is the node.warning code of an agent with a cost budget
// whose model has no price: the budget cannot see that model's spending.
const WarnCostUnknown = "W-AGENT-COST-UNKNOWN"

// plus adds v to u; the cost is unknown when either part's is.
func (u Usage) plus(v Usage) Usage {
	return Usage{
		InputTokens: u.InputTokens + v.InputTokens, OutputTokens: u.OutputTokens + v.OutputTokens,
		CostUSD: u.CostUSD + v.CostUSD, CostUnknown: u.CostUnknown || v.CostUnknown,
	}
}

package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/presets"
	"github.com/agentlab/agentlab/run/tools"
)

func init() { registerExecutor("agent", executor{leaf: true, run: execAgent}) }

// CodeAgentPresentation marks a warning about code-mode presentation: a
// PTC_* setting that was invalid and fell back (see docs/ptc.md).
const CodeAgentPresentation = "W-AGENT-PTC"

// execAgent runs an agent node: a loop of model calls and tool calls
// (runLoop) under the limits of the flow's preset, the node's own
// max_steps and budget, and the host's cap. The system prompt is the
// preset's persona prefix followed by the node's `system` (unless the
// persona is complete). The output is {text, json?, model, usage, steps,
// tool_calls, stop: {reason, sentence}}; with cite_fields every json
// field is {value, source} checked against the run's snapshots.
func execAgent(ctx context.Context, t *task) (any, effects, error) {
	n := t.node
	system, prompt, err := modelPrompts(t)
	if err != nil {
		return nil, effects{}, err
	}
	a := presets.Effective(t.presetRows())
	system = personaSystem(a, system)
	names, explicit := agentToolNames(n, a)
	ts, err := newToolset(t, t.id, names, explicit, nodeRules(n))
	if err != nil {
		return nil, effects{}, err
	}
	limits, ok := t.r.prior.priorLimits(t.id)
	if !ok {
		limits = resolveLimits(a, n.Spec, &t.r.cfg.Host)
	}
	decls := make([]string, len(ts.decls))
	for i, d := range ts.decls {
		decls[i] = d.Name
	}
	if err := t.emit(pendingEvent{EvAgentLimits, t.id, map[string]any{
		"max_steps": limits.MaxSteps, "tokens": limits.Tokens, "cost_usd": limits.CostUSD,
		"context_window": limits.ContextWindow, "compress_at": limits.CompressAt, "wrap_up_at": limits.WrapUpAt,
		"no_progress_steps": limits.NoProgressSteps, "repeat_call": limits.RepeatCall, "keep_recent": limits.KeepRecent,
		"result_chars": limits.ResultChars, "tools": decls,
	}}); err != nil {
		return nil, effects{}, err
	}
	code, err := t.setupCodeMode(n.Str("presentation"), a, ts)
	if err != nil {
		return nil, effects{}, err
	}
	schema := n.Map("output_schema")
	cite := n.Bool("cite_fields") && schema != nil
	res, err := t.runLoop(ctx, loopSpec{
		modelID: t.modelID(), kind: "agent", model: modelName(t), system: system, prompt: prompt,
		schema: schema, cite: cite, limits: limits, tools: ts, emit: t.emit, code: code,
		onToken: func(tok string) { t.r.note(Update{Node: t.id, Type: n.Type, State: StateRunning, Token: tok}) },
	})
	if err != nil {
		return nil, effects{}, withUsage(err, res.usage)
	}
	out := map[string]any{
		"text": res.text, "model": res.model, "usage": res.usage, "steps": res.steps, "tool_calls": res.calls,
		"stop": map[string]any{"reason": res.reason, "sentence": res.sentence},
		// snapshots lists the Q… ids the agent's queries produced, so that a
		// report node downstream may cite them.
		"snapshots": nonNil(res.snapshots),
	}
	if res.hasJSON {
		v := res.json
		if cite {
			var warns []string
			v, warns = checkCitations(v, t.r)
			for _, w := range warns {
				if err := t.warn(CodeCite, "%s", w); err != nil {
					return nil, effects{}, err
				}
			}
		}
		out["json"] = v
	} else if strings.TrimSpace(res.text) == "" {
		return nil, effects{}, withUsage(fmt.Errorf("node %q: the agent stopped without an answer: %s", t.id, res.sentence), res.usage)
	}
	return out, effects{}, nil
}

// personaSystem puts the preset's persona before the node's system
// prompt; a complete persona is the whole system prompt.
func personaSystem(a presets.Agent, system string) string {
	switch {
	case a.PersonaComplete && a.PersonaPrefix != "":
		return a.PersonaPrefix
	case a.PersonaPrefix == "":
		return system
	case system == "":
		return a.PersonaPrefix
	}
	return a.PersonaPrefix + "\n\n" + system
}

// presetRows are the preset rows of the plan the node belongs to (a
// subflow has its own).
func (t *task) presetRows() []plan.PresetRow {
	if t.g != nil && t.g.plan != nil {
		return t.g.plan.Preset.Rows
	}
	return t.r.cfg.Plan.Preset.Rows
}

// checkAgents refuses, before any node runs, agents (and supervisor
// workers) that list a tool that writes, and supervisors outside
// exploratory runs.
func checkAgents(cfg Config) error {
	var errs []string
	seen := map[*plan.Plan]bool{}
	var walk func(p *plan.Plan, nodes []plan.Node, prefix string)
	walk = func(p *plan.Plan, nodes []plan.Node, prefix string) {
		for i := range nodes {
			n := &nodes[i]
			id := prefix + n.ID
			switch n.Type {
			case "agent":
				names, _ := agentToolNames(n, presets.Effective(p.Preset.Rows))
				if msg := writeTools(cfg.Host.Tools, names); msg != "" {
					errs = append(errs, fmt.Sprintf("agent %q lists %s; agents may only use read tools — call it from a `type: tool` node instead", id, msg))
				}
			case "supervisor":
				if cfg.Kind == "formal" || (p.Tier != "" && p.Tier != plan.TierExploratory) {
					errs = append(errs, fmt.Sprintf("supervisor %q runs only in exploratory runs (this plan is %s, the run %s); replace it with agent nodes wired in the graph", id, p.Tier, orDefault(cfg.Kind, "exploratory")))
				}
				for _, w := range workersOf(n) {
					if msg := writeTools(cfg.Host.Tools, w.tools); msg != "" {
						errs = append(errs, fmt.Sprintf("supervisor %q worker %q lists %s; workers may only use read tools", id, w.id, msg))
					}
				}
			}
			if n.Body != nil {
				walk(p, n.Body.Nodes, id+"[].")
			}
		}
	}
	var walkPlan func(p *plan.Plan, prefix string)
	walkPlan = func(p *plan.Plan, prefix string) {
		if p == nil || seen[p] {
			return
		}
		seen[p] = true
		walk(p, p.Nodes, prefix)
		for _, sub := range p.Subflows {
			walkPlan(sub, prefix+"subflow "+sub.Name+": ")
		}
	}
	walkPlan(cfg.Plan, "")
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(errs, "\n"))
}

// writeTools names the tools of names that write, per the registry.
func writeTools(reg *tools.Registry, names []string) string {
	if reg == nil {
		return ""
	}
	var w []string
	for _, name := range names {
		if tl, ok := reg.Get(name); ok && tl.Info().Effect == tools.Write {
			w = append(w, fmt.Sprintf("%q (effect: write)", name))
		}
	}
	return strings.Join(w, ", ")
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

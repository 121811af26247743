package engine

import "github.com/agentlab/agentlab/issuance"

// uncontracted checks a run output without a contract when another output
// of the run carries one, so that the run's tier speaks for every output
// it issues: its fields are read like a contract's (a report's markers
// stay markers), against no metric, and any quantity in them — a model's
// figure in a side output — makes its verdict, and so the run's tier,
// degraded. Nothing is recorded when it carries none, or when no output
// of the run has a contract (such a run has no tier to protect), or for
// an output inside a subflow or loop, which is no output of the run.
func (t *task) uncontracted() (map[string]any, error) {
	p := t.r.cfg.Plan
	if n := findNode(p, t.id); n == nil || n.Type != "output" {
		return nil, nil
	}
	contracted := false
	for i := range p.Nodes {
		if p.Nodes[i].Type == "output" && p.Nodes[i].Map("contract") != nil {
			contracted = true
			break
		}
	}
	if !contracted {
		return nil, nil
	}
	text, parts, markers, err := t.contractText("", "")
	if err != nil {
		return nil, err
	}
	res := issuance.Check(text, nil, issuance.Options{Parts: parts, Markers: markers})
	if res.Untraced == 0 && res.Tier == issuance.TierFormal {
		return nil, nil
	}
	if res.Tier == issuance.TierFormal || res.Tier == issuance.TierWithheld {
		res.Tier = issuance.TierDegraded
	}
	res.Reasons = append([]string{"no contract checks this output, so no number in it is traced"}, res.Reasons...)
	ev := t.r.evidence()
	ev.mu.Lock()
	ev.tiers[t.id] = res.Tier
	ev.mu.Unlock()
	rec := map[string]any{"tier": res.Tier, "issuance": res, "uncontracted": true}
	if len(parts) > 0 {
		rec["read"] = parts
	}
	return rec, nil
}

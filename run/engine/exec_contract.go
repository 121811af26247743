package engine

import (
	"fmt"
	"sort"

	"github.com/agentlab/agentlab/issuance"
	"github.com/agentlab/agentlab/plan"
)

// contract applies an output node's issuance contract {report_from,
// metrics_from, required_metrics, on_missing}: the issuance checker reads
// the report as its model wrote it (markers in place: a marker is a value
// the system fills from sealed evidence, so it is traced by construction,
// and [[m:x]] mentions metric x) and every field of the output (contract
// text in exec_contract_fields.go) against the metrics of metrics_from.
// numbers: strict on the report node makes any untraced number withhold
// the output. Violations the report node kept (on_violation: mark) other
// than bare numbers, which the checker sees itself, degrade it; a claim the
// judge found unsupported withholds it instead under judge.on_unsupported:
// withhold, and claims the judge's caps left unjudged degrade it. The
// verdict is recorded in the node.finished event and becomes (the worst
// over all contracted outputs) the run's tier. Without a contract it
// returns the check of an uncontracted output, or nil.
func (t *task) contract() (map[string]any, error) {
	c := t.node.Map("contract")
	if c == nil {
		return t.uncontracted() // exec_contract_uncontracted.go
	}
	str := func(k string) string { s, _ := c[k].(string); return s }
	reportFrom, metricsFrom := str("report_from"), str("metrics_from")
	var required []string
	if l, ok := c["required_metrics"].([]any); ok {
		for _, x := range l {
			if s, ok := x.(string); ok {
				required = append(required, s)
			}
		}
	}
	onMissing := str("on_missing")
	if onMissing == "" {
		onMissing = "withhold"
	}
	var source string
	var reasons []string
	violations := 0
	unsupported, unjudged := 0, 0
	onUnsupported := "degrade"
	strict := true
	if reportFrom != "" {
		out, ok := t.sc.node(reportFrom)
		m, _ := out.(map[string]any)
		if !ok || m == nil {
			reasons = append(reasons, fmt.Sprintf("report node %q did not finish, so there is no narrative to check", reportFrom))
		} else {
			source, _ = m["source"].(string)
			if source == "" {
				source, _ = m["text"].(string)
			}
			if v, ok := m["violations"].(float64); ok {
				violations = int(v)
			}
			if v, ok := m["unsupported"].(float64); ok {
				unsupported = int(v)
			}
			if v, ok := m["unjudged"].(float64); ok {
				unjudged = int(v)
			}
		}
		if rn := findNode(t.r.cfg.Plan, reportFrom); rn != nil {
			if rn.Str("numbers") == "lenient" {
				strict = false
			}
			if s, _ := rn.Map("judge")["on_unsupported"].(string); s != "" {
				onUnsupported = s
			}
		}
	}
	var metrics []issuance.Metric
	comparable := true
	if metricsFrom != "" {
		out, _ := t.sc.node(metricsFrom)
		m, _ := out.(map[string]any)
		mn := findNode(t.r.cfg.Plan, metricsFrom)
		if m == nil || mn == nil {
			reasons = append(reasons, fmt.Sprintf("metrics node %q did not finish, so no number can be traced", metricsFrom))
		} else if defs, _, err := metricDefs(t.r.cfg.Plan, mn); err == nil {
			reasons = append(reasons, untracedAtGoverned(t.r.cfg.Plan, metricsFrom, defs)...)
			if r := incomparable(mn); r != "" {
				reasons = append(reasons, r)
				comparable = false
			}
			names := make([]string, 0, len(defs))
			for k := range defs {
				names = append(names, k)
			}
			sort.Strings(names)
			for _, k := range names {
				v, ok := m[k].(float64)
				if !ok {
					continue
				}
				d := defs[k]
				metrics = append(metrics, issuance.Metric{Name: k, Value: v, Unit: d.Unit, Decimals: d.Decimals, Format: d.Format})
			}
		}
	}
	text, parts, markers, err := t.contractText(reportFrom, source)
	if err != nil {
		return nil, err
	}
	res := issuance.Check(text, metrics, issuance.Options{Strict: strict, Required: required, OnMissing: onMissing, Parts: parts, Markers: markers})
	bare := 0
	for _, n := range res.Numbers {
		if n.Ignored == nil && n.Matched == nil && n.Start < len(source) {
			bare++
		}
	}
	if other := violations - bare; other > 0 && res.Tier == issuance.TierFormal {
		res.Tier = issuance.TierDegraded
		res.Reasons = append(res.Reasons, fmt.Sprintf("report %q kept %d violation(s) of the citation rules (on_violation: mark)", reportFrom, other))
	}
	if unsupported > 0 && onUnsupported == "withhold" {
		res.Tier = issuance.TierWithheld
		res.Reasons = append(res.Reasons, fmt.Sprintf("the judge found %d claim(s) of report %q unsupported (judge.on_unsupported: withhold)", unsupported, reportFrom))
	}
	if unjudged > 0 {
		reasons = append(reasons, fmt.Sprintf("%d claim(s) of report %q were not judged: the judge's sentence, cost or time cap was reached", unjudged, reportFrom))
	}
	if len(reasons) > 0 {
		if res.Tier == issuance.TierFormal {
			res.Tier = issuance.TierDegraded
		}
		res.Reasons = append(res.Reasons, reasons...)
	}
	ev := t.r.evidence()
	ev.mu.Lock()
	ev.tiers[t.id] = res.Tier
	ev.mu.Unlock()
	rec := map[string]any{"report_from": reportFrom, "metrics_from": metricsFrom, "tier": res.Tier, "issuance": res}
	if len(parts) > 0 {
		rec["read"] = parts
	}
	if !comparable {
		rec["comparable"] = false
	}
	return rec, nil
}

// findNode finds a top-level node of p by id.
func findNode(p *plan.Plan, id string) *plan.Node {
	for i := range p.Nodes {
		if p.Nodes[i].ID == id {
			return &p.Nodes[i]
		}
	}
	return nil
}

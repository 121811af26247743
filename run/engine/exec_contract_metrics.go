package engine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agentlab/agentlab/compile/expr"
	"github.com/agentlab/agentlab/plan"
)

// untracedAtGoverned is the run-time side of gate G6: in a governed plan,
// a metric that does not trace to data (expr.Untraced: a literal, a
// model's text, anything derived from them) keeps the output from being
// formal, even when the plan was built without lint. It returns one reason
// per such metric.
func untracedAtGoverned(p *plan.Plan, metricsFrom string, defs map[string]plan.Metric) []string {
	if p.Tier != plan.TierGoverned {
		return nil
	}
	src := make(map[string]string, len(defs))
	for k, d := range defs {
		src[k] = d.Expr
	}
	bad := expr.Untraced(src, func(id string) bool {
		n := findNode(p, id)
		return n != nil && (n.Type == "merge" || n.Type == "tool" && strings.HasPrefix(n.Str("tool"), "db_query__"))
	})
	names := make([]string, 0, len(bad))
	for k := range bad {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make([]string, 0, len(names))
	for _, k := range names {
		out = append(out, fmt.Sprintf("metric %q of %q does not trace to data (G6): %s", k, metricsFrom, bad[k]))
	}
	return out
}

// incomparable says why the metrics of n cannot be compared with earlier
// runs ("" when they can): its card was upgraded with on_card_upgrade:
// incomparable, so its values follow a new definition. The metrics node
// records card.comparable: false; the contract makes it a reason of the
// verdict (which is then degraded), so that it reaches the run's tier
// reasons, the run JSON, issuance.json and report.html, not only an event.
func incomparable(n *plan.Node) string {
	up := cardUpgrade(n)
	if up == nil || up["on_card_upgrade"] != upgradeIncomparable {
		return ""
	}
	return fmt.Sprintf("card %s was upgraded to %s with on_card_upgrade: incomparable: metrics node %q computed the new definition, so its values are not comparable with runs of %s (comparable: false)",
		up["pinned"], up["resolved"], n.ID, up["pinned"])
}

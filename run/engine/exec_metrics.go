package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/compile/expr"
	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/plan"
)

func init() {
	registerExecutor("metrics", executor{leaf: true, run: execMetrics})
}

// Upgrade policies of a metrics node whose pinned card was upgraded.
const (
	upgradeRecompute    = "recompute"
	upgradeDual         = "dual"
	upgradeIncomparable = "incomparable"
)

// execMetrics computes the metrics of an inline `metrics:` map or of a
// pinned card (plan.Cards), each over the snapshots of upstream nodes
// (col, cell, rows) and over the other metrics by name, in dependency
// order. Every value records its formula, the substituted formula (see
// substitute) and the exact cells it read, so that it can be recomputed
// from the sealed snapshots alone. The output is {metric: value}; the
// MetricSet is stored as the node's metrics_artifact.
func execMetrics(_ context.Context, t *task) (any, effects, error) {
	n := t.node
	defs, cardKey, err := metricDefs(t.r.cfg.Plan, n)
	if err != nil {
		return nil, effects{}, fmt.Errorf("node %q: %v", t.id, err)
	}
	rec := map[string]any{}
	set := &evidence.MetricSet{Node: t.id}
	env := t.sc.env()
	snapOf := snapshotIDs(env)
	values, err := computeMetrics(defs, cardKey, env, snapOf, set)
	if err != nil {
		return nil, effects{}, fmt.Errorf("node %q: %v", t.id, err)
	}
	if up := cardUpgrade(n); up != nil {
		rec["card"] = up
		policy, _ := up["on_card_upgrade"].(string)
		switch policy {
		case "":
			if t.r.cfg.Kind == "formal" {
				return nil, effects{}, fmt.Errorf("node %q: card %s was upgraded to %s since it was pinned; a formal run needs on_card_upgrade: recompute|dual|incomparable on the node (or pin the new version)", t.id, up["pinned"], cardKey)
			}
			if err := t.warn("W-METRICS-CARD-UPGRADED", "card %s was upgraded to %s; the metrics were computed with %s", up["pinned"], cardKey, cardKey); err != nil {
				return nil, effects{}, err
			}
		case upgradeDual:
			old, ok := t.r.cfg.Plan.Cards[up["pinned"].(string)]
			if !ok {
				up["dual"] = false
				if err := t.warn("W-METRICS-DUAL-UNAVAILABLE", "on_card_upgrade: dual, but the plan holds no definition of %s; only %s was computed", up["pinned"], cardKey); err != nil {
					return nil, effects{}, err
				}
				break
			}
			oldDefs := map[string]plan.Metric{}
			for k, m := range old.Metrics {
				oldDefs[k] = m
			}
			oldSet := &evidence.MetricSet{Node: t.id}
			if _, err := computeMetrics(oldDefs, up["pinned"].(string), env, snapOf, oldSet); err != nil {
				return nil, effects{}, fmt.Errorf("node %q: the pinned card %s: %v", t.id, up["pinned"], err)
			}
			ver := strings.TrimPrefix(up["pinned"].(string), old.Name+"@")
			for _, mv := range oldSet.Metrics {
				mv.Name += "@" + ver
				// The pinned version's metrics read each other, not the
				// current version's metrics of the same name.
				for i, u := range mv.Uses {
					mv.Uses[i] = u + "@" + ver
				}
				set.Metrics = append(set.Metrics, mv)
			}
			up["dual"] = true
		case upgradeIncomparable:
			up["comparable"] = false
		}
	}
	art, err := storeJSON(t, set)
	if err != nil {
		return nil, effects{}, err
	}
	rec["metrics_artifact"] = art
	t.r.evidence().mu.Lock()
	t.r.evidence().metrics[t.id] = set
	t.r.evidence().mu.Unlock()
	out := make(map[string]any, len(values))
	for k, v := range values {
		out[k] = v
	}
	return out, effects{record: rec}, nil
}

// metricDefs returns the definitions a metrics node computes and, for a
// card, its resolved "name@version".
func metricDefs(p *plan.Plan, n *plan.Node) (map[string]plan.Metric, string, error) {
	if ref := n.Str("card"); ref != "" {
		key := n.Str("card_resolved")
		if key == "" {
			key = ref
		}
		c, ok := p.Cards[key]
		if !ok {
			return nil, "", fmt.Errorf("metric card %s is not in the plan; recompile the flow", key)
		}
		return c.Metrics, key, nil
	}
	raw := n.Map("metrics")
	if len(raw) == 0 {
		return nil, "", fmt.Errorf("it has neither card: nor metrics:")
	}
	defs := make(map[string]plan.Metric, len(raw))
	for name, v := range raw {
		m, _ := v.(map[string]any)
		var d plan.Metric
		d.Expr, _ = m["expr"].(string)
		d.Unit, _ = m["unit"].(string)
		d.Format, _ = m["format"].(string)
		if x, ok := m["decimals"].(float64); ok {
			i := int(x)
			d.Decimals = &i
		} else if x, ok := m["decimals"].(int64); ok {
			i := int(x)
			d.Decimals = &i
		} else if x, ok := m["decimals"].(int); ok {
			d.Decimals = &x
		}
		defs[name] = d
	}
	return defs, "", nil
}

// cardUpgrade describes a pinned card that compile resolved to a newer
// version, or nil.
func cardUpgrade(n *plan.Node) map[string]any {
	pinned, resolved := n.Str("card"), n.Str("card_resolved")
	if pinned == "" || resolved == "" || pinned == resolved || !strings.Contains(pinned, "@") {
		return nil
	}
	return map[string]any{"pinned": pinned, "resolved": resolved, "on_card_upgrade": n.Str("on_card_upgrade")}
}

// computeMetrics evaluates defs in dependency order into set and returns
// the values by name. A cycle, an unknown metric or a failed expression is
// an error naming the metric.
func computeMetrics(defs map[string]plan.Metric, card string, env map[string]any, snapOf map[string]string, set *evidence.MetricSet) (map[string]float64, error) {
	progs := make(map[string]*expr.Program, len(defs))
	names := make([]string, 0, len(defs))
	for name := range defs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p, err := expr.Compile(defs[name].Expr, expr.Metric)
		if err != nil {
			return nil, fmt.Errorf("metric %q: %v", name, err)
		}
		progs[name] = p
	}
	order, err := metricOrder(names, progs)
	if err != nil {
		return nil, err
	}
	values := make(map[string]float64, len(defs))
	for _, name := range order {
		d, p := defs[name], progs[name]
		var cells []evidence.CellRef
		v, err := p.EvalMetric(env, values, func(c expr.Cell) {
			cells = append(cells, evidence.CellRef{Snapshot: snapOf[c.Node], Node: c.Node, Row: c.Row, Column: c.Column, Value: cellValue(c.Value)})
		})
		if err != nil {
			return nil, fmt.Errorf("metric %q (%s): %v", name, d.Expr, err)
		}
		values[name] = v
		val := v
		if cells == nil {
			cells = []evidence.CellRef{}
		}
		set.Metrics = append(set.Metrics, evidence.MetricValue{
			Name: name, Value: &val, Unit: d.Unit, Decimals: d.Decimals, Format: d.Format, Card: card,
			Formula: d.Expr, Substituted: substitute(d.Expr, env, values, v), Cells: cells, Uses: p.Metrics(),
		})
	}
	return values, nil
}

// metricOrder sorts metrics so that each comes after the metrics it reads
// (ties by name); a cycle is reported with its path.
func metricOrder(names []string, progs map[string]*expr.Program) ([]string, error) {
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var order []string
	var path []string
	var visit func(n string) error
	visit = func(n string) error {
		switch color[n] {
		case black:
			return nil
		case grey:
			i := 0
			for path[i] != n {
				i++
			}
			cyc := append(append([]string(nil), path[i:]...), n)
			return fmt.Errorf("metrics %s depend on each other in a cycle; one of them must be computed from data, not from the others", strings.Join(cyc, " -> "))
		}
		color[n] = grey
		path = append(path, n)
		for _, dep := range progs[n].Metrics() {
			if _, ok := progs[dep]; !ok {
				return fmt.Errorf("metric %q reads metric %q, which this node does not define", n, dep)
			}
			if err := visit(dep); err != nil {
				return err
			}
		}
		path = path[:len(path)-1]
		color[n] = black
		order = append(order, n)
		return nil
	}
	for _, n := range names {
		if err := visit(n); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// snapshotIDs maps the node of every snapshot object in scope to its Q id.
func snapshotIDs(env map[string]any) map[string]string {
	out := map[string]string{}
	nodes, _ := env["nodes"].(map[string]any)
	for _, v := range nodes {
		m, _ := v.(map[string]any)
		node, _ := m["node"].(string)
		id, _ := m["snapshot"].(string)
		if node != "" && id != "" {
			out[node] = id
		}
	}
	return out
}

// cellValue normalises a traced value for the canonical artifact: whole
// float64 values from JSON become int64, as the snapshot stores them.
func cellValue(v any) any {
	switch x := v.(type) {
	case int:
		return int64(x)
	case float64:
		if x == float64(int64(x)) && x < 1<<53 && x > -(1<<53) {
			return int64(x)
		}
	}
	return v
}

// storeJSON stores v as a canonical JSON artifact and returns its id.
func storeJSON(t *task, v any) (string, error) {
	b, err := canon.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("node %q: %v", t.id, err)
	}
	h, err := t.r.cfg.Recorder.PutArtifact(b)
	if err != nil {
		return "", fmt.Errorf("node %q: storing its artifact: %v", t.id, err)
	}
	return h.String(), nil
}

package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/agentlab/agentlab/evidence"
)

func init() {
	registerExecutor("report", executor{leaf: true, run: execReport})
}

// execReport asks the model (Kind "report"), whose system prompt carries
// the citation guide and the evidence catalog (evidence_catalog.go), for a
// narrative with citation markers, checks it (checkReport) and asks
// for a rewrite, feeding the violations back, up to max_repairs times.
// Violations left after that fail the node (on_violation: fail) or are
// recorded in the report (mark). With claims: judge every conclusion is
// judged by a model (report_judge.go).
// The ReportArtifact holds the accepted source; the output is
// {text: filled plain text, source, violations, model, usage}, plus
// {unsupported, unjudged} with a judge.
func execReport(ctx context.Context, t *task) (any, effects, error) {
	n := t.node
	system, prompt, err := modelPrompts(t)
	if err != nil {
		return nil, effects{}, err
	}
	if system != "" {
		system += "\n\n"
	}
	c := t.citable()
	catalog := evidenceCatalog(c)
	system += citationGuide(c) + "\n\n" + catalog
	catalogArt, err := t.r.cfg.Recorder.PutArtifact([]byte(catalog))
	if err != nil {
		return nil, effects{}, fmt.Errorf("node %q: storing its evidence catalog: %v", t.id, err)
	}
	strict := n.Str("numbers") != "lenient"
	claims := n.Str("claims")
	maxRepairs := 1
	if _, ok := n.Spec["max_repairs"]; ok {
		maxRepairs = n.Int("max_repairs")
	}
	writer := modelName(t)
	msgs := []Message{{Role: "user", Content: prompt}}
	var usage Usage
	var text, model string
	var vs []evidence.Violation
	var cl []evidence.Claim
	attempts := 0
	for {
		req := ModelRequest{
			Node: t.modelID(), Call: t.r.nextCall(t.modelID()), Kind: "report",
			Model: writer, System: system, Seed: t.r.cfg.Seed, Messages: msgs,
			MaxTokens: n.Int("max_tokens"), Evidence: c.forModel(),
		}
		resp, err := t.r.cfg.Model.Complete(ctx, req, func(tok string) {
			t.r.note(Update{Node: t.id, Type: n.Type, State: StateRunning, Token: tok})
		})
		if err != nil {
			return nil, effects{}, withUsage(fmt.Errorf("node %q: the model call failed: %w", t.id, err), addUsage(usage, billedBy(err)))
		}
		attempts++
		usage = addUsage(usage, resp.Usage)
		text, model = resp.Text, resp.Model
		vs, cl = checkReport(text, c, strict, claims == "require_citation")
		if len(vs) == 0 || attempts > maxRepairs {
			break
		}
		if err := t.emit(pendingEvent{"report.repair", t.id, map[string]any{"attempt": attempts, "violations": len(vs)}}); err != nil {
			return nil, effects{}, err
		}
		msgs = append(msgs, Message{Role: "assistant", Content: text}, Message{Role: "user", Content: repairMessage(text, vs, c)})
	}
	var judged *judgeResult
	if claims == "judge" {
		shown := writer // the name in warnings: the model that answered when none is named
		if shown == "" {
			shown = model
		}
		jr, err := t.judge(ctx, text, c, cl, writer, shown)
		if err != nil {
			return nil, effects{}, withUsage(err, addUsage(usage, jr.used))
		}
		usage = addUsage(usage, jr.used)
		vs = append(vs, jr.violations...)
		judged = &jr
		sort.SliceStable(vs, func(i, j int) bool { return vs[i].Start < vs[j].Start })
	}
	if len(vs) > 0 && n.Str("on_violation") != "mark" {
		list, _ := violationList(vs, c)
		return nil, effects{}, withUsage(fmt.Errorf("node %q: the report still breaks the citation rules after %d attempt(s) (max_repairs: %d):\n%s(set on_violation: mark to keep it with the violations marked, or raise max_repairs)",
			t.id, attempts, maxRepairs, list), usage)
	}
	art := evidence.ReportArtifact{Node: t.id, Source: text, Attempts: attempts, Violations: vs, Claims: cl}
	id, err := storeJSON(t, art)
	if err != nil {
		return nil, effects{}, err
	}
	out := map[string]any{
		"text":       fill(text, c),
		"source":     text,
		"violations": len(vs),
		"model":      model,
		"usage":      usage,
	}
	if judged != nil {
		// What the issuance contract needs to apply judge.on_unsupported and
		// to degrade an output whose claims were not all judged.
		out["unsupported"] = len(judged.violations)
		out["unjudged"] = judged.unjudged
	}
	return out, effects{record: map[string]any{"report_artifact": id, "catalog_artifact": catalogArt.String()}}, nil
}

// forModel lists the citable evidence for the model request.
func (c *citable) forModel() *Evidence {
	ev := &Evidence{}
	for _, name := range c.mnames {
		mv := c.metrics[name]
		if mv.Value == nil {
			continue
		}
		ev.Metrics = append(ev.Metrics, EvidenceMetric{Name: name, Value: *mv.Value, Unit: mv.Unit})
	}
	for _, id := range c.snapIDs {
		s := c.snaps[id]
		ev.Snapshots = append(ev.Snapshots, EvidenceSnapshot{ID: id, Node: s.Node, Columns: append([]string(nil), s.Columns...), Rows: len(s.Rows)})
	}
	ins := make([]string, 0, len(c.inputs))
	for k := range c.inputs {
		ins = append(ins, k)
	}
	sort.Strings(ins)
	ev.Inputs = ins
	for _, id := range c.hitIDs {
		ev.Knowledge = append(ev.Knowledge, EvidenceHit{ID: id, Text: c.hits[id].Text})
	}
	return ev
}

// citable gathers what the report node may cite: the metrics of the
// metrics nodes upstream of it (a later one shadows an earlier metric of
// the same name), the snapshots of upstream tool and merge nodes, the
// hits of upstream retrieve nodes and the inputs. Only
// upstream nodes count, so that what a report may cite never depends on
// how fast a parallel branch ran.
func (t *task) citable() *citable {
	c := &citable{metrics: map[string]*evidence.MetricValue{}, snaps: map[string]*evidence.Snapshot{},
		hits: map[string]evidence.KnowledgeHit{}, inputs: t.sc.input}
	c.recordedBy = func(id string) string {
		if s, ok := t.r.snapshot(id); ok {
			return s.Node
		}
		return ""
	}
	for _, gn := range t.upstream() {
		out, ok := t.sc.node(gn.n.ID)
		if !ok {
			continue
		}
		m, _ := out.(map[string]any)
		switch gn.n.Type {
		case "metrics":
			defs, _, err := metricDefs(t.r.cfg.Plan, gn.n)
			if err != nil {
				continue
			}
			for name, d := range defs {
				if v, ok := m[name].(float64); ok {
					c.metrics[name] = metricFromDef(name, d, v)
				}
			}
			// The pinned version's values of a dual card (gmv@1) are
			// citable as [[m:gmv@1]].
			ev := t.r.evidence()
			ev.mu.Lock()
			if set := ev.metrics[gn.n.ID]; set != nil {
				for i := range set.Metrics {
					if mv := &set.Metrics[i]; strings.Contains(mv.Name, "@") && mv.Value != nil {
						c.metrics[mv.Name] = mv
					}
				}
			}
			ev.mu.Unlock()
		case "retrieve":
			hits, _ := m["hits"].([]any)
			for _, h := range hits {
				hm, _ := h.(map[string]any)
				id, _ := hm["id"].(string)
				if kh, ok := t.r.hit(id); ok {
					if _, dup := c.hits[id]; !dup {
						c.hitIDs = append(c.hitIDs, id)
					}
					c.hits[id] = kh
				}
			}
		default:
			ids := []any{m["snapshot"]}
			if l, ok := m["snapshots"].([]any); ok { // agent and supervisor nodes
				ids = append(ids, l...)
			}
			for _, x := range ids {
				id, _ := x.(string)
				if id == "" {
					continue
				}
				if s, ok := t.r.snapshot(id); ok {
					if _, dup := c.snaps[id]; !dup {
						c.snapIDs = append(c.snapIDs, id)
					}
					c.snaps[id] = s
				}
			}
		}
	}
	for k := range c.metrics {
		c.mnames = append(c.mnames, k)
	}
	sort.Strings(c.mnames)
	sort.Slice(c.snapIDs, func(i, j int) bool { return idLess(c.snapIDs[i], c.snapIDs[j]) })
	sort.Slice(c.hitIDs, func(i, j int) bool { return idLess(c.hitIDs[i], c.hitIDs[j]) })
	return c
}

// idLess orders Q2 before Q10.
func idLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// upstream returns the nodes of t's graph that precede it, in commit order.
func (t *task) upstream() []*gnode {
	if t.g == nil || t.gn == nil {
		return nil
	}
	seen := map[*gnode]bool{}
	var walk func(gn *gnode)
	walk = func(gn *gnode) {
		for _, e := range gn.in {
			p := t.g.ix.byID[e.From]
			if p != nil && !seen[p] {
				seen[p] = true
				walk(p)
			}
		}
	}
	walk(t.gn)
	out := make([]*gnode, 0, len(seen))
	for gn := range seen {
		out = append(out, gn)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].pos < out[j].pos })
	return out
}

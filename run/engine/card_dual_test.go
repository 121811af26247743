package engine

import (
	"testing"

	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/plan"
)

// TestCardDualBothVersions: with on_card_upgrade: dual and both versions
// in the plan, the metric set holds the current metrics and the pinned
// version's metrics as name@1, each version's derived metrics computed from
// that version's own values (half@1 reads gmv@1's definition, not gmv's).
func TestCardDualBothVersions(t *testing.T) {
	p := mkPlan([]plan.Node{
		query("pull", "db_query__sales", "SELECT region, gmv FROM sales"),
		nd("kpi", "metrics", "card", "gmvcard@1", "card_resolved", "gmvcard@2", "on_card_upgrade", upgradeDual),
	}, edges("pull -> kpi"))
	p.Cards = map[string]plan.Card{
		"gmvcard@2": {Name: "gmvcard", Version: 2, Metrics: map[string]plan.Metric{
			"gmv": {Expr: "sum(col(nodes.pull, 'gmv'))"}, "half": {Expr: "gmv / 2"}}},
		"gmvcard@1": {Name: "gmvcard", Version: 1, Metrics: map[string]plan.Metric{
			"gmv": {Expr: "max(col(nodes.pull, 'gmv'))"}, "half": {Expr: "gmv / 2"}}},
	}
	res, rec := run(t, p, nil, withDB(salesDB()), func(c *Config) { c.Kind = "formal" })
	if res.Status != StatusSucceeded {
		t.Fatal(res.Err)
	}
	if w := rec.ofType(EvNodeWarning); len(w) != 0 {
		t.Errorf("warnings: %v", w)
	}
	d := finishedData(t, rec, "kpi")
	if card, _ := d["card"].(map[string]any); card["dual"] != true {
		t.Errorf("card record = %v", d["card"])
	}
	set := artifact[evidence.MetricSet](t, rec, d["metrics_artifact"].(string))
	got := map[string]evidence.MetricValue{}
	for _, mv := range set.Metrics {
		got[mv.Name] = mv
	}
	for name, want := range map[string]struct {
		v    float64
		card string
		sub  string
	}{
		"gmv":    {2000, "gmvcard@2", ""},
		"half":   {1000, "gmvcard@2", "(2000 / 2)"},
		"gmv@1":  {1200, "gmvcard@1", ""},
		"half@1": {600, "gmvcard@1", "(1200 / 2)"},
	} {
		mv, ok := got[name]
		if !ok || mv.Value == nil || *mv.Value != want.v || mv.Card != want.card || (want.sub != "" && mv.Substituted != want.sub) {
			t.Errorf("%s = %+v, want %v from %s (%s)", name, mv, want.v, want.card, want.sub)
		}
	}
	if u := got["half@1"].Uses; len(u) != 1 || u[0] != "gmv@1" {
		t.Errorf("half@1 uses %v, want [gmv@1]", u)
	}
	if u := got["half"].Uses; len(u) != 1 || u[0] != "gmv" {
		t.Errorf("half uses %v, want [gmv]", u)
	}
	if len(set.Metrics) != 4 {
		t.Errorf("%d metrics, want 4", len(set.Metrics))
	}
}

// TestCardDualPinnedVersionCitable: a model that cites the pinned
// version's value of a dual card ([[m:gmv@1]]) gets it filled in, and the
// report is formal; a version the card never computed is unresolved.
func TestCardDualPinnedVersionCitable(t *testing.T) {
	p := mkPlan([]plan.Node{
		query("pull", "db_query__sales", "SELECT region, gmv FROM sales"),
		nd("kpi", "metrics", "card", "gmvcard@1", "card_resolved", "gmvcard@2", "on_card_upgrade", upgradeDual),
		nd("brief", "report", "prompt", "Write.", "numbers", "strict", "on_violation", "fail", "max_repairs", 0),
		nd("out", "output", "fields", map[string]any{"text": "{{ nodes.brief.text }}"},
			"contract", map[string]any{"report_from": "brief", "metrics_from": "kpi", "required_metrics": []any{"gmv"}}),
	}, edges("pull -> kpi", "kpi -> brief", "brief -> out"))
	p.Cards = map[string]plan.Card{
		"gmvcard@2": {Name: "gmvcard", Version: 2, Metrics: map[string]plan.Metric{"gmv": {Expr: "sum(col(nodes.pull, 'gmv'))"}}},
		"gmvcard@1": {Name: "gmvcard", Version: 1, Metrics: map[string]plan.Metric{"gmv": {Expr: "max(col(nodes.pull, 'gmv'))"}}},
	}
	res, rec := run(t, p, nil, withDB(salesDB()), withModel(scripted([]string{"GMV is [[m:gmv]] under the new definition, [[m:gmv@1]] under the old."}, "")))
	if res.Status != StatusSucceeded {
		t.Fatal(res.Err)
	}
	if got := finishedData(t, rec, "brief")["output"].(map[string]any)["text"]; got != "GMV is 2,000 under the new definition, 1,200 under the old." {
		t.Errorf("text %q", got)
	}
	if res.Tier != "formal" {
		t.Errorf("tier %q", res.Tier)
	}
	res, _ = run(t, p, nil, withDB(salesDB()), withModel(scripted([]string{"GMV was [[m:gmv@3]]."}, "")))
	if res.Status != StatusFailed {
		t.Errorf("gmv@3: %s", res.Status)
	}
}

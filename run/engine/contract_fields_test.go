package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/plan"
)

// fieldsPlan: a query, metrics, an llm node whose text the scripted model
// writes, and an output carrying the given fields under the given contract
// (no report node).
func fieldsPlan(fields, contract map[string]any) *plan.Plan {
	p := mkPlan([]plan.Node{
		query("pull", "db_query__sales", "SELECT region, gmv FROM sales"),
		nd("kpi", "metrics", "metrics", map[string]any{
			"gmv": map[string]any{"expr": "sum(col(nodes.pull, 'gmv'))", "unit": "CNY"},
		}),
		nd("say", "llm", "prompt", "Summarise the week."),
		nd("out", "output", "fields", fields, "contract", contract),
	}, edges("pull -> kpi", "kpi -> say", "say -> out"))
	p.Inputs = map[string]plan.Input{"week": {Type: "string"}}
	p.Sources = map[string]plan.Source{"sales": {Kind: "csv", Path: "x.csv"}}
	return p
}

// TestContractReadsFieldsWrittenByAMisbehavingModel: a model that writes
// figures straight into an output field, with no report node to check it,
// never gets that field issued formal; a field that carries a metric's
// value mentions it.
func TestContractReadsFieldsWrittenByAMisbehavingModel(t *testing.T) {
	for _, tc := range []struct {
		name     string
		answer   string
		fields   map[string]any
		contract map[string]any
		tier     string
		reason   string
	}{
		{"untraced growth in a model field", "GMV was 2,000 CNY, up 12.5%.",
			map[string]any{"summary": "{{ nodes.say.text }}"},
			map[string]any{"metrics_from": "kpi"}, "withheld", `"12.5%" in field summary at byte`},
		{"invented total in a model field", "GMV was 30,150 CNY.",
			map[string]any{"summary": "{{ nodes.say.text }}"},
			map[string]any{"metrics_from": "kpi"}, "withheld", `"30,150" in field summary`},
		{"literal number in a field", "No figures today.",
			map[string]any{"summary": "{{ nodes.say.text }}", "total": 4321},
			map[string]any{"metrics_from": "kpi"}, "withheld", `"4321" in field total`},
		{"traced figure in a model field", "GMV was 2,000 CNY.",
			map[string]any{"summary": "{{ nodes.say.text }}"},
			map[string]any{"metrics_from": "kpi"}, "formal", ""},
		{"required metric carried by a field", "No figures today.",
			map[string]any{"summary": "{{ nodes.say.text }}", "gmv": "{{ nodes.kpi.gmv }}"},
			map[string]any{"metrics_from": "kpi", "required_metrics": []any{"gmv"}}, "formal", ""},
		{"required metric in no field", "No figures today.",
			map[string]any{"summary": "{{ nodes.say.text }}"},
			map[string]any{"metrics_from": "kpi", "required_metrics": []any{"gmv"}}, "withheld", `required metric "gmv" is not mentioned`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newModel(func(_ context.Context, _ ModelRequest) (string, error) { return tc.answer, nil })
			res, rec := run(t, fieldsPlan(tc.fields, tc.contract), map[string]any{"week": "2026-W47"}, withDB(salesDB()), withModel(m))
			if res.Status != StatusSucceeded {
				t.Fatal(res.Err)
			}
			if res.Tier != tc.tier {
				t.Errorf("tier %q, want %q", res.Tier, tc.tier)
			}
			c := finishedData(t, rec, "out")["contract"].(map[string]any)
			reasons := strings.Join(reasonsOf(c), "; ")
			if tc.reason != "" && !strings.Contains(reasons, tc.reason) {
				t.Errorf("reasons %q lack %q", reasons, tc.reason)
			}
		})
	}
}

// TestContractFieldOfReportReadAsMarkers: the field that carries a report's
// filled text is read with its markers in place, so a cell the system
// filled in ([[v:…]]) is not taken for an untraced number, while a number
// the model added around the report in another field is.
func TestContractFieldOfReportReadAsMarkers(t *testing.T) {
	contract := map[string]any{"report_from": "brief", "metrics_from": "kpi", "required_metrics": []any{"gmv"}}
	p := reportPlan([]any{"numbers", "strict", "on_violation", "fail"}, contract)
	for i := range p.Nodes {
		if p.Nodes[i].ID == "out" {
			p.Nodes[i].Spec["fields"] = map[string]any{"text": "{{ nodes.brief.text }}", "wrapped": "Brief: {{ nodes.brief.text }}"}
		}
	}
	res, _ := runReport(t, p, scripted([]string{cleanReport}, ""))
	if res.Status != StatusSucceeded || res.Tier != "formal" {
		t.Fatalf("%s tier %q %v", res.Status, res.Tier, res.Err)
	}
	p.Nodes[len(p.Nodes)-1].Spec["fields"] = map[string]any{"text": "{{ nodes.brief.text }}", "note": "Up 7% on last week."}
	res, _ = runReport(t, p, scripted([]string{cleanReport}, ""))
	if res.Tier != "withheld" {
		t.Errorf("note with an untraced 7%%: tier %q", res.Tier)
	}
}

func reasonsOf(c map[string]any) []string {
	is, _ := c["issuance"].(map[string]any)
	var out []string
	if is == nil {
		return nil
	}
	l, _ := is["reasons"].([]any)
	for _, r := range l {
		s, _ := r.(string)
		out = append(out, s)
	}
	return out
}

// TestContractHandBuiltGovernedPlanWithLiteralMetricNeverFormal: a plan
// built without lint, at tier governed, whose metric is a literal or a
// model's text, is not issued formal even though every number of the
// report is a marker.
func TestContractHandBuiltGovernedPlanWithLiteralMetricNeverFormal(t *testing.T) {
	for _, tc := range []struct{ name, expr, reason string }{
		{"literal", "35000", "it is a literal"},
		{"model text", "len(nodes.head.text)", "nodes.head.text, which is not a query or merge snapshot"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := mkPlan([]plan.Node{
				query("pull", "db_query__sales", "SELECT region, gmv FROM sales"),
				nd("head", "llm", "prompt", "Say something."),
				nd("kpi", "metrics", "metrics", map[string]any{
					"gmv": map[string]any{"expr": "sum(col(nodes.pull, 'gmv'))", "unit": "CNY"},
					"fix": map[string]any{"expr": tc.expr},
				}),
				nd("brief", "report", "prompt", "Write.", "numbers", "strict", "on_violation", "fail"),
				nd("out", "output", "fields", map[string]any{"text": "{{ nodes.brief.text }}"},
					"contract", map[string]any{"report_from": "brief", "metrics_from": "kpi", "required_metrics": []any{"gmv"}}),
			}, edges("pull -> kpi", "head -> kpi", "kpi -> brief", "brief -> out"))
			p.Tier = plan.TierGoverned
			m := newModel(func(_ context.Context, req ModelRequest) (string, error) {
				if req.Node == "head" {
					return "twelve", nil
				}
				return "GMV reached [[m:gmv]] against [[m:fix]].", nil
			})
			res, rec := run(t, p, nil, withDB(salesDB()), withModel(m))
			if res.Status != StatusSucceeded {
				t.Fatal(res.Err)
			}
			if res.Tier == "formal" {
				t.Errorf("tier formal")
			}
			c := finishedData(t, rec, "out")["contract"].(map[string]any)
			if r := strings.Join(reasonsOf(c), "; "); !strings.Contains(r, tc.reason) || !strings.Contains(r, `metric "fix"`) {
				t.Errorf("reasons %q", r)
			}
		})
	}
}

// TestContractIncomparableCardIsDeclared: a card upgraded with
// on_card_upgrade: incomparable is not only a field of a sealed event:
// the contract records comparable: false and gives it as a reason, so the
// run's tier reasons (report.html, the run JSON, issuance.json) say it.
func TestContractIncomparableCardIsDeclared(t *testing.T) {
	p := mkPlan([]plan.Node{
		query("pull", "db_query__sales", "SELECT region, gmv FROM sales"),
		nd("kpi", "metrics", "card", "gmvcard@1", "card_resolved", "gmvcard@2", "on_card_upgrade", upgradeIncomparable),
		nd("out", "output", "fields", map[string]any{"gmv": "{{ nodes.kpi.gmv }}"},
			"contract", map[string]any{"metrics_from": "kpi", "required_metrics": []any{"gmv"}}),
	}, edges("pull -> kpi", "kpi -> out"))
	p.Cards = map[string]plan.Card{"gmvcard@2": {Name: "gmvcard", Version: 2, Metrics: map[string]plan.Metric{"gmv": {Expr: "sum(col(nodes.pull, 'gmv'))"}}}}
	res, rec := run(t, p, nil, withDB(salesDB()))
	if res.Status != StatusSucceeded {
		t.Fatal(res.Err)
	}
	c := finishedData(t, rec, "out")["contract"].(map[string]any)
	if c["comparable"] != false || res.Tier != "degraded" {
		t.Errorf("tier %q, contract %v", res.Tier, c)
	}
	if r := strings.Join(reasonsOf(c), "; "); !strings.Contains(r, "not comparable with runs of gmvcard@1") {
		t.Errorf("reasons %q", r)
	}
}

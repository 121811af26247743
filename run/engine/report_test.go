package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/plan"
)

// reportPlan: a query, metrics, a report with the given spec and an output
// with a contract.
func reportPlan(reportSpec []any, contract map[string]any) *plan.Plan {
	rs := append([]any{"prompt", "Write the brief for {{ input.week }}."}, reportSpec...)
	nodes := []plan.Node{
		query("pull", "db_query__sales", "SELECT region, gmv FROM sales"),
		nd("kpi", "metrics", "metrics", map[string]any{
			"gmv":   map[string]any{"expr": "sum(col(nodes.pull, 'gmv'))", "unit": "CNY"},
			"share": map[string]any{"expr": "cell(nodes.pull, 0, 'gmv') / gmv", "format": "percent", "decimals": 1},
		}),
		nd("brief", "report", rs...),
	}
	es := edges("pull -> kpi", "kpi -> brief")
	if contract != nil {
		nodes = append(nodes, nd("out", "output", "fields", map[string]any{"text": "{{ nodes.brief.text }}"}, "contract", contract))
		es = append(es, edges("brief -> out")...)
	}
	p := mkPlan(nodes, es)
	p.Inputs = map[string]plan.Input{"week": {Type: "string"}}
	p.Sources = map[string]plan.Source{"sales": {Kind: "csv", Path: "x.csv"}}
	return p
}

// scripted answers report calls from a list (by call index) and judge
// calls with a fixed verdict.
func scripted(reports []string, verdict string) *fakeModel {
	return newModel(func(_ context.Context, req ModelRequest) (string, error) {
		if req.Kind == "judge" {
			return verdict, nil
		}
		if req.Call < len(reports) {
			return reports[req.Call], nil
		}
		return reports[len(reports)-1], nil
	})
}

const cleanReport = "Brief for [[i:week]].\n\nGMV reached [[m:gmv]] ([[m:gmv|万]] in 万). North holds [[m:share]] of it, [[v:Q1.r0.gmv]] in total. Thanks for reading."

func runReport(t *testing.T, p *plan.Plan, m *fakeModel) (*Result, *memRecorder) {
	t.Helper()
	return run(t, p, map[string]any{"week": "2026-W47"}, withDB(salesDB()), withModel(m))
}

func TestReportFillsMarkers(t *testing.T) {
	p := reportPlan([]any{"numbers", "strict", "on_violation", "fail", "claims", "require_citation"},
		map[string]any{"report_from": "brief", "metrics_from": "kpi", "required_metrics": []any{"gmv"}})
	res, rec := runReport(t, p, scripted([]string{cleanReport}, ""))
	if res.Status != StatusSucceeded {
		t.Fatal(res.Err)
	}
	d := finishedData(t, rec, "brief")
	out := d["output"].(map[string]any)
	want := "Brief for 2026-W47.\n\nGMV reached 2,000 CNY (0.20万 in 万). North holds 60.0% of it, 1200 in total. Thanks for reading."
	if out["text"] != want {
		t.Errorf("filled text\n got %q\nwant %q", out["text"], want)
	}
	art := artifact[evidence.ReportArtifact](t, rec, d["report_artifact"].(string))
	if art.Source != cleanReport || art.Attempts != 1 || len(art.Violations) != 0 {
		t.Errorf("artifact %+v", art)
	}
	if res.Tier != "formal" {
		t.Errorf("tier %q", res.Tier)
	}
	c := finishedData(t, rec, "out")["contract"].(map[string]any)
	if c["tier"] != "formal" || c["report_from"] != "brief" {
		t.Errorf("contract %v", c)
	}
}

func TestReportRepairLoop(t *testing.T) {
	bare := "Brief for [[i:week]]. Sales grew 12.5% on the prior week. GMV reached [[m:gmv]]."
	p := reportPlan([]any{"numbers", "strict", "on_violation", "fail", "max_repairs", 1}, nil)
	m := scripted([]string{bare, cleanReport}, "")
	res, rec := runReport(t, p, m)
	if res.Status != StatusSucceeded {
		t.Fatal(res.Err)
	}
	if m.count("brief") != 2 {
		t.Errorf("%d model calls, want 2", m.count("brief"))
	}
	art := artifact[evidence.ReportArtifact](t, rec, finishedData(t, rec, "brief")["report_artifact"].(string))
	if art.Attempts != 2 || art.Source != cleanReport {
		t.Errorf("artifact %+v", art)
	}
	if len(rec.ofType("report.repair")) != 1 {
		t.Errorf("repair events %v", rec.ofType("report.repair"))
	}

	// max_repairs: 0 and on_violation: fail → the node fails, naming the number.
	p = reportPlan([]any{"numbers", "strict", "on_violation", "fail", "max_repairs", 0}, nil)
	res, _ = runReport(t, p, scripted([]string{bare, cleanReport}, ""))
	if res.Status != StatusFailed || !strings.Contains(res.Err.Error(), "12.5%") || !strings.Contains(res.Err.Error(), "bare_number") {
		t.Fatalf("fail: %s %v", res.Status, res.Err)
	}

	// on_violation: mark keeps the text; lenient numbers degrade the output.
	contract := map[string]any{"report_from": "brief", "metrics_from": "kpi", "required_metrics": []any{"gmv"}}
	p = reportPlan([]any{"numbers", "lenient", "on_violation", "mark", "max_repairs", 0}, contract)
	res, rec = runReport(t, p, scripted([]string{bare}, ""))
	if res.Status != StatusSucceeded {
		t.Fatal(res.Err)
	}
	art = artifact[evidence.ReportArtifact](t, rec, finishedData(t, rec, "brief")["report_artifact"].(string))
	if len(art.Violations) != 1 || art.Violations[0].Text != "12.5%" {
		t.Errorf("violations %+v", art.Violations)
	}
	if res.Tier != "degraded" {
		t.Errorf("lenient+mark tier %q", res.Tier)
	}

	// numbers: strict with a bare number kept → withheld.
	p = reportPlan([]any{"numbers", "strict", "on_violation", "mark", "max_repairs", 0}, contract)
	res, _ = runReport(t, p, scripted([]string{bare}, ""))
	if res.Status != StatusSucceeded || res.Tier != "withheld" {
		t.Errorf("strict+mark: %s tier %q", res.Status, res.Tier)
	}
}

func TestReportViolations(t *testing.T) {
	c := &citable{
		metrics: map[string]*evidence.MetricValue{"gmv": metricFromDef("gmv", plan.Metric{}, 2000)},
		mnames:  []string{"gmv"},
		snaps: map[string]*evidence.Snapshot{"Q1": {ID: "Q1", Source: "sales", Tool: "db_query__sales", SQL: "SELECT region, SUM(amount) AS gmv FROM sales GROUP BY region", Columns: []string{"region", "gmv"}, Types: []string{"TEXT", "INTEGER"},
			Rows: [][]any{{"north", int64(1200)}}}},
		snapIDs: []string{"Q1"},
		hits:    map[string]evidence.KnowledgeHit{"K1": {ID: "K1", Path: "notes/a.md", Text: "Refunds are issued within\nfourteen days."}},
		hitIDs:  []string{"K1"},
		inputs:  map[string]any{"week": "2026-W47"},
	}
	for _, tc := range []struct {
		text, kind string
		cite       bool
	}{
		{"Total [[m:gmvv]].", vUnresolved, false},
		{"Cell [[v:Q2.r0.gmv]].", vUnresolved, false},
		{"Cell [[v:Q1.r1.gmv]].", vUnresolved, false},
		{"Cell [[v:Q1.r0.cost]].", vUnresolved, false},
		{"As noted, [[q:K1|refunds are issued]].", vUnresolved, false},
		{"Broken [[m:gmv", vBadMarker, false},
		{"It rose 7 points.", vBareNumber, false},
		{"Sales grew strongly.", vUncitedClaim, true},
		{"Table [[t:orders]].", vUnresolved, false},
		{"Column [[c:sales.amout]], invented by the model.", vUnresolved, false},
		{"Summed over `sales.amout`.", vUnknownName, false},
		{"Summed over `regoin`.", vUnknownName, false},
	} {
		vs, _ := checkReport(tc.text, c, true, tc.cite)
		found := false
		for _, v := range vs {
			found = found || v.Kind == tc.kind
		}
		if !found {
			t.Errorf("%q: want a %s violation, got %+v", tc.text, tc.kind, vs)
		}
	}
	for _, ok := range []string{
		"As noted, [[q:K1|Refunds are issued within fourteen days.]]",
		"Week [[i:week]] on [[t:sales]], column [[c:sales.amount]]: [[table:Q1 cols=gmv rows=0-0]]",
		"Published on 2026-11-29, in Q3, the first week.",
		"All figures are drawn from the recorded evidence.",
		"The rows behind these figures:",
		"Sales grew [[see:m:gmv,Q1]].",
		"The `amount` of `sales` per `region`, as `gmv` for `week`; see `sales.region` and `SUM(amount)`.",
	} {
		if vs, _ := checkReport(ok, c, true, true); len(vs) != 0 {
			t.Errorf("%q: unexpected violations %+v", ok, vs)
		}
	}
	// numbers: lenient accepts a bare number that is a metric's value.
	if vs, _ := checkReport("GMV was 2,000 this week.", c, false, false); len(vs) != 0 {
		t.Errorf("lenient: %+v", vs)
	}
	if vs, _ := checkReport("GMV was 2,000 this week.", c, true, false); len(vs) != 1 {
		t.Errorf("strict: %+v", vs)
	}
}

func TestSentences(t *testing.T) {
	text := "# Weekly brief\nSales grew [[m:gmv]]. Costs fell. The notes follow:\nThanks. 销售额同比增长。"
	var got []string
	for _, s := range sentences(text) {
		mark := "-"
		if s.conclusion {
			mark = "C"
		}
		if s.cited {
			mark += "+"
		}
		got = append(got, mark+text[s.start:s.end])
	}
	want := []string{"-# Weekly brief", "C+Sales grew [[m:gmv]].", "CCosts fell.", "-The notes follow:", "-Thanks.", "C销售额同比增长。"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestReportJudge(t *testing.T) {
	text := "GMV grew to [[m:gmv]]. Costs fell [[see:Q1]]. Margins rose [[m:share]]."
	p := reportPlan([]any{"on_violation", "mark", "claims", "judge", "judge", map[string]any{"max_sentences": 2}}, nil)
	res, rec := runReport(t, p, scripted([]string{text}, "unsupported"))
	if res.Status != StatusSucceeded {
		t.Fatal(res.Err)
	}
	art := artifact[evidence.ReportArtifact](t, rec, finishedData(t, rec, "brief")["report_artifact"].(string))
	if len(art.Claims) != 3 || art.Claims[0].Verdict != "unsupported" || art.Claims[1].Verdict != "unsupported" || art.Claims[2].Verdict != "" {
		t.Errorf("claims %+v", art.Claims)
	}
	if len(art.Violations) != 2 || art.Violations[0].Kind != vUnsupported {
		t.Errorf("violations %+v", art.Violations)
	}
	w := strings.Join(rec.lines(), "\n")
	if !strings.Contains(w, "W-REPORT-JUDGE-SAME-MODEL") || !strings.Contains(w, "W-REPORT-JUDGE-BUDGET") {
		t.Errorf("warnings missing:\n%s", w)
	}
	if strings.Contains(w, `judge model \"\"`) || strings.Contains(w, `judge model ""`) {
		t.Errorf("the same-model warning does not name the model:\n%s", w)
	}
	p = reportPlan([]any{"on_violation", "fail", "claims", "judge", "judge", map[string]any{"model": "other"}}, nil)
	res, rec = runReport(t, p, scripted([]string{text}, "supported"))
	if res.Status != StatusSucceeded || strings.Contains(strings.Join(rec.lines(), "\n"), "W-REPORT-JUDGE") {
		t.Errorf("supported claims: %s %v", res.Status, res.Err)
	}
}

func TestContractMissingMetric(t *testing.T) {
	only := "Brief for [[i:week]]. North holds [[m:share]] of sales."
	for _, tc := range []struct{ onMissing, tier string }{{"withhold", "withheld"}, {"degrade", "degraded"}} {
		p := reportPlan(nil, map[string]any{"report_from": "brief", "metrics_from": "kpi", "required_metrics": []any{"gmv"}, "on_missing": tc.onMissing})
		res, _ := runReport(t, p, scripted([]string{only}, ""))
		if res.Status != StatusSucceeded || res.Tier != tc.tier {
			t.Errorf("on_missing %s: %s tier %q", tc.onMissing, res.Status, res.Tier)
		}
	}
	p := reportPlan(nil, nil)
	res, _ := runReport(t, p, scripted([]string{only}, ""))
	if res.Tier != "" {
		t.Errorf("no contract: tier %q", res.Tier)
	}
}

// A judge model that never answers is cut off by judge.timeout_s: the run
// goes on, the claims left unjudged are named in a warning and degrade the
// contracted output (the check could not run fully).
func TestJudgeHangingModelIsCutAtTimeCap(t *testing.T) {
	text := "GMV grew to [[m:gmv]]. Costs fell [[see:Q1]]. Margins rose [[m:share]]."
	contract := map[string]any{"report_from": "brief", "metrics_from": "kpi"}
	p := reportPlan([]any{"on_violation", "mark", "claims", "judge", "judge", map[string]any{"model": "other", "timeout_s": 0.2}}, contract)
	judged := 0
	m := newModel(func(ctx context.Context, req ModelRequest) (string, error) {
		if req.Kind != "judge" {
			return text, nil
		}
		if judged++; judged == 1 {
			return "supported", nil
		}
		<-ctx.Done() // the hostile judge hangs
		return "", ctx.Err()
	})
	start := time.Now()
	res, rec := runReport(t, p, m)
	if res.Status != StatusSucceeded {
		t.Fatal(res.Err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the judge held the run for %s", d)
	}
	out := finishedData(t, rec, "brief")["output"].(map[string]any)
	if out["unjudged"] != float64(2) || out["unsupported"] != float64(0) {
		t.Errorf("output %v", out)
	}
	w := strings.Join(rec.lines(), "\n")
	if !strings.Contains(w, WarnJudgeTime) || !strings.Contains(w, "2 claim(s) were not judged") {
		t.Errorf("no time-cap warning:\n%s", w)
	}
	if res.Tier != "degraded" {
		t.Errorf("tier %q, want degraded", res.Tier)
	}
}

// A judge that finds a claim unsupported degrades the output by default
// and withholds it under judge.on_unsupported: withhold.
func TestJudgeUnsupportedClaimWithholdsOrDegrades(t *testing.T) {
	text := "Brief for [[i:week]]. GMV grew to [[m:gmv]]."
	for _, tc := range []struct{ on, tier string }{{"", "degraded"}, {"degrade", "degraded"}, {"withhold", "withheld"}} {
		j := map[string]any{"model": "other"}
		if tc.on != "" {
			j["on_unsupported"] = tc.on
		}
		p := reportPlan([]any{"on_violation", "mark", "claims", "judge", "judge", j},
			map[string]any{"report_from": "brief", "metrics_from": "kpi"})
		res, _ := runReport(t, p, scripted([]string{text}, "Unsupported."))
		if res.Status != StatusSucceeded || res.Tier != tc.tier {
			t.Errorf("on_unsupported %q: %s tier %q, want %s (%v)", tc.on, res.Status, res.Tier, tc.tier, res.Err)
		}
	}
	// Every claim supported: the output stays formal whatever on_unsupported says.
	p := reportPlan([]any{"on_violation", "mark", "claims", "judge", "judge", map[string]any{"model": "other", "on_unsupported": "withhold"}},
		map[string]any{"report_from": "brief", "metrics_from": "kpi"})
	if res, _ := runReport(t, p, scripted([]string{text}, "supported")); res.Tier != "formal" {
		t.Errorf("supported claims: tier %q (%v)", res.Tier, res.Err)
	}
}

// A long report is judged up to 40 sentences by default; the rest are
// named as unjudged.
func TestJudgeLongReportStopsAtDefaultSentences(t *testing.T) {
	var b strings.Builder
	for i := 0; i < DefaultJudgeSentences+5; i++ {
		b.WriteString("GMV grew to [[m:gmv]]. ")
	}
	p := reportPlan([]any{"on_violation", "mark", "claims", "judge", "judge", map[string]any{"model": "other"}}, nil)
	m := scripted([]string{b.String()}, "supported")
	res, rec := runReport(t, p, m)
	if res.Status != StatusSucceeded {
		t.Fatal(res.Err)
	}
	if n := m.count("brief:judge"); n != DefaultJudgeSentences {
		t.Errorf("%d judge calls, want %d", n, DefaultJudgeSentences)
	}
	if out := finishedData(t, rec, "brief")["output"].(map[string]any); out["unjudged"] != float64(5) {
		t.Errorf("output %v", out)
	}
}

package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentlab/agentlab/evidence"
	erender "github.com/agentlab/agentlab/evidence/render"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/plan"
)

// fakeDB answers db_query calls from fixed tables; delay slows a tool down
// so that parallel nodes finish in the opposite of their commit order.
type fakeDB struct {
	tables map[string]*evidence.Snapshot // by tool name
	delay  map[string]time.Duration
	seen   []string
}

func (f *fakeDB) Call(ctx context.Context, tool string, args map[string]any, rowCap int) (*evidence.Snapshot, error) {
	if d := f.delay[tool]; d > 0 {
		time.Sleep(d)
	}
	s := f.tables[tool]
	c := *s
	c.Tool, c.SQL = tool, args["sql"].(string)
	c.Rows = make([][]any, len(s.Rows))
	for i, r := range s.Rows {
		c.Rows[i] = append([]any(nil), r...)
	}
	if p, ok := args["params"].(map[string]any); ok {
		c.Params = p
	}
	return &c, nil
}

func salesDB() *fakeDB {
	return &fakeDB{tables: map[string]*evidence.Snapshot{
		"db_query__sales": {Source: "sales", Columns: []string{"region", "gmv"}, Types: []string{"TEXT", "INTEGER"},
			Rows: [][]any{{"north", int64(1200)}, {"south", int64(800)}, {"east", nil}}, RowCap: 1000},
		"db_query__costs": {Source: "costs", Columns: []string{"region", "cost"}, Types: []string{"TEXT", "REAL"},
			Rows: [][]any{{"north", 300.5}, {"south", 199.5}}, RowCap: 1000},
	}, delay: map[string]time.Duration{}}
}

func withDB(db SourceDB) runOpt { return func(c *Config) { c.Sources = db } }

func query(id, tool, sql string) plan.Node {
	return nd(id, "tool", "tool", tool, "args", map[string]any{"sql": sql}, "evidence_role", "source")
}

func finishedData(t *testing.T, rec *memRecorder, node string) map[string]any {
	t.Helper()
	for _, e := range rec.events {
		if e.Type == EvNodeFinished && e.Node == node {
			var m map[string]any
			if err := json.Unmarshal(e.Data, &m); err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
	t.Fatalf("no node.finished for %s", node)
	return nil
}

func artifact[T any](t *testing.T, rec *memRecorder, id string) T {
	t.Helper()
	h, err := hashid.Parse(id)
	if err != nil {
		t.Fatal(err)
	}
	b, err := rec.get(h)
	if err != nil {
		t.Fatal(err)
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSnapshotNumbersFollowCommitOrder runs a fan-out of two queries whose
// later node (in commit order) answers first: the numbers must still follow
// the commit order, on every repetition.
func TestSnapshotNumbersFollowCommitOrder(t *testing.T) {
	p := mkPlan([]plan.Node{
		nd("start", "transform", "expr", "1"),
		query("a_sales", "db_query__sales", "SELECT 1"),
		query("b_costs", "db_query__costs", "SELECT 2"),
	}, edges("start -> a_sales", "start -> b_costs"))
	for i := 0; i < 3; i++ {
		db := salesDB()
		db.delay["db_query__sales"] = 30 * time.Millisecond
		res, rec := run(t, p, nil, withDB(db), withParallel(4))
		if res.Status != StatusSucceeded {
			t.Fatalf("%s: %v", res.Status, res.Err)
		}
		if got := finishedData(t, rec, "a_sales")["snapshot"]; got != "Q1" {
			t.Errorf("a_sales got %v, want Q1", got)
		}
		if got := finishedData(t, rec, "b_costs")["snapshot"]; got != "Q2" {
			t.Errorf("b_costs got %v, want Q2", got)
		}
		var ids []string
		for _, e := range rec.events {
			if e.Type == EvEvidenceAdded {
				var d map[string]any
				_ = json.Unmarshal(e.Data, &d)
				ids = append(ids, d["id"].(string)+"@"+e.Node)
			}
		}
		if strings.Join(ids, ",") != "Q1@a_sales,Q2@b_costs" {
			t.Errorf("evidence.added order %v", ids)
		}
	}
}

// TestEvidenceWaitIsNotADeadlock: with one pool slot, a query waiting for
// its turn must hand the slot back so that the node before it can run.
func TestEvidenceWaitIsNotADeadlock(t *testing.T) {
	p := mkPlan([]plan.Node{
		nd("start", "transform", "expr", "1"),
		query("a", "db_query__sales", "SELECT 1"),
		query("b", "db_query__costs", "SELECT 2"),
	}, edges("start -> a", "start -> b"))
	db := salesDB()
	db.delay["db_query__sales"] = 20 * time.Millisecond
	res, _ := run(t, p, nil, withDB(db), withParallel(1))
	if res.Status != StatusSucceeded {
		t.Fatalf("%s: %v", res.Status, res.Err)
	}
}

func TestToolWithoutSources(t *testing.T) {
	p := mkPlan([]plan.Node{query("q", "db_query__sales", "SELECT 1")}, nil)
	res, _ := run(t, p, nil)
	if res.Status != StatusFailed || !strings.Contains(res.Err.Error(), "declares no sources") {
		t.Fatalf("got %s %v", res.Status, res.Err)
	}
	p = mkPlan([]plan.Node{nd("q", "tool", "tool", "http_fetch", "args", map[string]any{"url": "x"})}, nil)
	res, _ = run(t, p, nil, withDB(salesDB()))
	if res.Status != StatusFailed || !strings.Contains(res.Err.Error(), "there is no tool \"http_fetch\"") {
		t.Fatalf("got %s %v", res.Status, res.Err)
	}
}

func TestToolArgsAreRendered(t *testing.T) {
	p := mkPlan([]plan.Node{nd("q", "tool", "tool", "db_query__sales",
		"args", map[string]any{"sql": "SELECT :w", "params": map[string]any{"w": "{{ input.week }}"}})}, nil)
	p.Inputs = map[string]plan.Input{"week": {Type: "string"}}
	res, rec := run(t, p, map[string]any{"week": "2026-W47"}, withDB(salesDB()))
	if res.Status != StatusSucceeded {
		t.Fatal(res.Err)
	}
	d := finishedData(t, rec, "q")
	s := artifact[evidence.Snapshot](t, rec, d["snapshot_artifact"].(string))
	if s.Params["w"] != "2026-W47" || s.ID != "Q1" || s.Node != "q" {
		t.Errorf("snapshot %+v", s)
	}
	if d["evidence_role"] != "source" {
		t.Errorf("role %v", d["evidence_role"])
	}
}

func metricsPlan(metrics map[string]any) *plan.Plan {
	return mkPlan([]plan.Node{
		query("pull", "db_query__sales", "SELECT region, gmv FROM sales"),
		nd("kpi", "metrics", "metrics", metrics),
	}, edges("pull -> kpi"))
}

func TestMetrics(t *testing.T) {
	p := metricsPlan(map[string]any{
		"gmv":     map[string]any{"expr": "sum(col(nodes.pull, 'gmv'))", "unit": "CNY", "decimals": 0},
		"regions": map[string]any{"expr": "rows(nodes.pull)"},
		"share":   map[string]any{"expr": "cell(nodes.pull, 0, 'gmv') / gmv", "format": "percent", "decimals": 1},
		"avg":     map[string]any{"expr": "round(gmv / regions, 2)"},
	})
	res, rec := run(t, p, nil, withDB(salesDB()))
	if res.Status != StatusSucceeded {
		t.Fatal(res.Err)
	}
	d := finishedData(t, rec, "kpi")
	out := d["output"].(map[string]any)
	if out["gmv"] != 2000.0 || out["share"] != 0.6 || out["regions"] != 3.0 || out["avg"] != 666.67 {
		t.Errorf("output %v", out)
	}
	set := artifact[evidence.MetricSet](t, rec, d["metrics_artifact"].(string))
	byName := map[string]evidence.MetricValue{}
	for _, m := range set.Metrics {
		byName[m.Name] = m
	}
	// Dependency order: gmv and regions before avg and share.
	order := make([]string, len(set.Metrics))
	for i, m := range set.Metrics {
		order[i] = m.Name
	}
	if strings.Join(order, ",") != "gmv,regions,avg,share" {
		t.Errorf("order %v", order)
	}
	want := map[string]string{
		"gmv":     "sum([1200, 800, null])",
		"regions": "3",
		"share":   "(1200 / 2000)",
		"avg":     "round((2000 / 3), 2)",
	}
	for name, sub := range want {
		mv := byName[name]
		if mv.Substituted != sub {
			t.Errorf("%s: substituted %q, want %q", name, mv.Substituted, sub)
		}
		got, err := erender.Calc(mv.Substituted)
		if err != nil || !erender.SameValue(got, *mv.Value) {
			t.Errorf("%s: Calc(%q) = %v, %v; value %v", name, mv.Substituted, got, err, *mv.Value)
		}
	}
	if c := byName["share"].Cells; len(c) != 1 || c[0].Snapshot != "Q1" || c[0].Row != 0 || c[0].Column != "gmv" {
		t.Errorf("share cells %+v", c)
	}
	if c := byName["gmv"].Cells; len(c) != 3 || c[2].Value != nil {
		t.Errorf("gmv cells %+v", c)
	}
	if c := byName["regions"].Cells; len(c) != 1 || c[0].Row != -1 {
		t.Errorf("regions cells %+v", c)
	}
	if u := byName["avg"].Uses; strings.Join(u, ",") != "gmv,regions" {
		t.Errorf("avg uses %v", u)
	}
	if s, _ := erender.FormatMetric(ptr(byName["share"]), ""); s != "60.0%" {
		t.Errorf("percent format %q", s)
	}
	if s, _ := erender.FormatMetric(ptr(byName["gmv"]), "k"); s != "2.00k" { // decimals: 0 is the precision of CNY, not of k
		t.Errorf("unit format %q", s)
	}
}

func ptr(m evidence.MetricValue) *evidence.MetricValue { return &m }

func TestMetricSubstitutionFallsBack(t *testing.T) {
	p := metricsPlan(map[string]any{
		"gmv":  map[string]any{"expr": "sum(col(nodes.pull, 'gmv'))"},
		"flag": map[string]any{"expr": "gmv > 1000 ? 1 : 0"},
	})
	res, rec := run(t, p, nil, withDB(salesDB()))
	if res.Status != StatusSucceeded {
		t.Fatal(res.Err)
	}
	set := artifact[evidence.MetricSet](t, rec, finishedData(t, rec, "kpi")["metrics_artifact"].(string))
	for _, m := range set.Metrics {
		if m.Name == "flag" && m.Substituted != "1" {
			t.Errorf("conditional substituted %q, want the value", m.Substituted)
		}
	}
}

func TestMetricErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		metrics map[string]any
		want    string
	}{
		"cycle": {map[string]any{
			"a": map[string]any{"expr": "b + 1"}, "b": map[string]any{"expr": "c + 1"}, "c": map[string]any{"expr": "a + 1"},
		}, "a -> b -> c -> a"},
		"self":    {map[string]any{"a": map[string]any{"expr": "a * 2"}}, "a -> a"},
		"unknown": {map[string]any{"a": map[string]any{"expr": "zzz + 1"}}, "zzz"},
		"column":  {map[string]any{"a": map[string]any{"expr": "sum(col(nodes.pull, 'gmvv'))"}}, "gmvv"},
	} {
		t.Run(name, func(t *testing.T) {
			res, _ := run(t, metricsPlan(tc.metrics), nil, withDB(salesDB()))
			if res.Status != StatusFailed || !strings.Contains(res.Err.Error(), tc.want) {
				t.Fatalf("got %s %v, want an error with %q", res.Status, res.Err, tc.want)
			}
		})
	}
}

func cardPlan(upgrade string, withOld bool) *plan.Plan {
	spec := []any{"card", "gmvcard@1", "card_resolved", "gmvcard@2"}
	if upgrade != "" {
		spec = append(spec, "on_card_upgrade", upgrade)
	}
	p := mkPlan([]plan.Node{
		query("pull", "db_query__sales", "SELECT region, gmv FROM sales"),
		nd("kpi", "metrics", spec...),
	}, edges("pull -> kpi"))
	p.Cards = map[string]plan.Card{"gmvcard@2": {Name: "gmvcard", Version: 2, Metrics: map[string]plan.Metric{
		"gmv": {Expr: "sum(col(nodes.pull, 'gmv'))"}}}}
	if withOld {
		p.Cards["gmvcard@1"] = plan.Card{Name: "gmvcard", Version: 1, Metrics: map[string]plan.Metric{
			"gmv": {Expr: "max(col(nodes.pull, 'gmv'))"}}}
	}
	return p
}

func TestCardUpgrade(t *testing.T) {
	formal := func(c *Config) { c.Kind = "formal" }
	res, _ := run(t, cardPlan("", false), nil, withDB(salesDB()), formal)
	if res.Status != StatusFailed || !strings.Contains(res.Err.Error(), "on_card_upgrade") {
		t.Fatalf("formal run without on_card_upgrade: %s %v", res.Status, res.Err)
	}
	res, rec := run(t, cardPlan("", false), nil, withDB(salesDB()))
	if res.Status != StatusSucceeded || len(rec.ofType(EvNodeWarning)) != 1 {
		t.Fatalf("exploratory run: %s %v %v", res.Status, res.Err, rec.ofType(EvNodeWarning))
	}
	res, rec = run(t, cardPlan(upgradeDual, true), nil, withDB(salesDB()), formal)
	if res.Status != StatusSucceeded {
		t.Fatal(res.Err)
	}
	d := finishedData(t, rec, "kpi")
	set := artifact[evidence.MetricSet](t, rec, d["metrics_artifact"].(string))
	if len(set.Metrics) != 2 || set.Metrics[0].Name != "gmv" || *set.Metrics[0].Value != 2000 ||
		set.Metrics[1].Name != "gmv@1" || *set.Metrics[1].Value != 1200 || set.Metrics[1].Card != "gmvcard@1" {
		t.Errorf("dual: %+v", set.Metrics)
	}
	res, rec = run(t, cardPlan(upgradeIncomparable, false), nil, withDB(salesDB()), formal)
	if res.Status != StatusSucceeded {
		t.Fatal(res.Err)
	}
	card := finishedData(t, rec, "kpi")["card"].(map[string]any)
	if card["comparable"] != false || card["pinned"] != "gmvcard@1" {
		t.Errorf("incomparable: %v", card)
	}
}

func TestMerge(t *testing.T) {
	p := mkPlan([]plan.Node{
		query("s", "db_query__sales", "SELECT region, gmv FROM sales"),
		query("c", "db_query__costs", "SELECT region, cost FROM costs"),
		nd("m", "merge", "inputs", []any{"s", "c"}, "key", "region"),
	}, edges("s -> m", "c -> m"))
	res, rec := run(t, p, nil, withDB(salesDB()))
	if res.Status != StatusSucceeded {
		t.Fatal(res.Err)
	}
	d := finishedData(t, rec, "m")
	s := artifact[evidence.Snapshot](t, rec, d["snapshot_artifact"].(string))
	if s.ID != "Q3" || s.Tool != "merge" || s.Source != "Q2,Q1" && s.Source != "Q1,Q2" {
		t.Errorf("merge snapshot %s %s %s", s.ID, s.Tool, s.Source)
	}
	if strings.Join(s.Columns, ",") != "region,gmv,cost" || len(s.Rows) != 2 {
		t.Errorf("merge result %v %v", s.Columns, s.Rows)
	}
	if len(rec.ofType(EvNodeWarning)) != 0 {
		t.Errorf("unexpected warnings")
	}
}

func TestMergeWarnsAndRefuses(t *testing.T) {
	db := salesDB()
	db.tables["db_query__dup"] = &evidence.Snapshot{Columns: []string{"region", "n"}, Types: []string{"TEXT", "INTEGER"},
		Rows: [][]any{{"north", int64(1)}, {"north", int64(2)}, {"north", int64(3)}, {"south", int64(4)}}}
	db.tables["db_query__ids"] = &evidence.Snapshot{Columns: []string{"region"}, Types: []string{"INTEGER"}, Rows: [][]any{{int64(1)}}}
	db.tables["db_query__cut"] = &evidence.Snapshot{Columns: []string{"region"}, Types: []string{"TEXT"}, Rows: [][]any{{"a"}}, Truncated: true, RowCap: 1}
	db.tables["db_query__sales"].Rows = [][]any{{"north", int64(1)}, {"north", int64(2)}}
	p := mkPlan([]plan.Node{
		query("a", "db_query__sales", "SELECT 1"),
		query("b", "db_query__dup", "SELECT 1"),
		nd("m", "merge", "inputs", []any{"a", "b"}, "key", "region"),
	}, edges("a -> m", "b -> m"))
	res, rec := run(t, p, nil, withDB(db))
	if res.Status != StatusSucceeded {
		t.Fatal(res.Err)
	}
	if w := rec.lines(); !strings.Contains(strings.Join(w, "\n"), "W-MERGE-BLOWUP") {
		t.Errorf("no blow-up warning:\n%s", strings.Join(w, "\n"))
	}
	p = mkPlan([]plan.Node{
		query("a", "db_query__costs", "SELECT 1"),
		query("b", "db_query__ids", "SELECT 1"),
		nd("m", "merge", "inputs", []any{"a", "b"}, "key", "region"),
	}, edges("a -> m", "b -> m"))
	_, rec = run(t, p, nil, withDB(db))
	if w := rec.lines(); !strings.Contains(strings.Join(w, "\n"), "W-MERGE-KEY-TYPE") {
		t.Errorf("no key type warning")
	}
	p = mkPlan([]plan.Node{
		query("a", "db_query__costs", "SELECT 1"),
		query("b", "db_query__cut", "SELECT 1"),
		nd("m", "merge", "inputs", []any{"a", "b"}, "key", "region"),
	}, edges("a -> m", "b -> m"))
	res, _ = run(t, p, nil, withDB(db))
	if res.Status != StatusFailed || !strings.Contains(res.Err.Error(), "truncated") {
		t.Errorf("truncated input: %s %v", res.Status, res.Err)
	}
	p = mkPlan([]plan.Node{
		query("a", "db_query__costs", "SELECT 1"),
		nd("m", "merge", "inputs", []any{"a"}, "sql", "SELECT region, cost * 2 AS double FROM a ORDER BY region"),
	}, edges("a -> m"))
	res, rec = run(t, p, nil, withDB(db))
	if res.Status != StatusSucceeded {
		t.Fatal(res.Err)
	}
	s := artifact[evidence.Snapshot](t, rec, finishedData(t, rec, "m")["snapshot_artifact"].(string))
	if len(s.Rows) != 2 || s.Rows[0][1] != 601.0 {
		t.Errorf("sql merge %v", s.Rows)
	}
	p.Nodes[1].Spec["sql"] = "DELETE FROM a"
	res, _ = run(t, p, nil, withDB(db))
	if res.Status != StatusFailed {
		t.Errorf("a DELETE in a merge must be refused")
	}
}

// TestLargeOutputKeepsEvidenceKeys: an output stored as an artifact still
// has its evidence keys inline, and resume restores the output.
func TestLargeOutputKeepsEvidenceKeys(t *testing.T) {
	p := mkPlan([]plan.Node{query("q", "db_query__sales", "SELECT 1")}, nil)
	res, rec := run(t, p, nil, withDB(salesDB()), func(c *Config) { c.InlineLimit = 16 })
	if res.Status != StatusSucceeded {
		t.Fatal(res.Err)
	}
	d := finishedData(t, rec, "q")
	if d["output_artifact"] == nil || d["snapshot"] != "Q1" || d["snapshot_artifact"] == nil {
		t.Fatalf("record %v", d)
	}
	prior, err := NewPrior(rec.events, rec.get)
	if err != nil {
		t.Fatal(err)
	}
	pn, ok := prior.lookup("q")
	if !ok || pn.payload.Output.(map[string]any)["snapshot"] != "Q1" {
		t.Errorf("restored %+v", pn)
	}
}

// TestEvidenceNotHeldByWaitingGate: a query later in the commit order
// than the successor of a human gate that pauses the run must still be
// numbered; the run ends waiting instead of hanging.
func TestEvidenceNotHeldByWaitingGate(t *testing.T) {
	p := mkPlan([]plan.Node{
		nd("gate", "human", "prompt", "Go?", "on_timeout", "reject"),
		nd("after", "transform", "expr", "1"),
		nd("x", "transform", "expr", "2"),
		query("z_query", "db_query__sales", "SELECT 1"),
	}, edges("gate.approve -> after", "x -> z_query"))
	res, rec := run(t, p, nil, withDB(salesDB()))
	if res.Status != StatusWaiting {
		t.Fatalf("status %s %v", res.Status, res.Err)
	}
	if got := finishedData(t, rec, "z_query")["snapshot"]; got != "Q1" {
		t.Errorf("z_query got %v", got)
	}
}

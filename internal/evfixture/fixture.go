// Package evfixture builds sealed runs for the tests and benchmarks of the
// report renderer, the bundle writer and the verifier, without the run
// engine: it writes the events and artifacts of the evidence contract
// directly through run/runlog. Only test code imports it.
//
// Where it fits: docs/architecture.md#supporting-packages.
package evfixture

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/run/runlog"
)

// RunID is the id of the fixture run.
const RunID = "fixture-run"

// Run is a built fixture.
type Run struct {
	DataDir string
	ID      string
	Dir     string // runs/<id>
	Seal    string // seal hash
	Plan    string
}

// Options varies the fixture.
type Options struct {
	// PostSeal appends an event after run.finished (outside the seal).
	PostSeal bool
	// Contract adds an output node whose issuance contract is degraded,
	// with reasons (one holding markup that must come out escaped).
	Contract bool
	// Report, when set, replaces Source as the report text (with no
	// recorded violations).
	Report string
	// Snapshot, when set, changes the query snapshot before it is stored
	// (its tool, source or SQL, the order of its columns; the columns
	// and rows the metrics cite must stay).
	Snapshot func(*evidence.Snapshot)
}

// ContractReasons are the reasons of the Contract option's verdict.
var ContractReasons = []string{
	"1 number(s) cannot be traced to exactly one metric: \"12\" (<b>12</b> stores)",
	"required metric \"orders\" is not in the metric set",
}

func f(x float64) *float64 { return &x }
func n(x int) *int         { return &x }

// Source is the report text of the fixture: every marker kind, a bare
// number recorded as a violation, and markup that must come out escaped.
const Source = "Weekly brief for [[i:week]]: GMV was [[m:gmv]] ([[m:gmv|万]]); north contributed [[m:north_share]] " +
	"and sold [[v:Q1.r0.amount]] to [[v:Q1.r0.customer]].\n[[table:Q1 cols=region,amount rows=0-2]]\n" +
	"According to [[q:K1|the north region leads]], the [[t:sales]] table's [[c:sales.amount]] column is complete. " +
	"About 12 stores reported <script>alert('x')</script>.[[see:m:gmv,Q1]]"

// Build writes the fixture run into dataDir and seals it.
func Build(dataDir string, o Options) (*Run, error) {
	rl, err := runlog.Create(dataDir, RunID)
	if err != nil {
		return nil, err
	}
	defer rl.Close()
	t0 := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	tick := 0
	rl.SetClock(func() time.Time { tick++; return t0.Add(time.Duration(tick) * time.Second) })
	put := func(v any) (string, error) {
		b, err := canon.Marshal(v)
		if err != nil {
			return "", err
		}
		id, err := rl.PutArtifact(b)
		return id.String(), err
	}
	var errs []error
	must := func(s string, err error) string {
		if err != nil {
			errs = append(errs, err)
		}
		return s
	}
	planHash := must(put(map[string]any{"agentlab": 1, "name": "weekly-sales", "tier": "governed",
		"nodes": []any{map[string]any{"id": "pull", "type": "tool"}, map[string]any{"id": "kpi", "type": "metrics"}, map[string]any{"id": "brief", "type": "report", "on_violation": "mark"}}}))
	inputs := map[string]any{"week": "2026-W47"}
	inputsHash := must(put(inputs))
	snap := &evidence.Snapshot{
		ID: "Q1", Node: "pull", Tool: "db_query__sales", Source: "sales",
		SQL:     "SELECT region, amount, customer FROM sales WHERE week = :week ORDER BY amount DESC",
		Params:  map[string]any{"week": "2026-W47"},
		Columns: []string{"region", "amount", "customer"},
		Types:   []string{evidence.TypeText, evidence.TypeReal, evidence.TypeText},
		Rows: [][]any{
			{"north", 1200.5, evidence.MaskedValue},
			{"south", float64(800), evidence.MaskedValue},
			{"east", 450.25, evidence.MaskedValue},
			{"west", float64(300), evidence.MaskedValue},
			{"<script>alert(1)</script>", 49.25, evidence.MaskedValue},
		},
		Masked: []string{"customer"}, RowCap: 1000,
	}
	if o.Snapshot != nil {
		o.Snapshot(snap)
	}
	sb, err := snap.Canonical()
	if err != nil {
		return nil, err
	}
	sid, err := rl.PutArtifact(sb)
	if err != nil {
		return nil, err
	}
	snapID := sid.String()
	amount := 0 // the Snapshot option may move the column
	for amount < len(snap.Columns)-1 && snap.Columns[amount] != "amount" {
		amount++
	}
	var cells []evidence.CellRef
	for i, r := range snap.Rows {
		cells = append(cells, evidence.CellRef{Snapshot: "Q1", Node: "pull", Row: i, Column: "amount", Value: r[amount]})
	}
	ms := evidence.MetricSet{Node: "kpi", Metrics: []evidence.MetricValue{
		{Name: "gmv", Value: f(2800), Unit: "CNY", Decimals: n(2), Format: "currency", Card: "weekly-gmv@2",
			Formula: "sum(col(nodes.pull, 'amount'))", Substituted: "sum([1200.5, 800, 450.25, 300, 49.25])", Cells: cells},
		{Name: "north_share", Value: f(1200.5 / 2800), Format: "percent", Decimals: n(1),
			Formula: "cell(nodes.pull, 0, 'amount') / gmv", Substituted: "1200.5 / 2800",
			Cells: []evidence.CellRef{cells[0]}, Uses: []string{"gmv"}},
	}}
	msID := must(put(ms))
	hit := evidence.KnowledgeHit{ID: "K1", Node: "docs", Path: "notes/regions.md", Text: "In week 47 the north region leads all regions by revenue.", BM25: 1.5, Embed: 0.5, Score: 1.0}
	hitsID := must(put([]evidence.KnowledgeHit{hit}))
	hitID := must(put(hit))
	start := indexOf(Source, "12 stores")
	ra := evidence.ReportArtifact{Node: "brief", Source: Source, Attempts: 2,
		Violations: []evidence.Violation{{Start: start, End: start + 2, Kind: "bare_number", Text: "12", Message: "a number without a marker"}}}
	if o.Report != "" {
		ra = evidence.ReportArtifact{Node: "brief", Source: o.Report, Attempts: 1}
	}
	raID := must(put(ra))
	if len(errs) > 0 {
		return nil, errs[0]
	}
	type ev struct {
		typ, node string
		data      any
	}
	evs := []ev{
		{"run.started", "", map[string]any{"plan": planHash, "inputs": inputs, "inputs_hash": inputsHash, "seed": 7, "provider": "mock", "kind": "exploratory", "tier": "governed", "flow": "weekly-sales"}},
		{"node.started", "pull", nil},
		{"tool.called", "pull", map[string]any{"tool": "db_query__sales", "args": map[string]any{"sql": snap.SQL}, "call_id": "pull:1"}},
		{"tool.result", "pull", map[string]any{"tool": "db_query__sales", "call_id": "pull:1", "snapshot": "Q1", "snapshot_artifact": snapID, "rows": 5, "truncated": false}},
		{"evidence.added", "pull", map[string]any{"id": "Q1", "kind": "query", "artifact": snapID, "node": "pull"}},
		{"node.finished", "pull", map[string]any{"output": map[string]any{"snapshot": "Q1", "rows": 5}, "snapshot": "Q1", "snapshot_artifact": snapID}},
		{"node.started", "docs", nil},
		{"evidence.added", "docs", map[string]any{"id": "K1", "kind": "knowledge", "artifact": hitID, "node": "docs"}},
		{"node.finished", "docs", map[string]any{"output": map[string]any{"hits": []any{map[string]any{"id": "K1", "path": hit.Path, "score": 1}}}, "hits_artifact": hitsID}},
		{"node.started", "kpi", nil},
		{"node.finished", "kpi", map[string]any{"output": map[string]any{"gmv": 2800, "north_share": 1200.5 / 2800}, "metrics_artifact": msID}},
		{"node.started", "brief", nil},
		{"node.finished", "brief", map[string]any{"output": map[string]any{"text": "(filled)"}, "report_artifact": raID}},
		{"run.finished", "", map[string]any{"status": "succeeded", "tier": "degraded", "kind": "exploratory", "outputs": map[string]any{}}},
	}
	if o.Contract {
		reasons := make([]any, len(ContractReasons))
		for i, r := range ContractReasons {
			reasons[i] = r
		}
		fin := evs[len(evs)-1]
		evs = append(evs[:len(evs)-1],
			ev{"node.started", "out", nil},
			ev{"node.finished", "out", map[string]any{"output": map[string]any{}, "contract": map[string]any{
				"report_from": "brief", "metrics_from": "kpi", "tier": "degraded",
				"issuance": map[string]any{"tier": "degraded", "numbers": []any{}, "untraced": 1, "missing": []any{"orders"}, "reasons": reasons}}}},
			fin)
	}
	for _, e := range evs {
		if _, err := rl.Append(e.typ, e.node, e.data); err != nil {
			return nil, err
		}
	}
	rec := rl.Record()
	rec.ID, rec.Plan, rec.Status, rec.Kind, rec.Flow = RunID, planHash, runlog.StatusSucceeded, "exploratory", "weekly-sales.flow.yml"
	rec.Created = chainTime(t0)
	if err := rl.WriteRecord(rec); err != nil {
		return nil, err
	}
	_, h, err := rl.Seal(planHash)
	if err != nil {
		return nil, err
	}
	if o.PostSeal {
		if _, err := rl.Append("human.decided", "gate", map[string]any{"decision": "approve", "by": "late"}); err != nil {
			return nil, err
		}
	}
	return &Run{DataDir: dataDir, ID: RunID, Dir: filepath.Join(runlog.RunsDir(dataDir), RunID), Seal: h.String(), Plan: planHash}, nil
}

func chainTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000000Z") }

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	panic(fmt.Sprintf("evfixture: %q not in source", sub))
}

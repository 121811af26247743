package run

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/run/engine"
	"github.com/agentlab/agentlab/run/runlog"
	_ "modernc.org/sqlite"
)

const evidenceFlow = `agentlab: 1
name: ev
sources:
  sales: {kind: csv, path: sales.csv}
nodes:
  - {id: pull, type: tool, tool: db_query__sales, args: {sql: "SELECT region, amount FROM sales ORDER BY region"}}
  - id: kpi
    type: metrics
    metrics:
      total: {expr: "sum(col(nodes.pull, 'amount'))", unit: CNY}
  - {id: brief, type: report, prompt: "Write the sales brief.", numbers: strict, on_violation: fail, max_repairs: REPAIRS}
  - id: out
    type: output
    fields: {brief: "{{ nodes.brief.text }}"}
    contract: {report_from: brief, metrics_from: kpi, required_metrics: [total]}
edges: [pull -> kpi, kpi -> brief, brief -> out]
`

func writeEvidenceFlow(t *testing.T, dir string, repairs string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "sales.csv"), []byte("region,amount\nnorth,1200\nsouth,800\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, "flow.yml")
	if err := os.WriteFile(f, []byte(strings.Replace(evidenceFlow, "REPAIRS", repairs, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestResumeRestoresLedger: a run whose report failed is resumed under a
// plan that allows a repair; the restored query keeps Q1, the report
// cites it from the store, and the numbering continues without a gap.
func TestResumeRestoresLedger(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	f := writeEvidenceFlow(t, dir, "0")
	p, h := compileFlow(t, f)
	out, err := Start(context.Background(), Options{DataDir: data, Plan: p, PlanHash: h, Source: f, Epoch: &epoch, Seed: 13})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != engine.StatusFailed || !strings.Contains(out.Error, "bare_number") {
		t.Fatalf("first attempt: %s %s", out.Status, out.Error)
	}
	f2 := writeEvidenceFlow(t, dir, "1")
	p2, h2 := compileFlow(t, f2)
	res, err := Resume(context.Background(), ResumeOptions{DataDir: data, RunID: out.RunID, Plan: p2, PlanHash: h2, Epoch: &epoch})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != engine.StatusSucceeded || res.Tier != "formal" {
		t.Fatalf("resume: %s %q %s", res.Status, res.Tier, res.Error)
	}
	snap, err := runlog.OpenReadOnly(data, out.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var added, started int
	for _, e := range snap.Events {
		switch {
		case e.Type == engine.EvEvidenceAdded:
			added++
		case e.Type == engine.EvNodeStarted && e.Node == "pull":
			started++
		}
	}
	if added != 1 || started != 1 {
		t.Errorf("the query ran %d times and added %d entries; want 1 and 1", started, added)
	}
	if tierOf(snap.Events) != "formal" {
		t.Errorf("tierOf = %q", tierOf(snap.Events))
	}
	if snap.Record.Tier != "formal" {
		t.Errorf("run.json records tier %q, want formal", snap.Record.Tier)
	}
}

// TestSourceLoadErrorIsUsage: a source file that does not exist stops the
// run before any node, as a usage error.
func TestSourceLoadErrorIsUsage(t *testing.T) {
	dir := t.TempDir()
	f := writeEvidenceFlow(t, dir, "1")
	p, h := compileFlow(t, f)
	if err := os.Remove(filepath.Join(dir, "sales.csv")); err != nil {
		t.Fatal(err)
	}
	_, err := Start(context.Background(), Options{DataDir: filepath.Join(dir, "data"), Plan: p, PlanHash: h, Source: f, Epoch: &epoch})
	var ue *UsageError
	if err == nil || !asUsage(err, &ue) || !strings.Contains(err.Error(), "E-SRC-OPEN") {
		t.Fatalf("got %v", err)
	}
}

func asUsage(err error, target **UsageError) bool {
	u, ok := err.(*UsageError)
	if ok {
		*target = u
	}
	return ok
}

// TestSQLiteSourceWithoutTable: a sqlite source without `table:` exposes
// every table under its own name, masks `table.column`, and never writes
// to the database file.
func TestSQLiteSourceWithoutTable(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "shop.db")
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"CREATE TABLE orders (id INTEGER, account INTEGER, amount REAL)",
		"CREATE TABLE accounts (id INTEGER, iban TEXT)",
		"INSERT INTO orders VALUES (1, 10, 9.5), (2, 11, 3)",
		"INSERT INTO accounts VALUES (10, 'DE89370400440532013000'), (11, 'FR1420041010050500013M02606')",
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, "flow.yml")
	flow := `agentlab: 1
name: shop
sources:
  shop: {kind: sqlite, path: shop.db, mask_columns: [accounts.iban]}
nodes:
  - {id: pull, type: tool, tool: db_query__shop, args: {sql: "SELECT o.id, o.amount, a.iban FROM orders o JOIN accounts a ON a.id = o.account ORDER BY o.id"}}
  - {id: out, type: output, fields: {rows: "{{ nodes.pull.rows | compact }}"}}
edges: [pull -> out]
`
	if err := os.WriteFile(f, []byte(flow), 0o644); err != nil {
		t.Fatal(err)
	}
	p, h := compileFlow(t, f)
	out, err := Start(context.Background(), Options{DataDir: filepath.Join(dir, "data"), Plan: p, PlanHash: h, Source: f, Epoch: &epoch})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != engine.StatusSucceeded {
		t.Fatalf("%s: %s", out.Status, out.Error)
	}
	want := `[{"amount":9.5,"iban":"***","id":1},{"amount":3,"iban":"***","id":2}]`
	if got, _ := out.Outputs["rows"].(string); got != want {
		t.Errorf("rows %s, want %s", got, want)
	}
	after, err := os.ReadFile(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if string(before) != string(after) {
		t.Error("the run changed the database file")
	}
}

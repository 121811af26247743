package engine

import (
	"strings"
	"testing"

	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/plan"
)

// TestCiteAsNamesRealCells: what an agent is told about citing a query
// result uses the result's own names, never a placeholder a model could
// copy (Q1.r<row>.<column>).
func TestCiteAsNamesRealCells(t *testing.T) {
	tests := []struct {
		cols []string
		rows int
		want string
	}{
		{[]string{"store", "staff"}, 3, "Q2.r0.store, Q2.r0.staff (row 0; row 2 is Q2.r2.store and so on)"},
		{[]string{"n"}, 1, "Q2.r0.n (row 0)"},
		{[]string{"a"}, 0, "Q2 has no rows: there is nothing in it to cite"},
		{[]string{"c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9"}, 1, "Q2.r0.c1, Q2.r0.c2, Q2.r0.c3, Q2.r0.c4, Q2.r0.c5, Q2.r0.c6, Q2.r0.c7, Q2.r0.c8, … (row 0)"},
	}
	for _, tt := range tests {
		got := citeAs("Q2", tt.cols, tt.rows)
		if got != tt.want {
			t.Errorf("citeAs(%v, %d) = %q, want %q", tt.cols, tt.rows, got, tt.want)
		}
		if strings.ContainsAny(got, "<>") {
			t.Errorf("citeAs(%v, %d) = %q holds a placeholder", tt.cols, tt.rows, got)
		}
	}
}

// TestViolationMessagesNameRealMarkers plays a model that writes a bare
// number, an uncited conclusion and an invented column name: what the
// report's sealed violations tell a reader names markers of this run's own
// evidence, never a placeholder such as [[m:NAME]].
func TestViolationMessagesNameRealMarkers(t *testing.T) {
	c := &citable{
		metrics: map[string]*evidence.MetricValue{"gmv": metricFromDef("gmv", plan.Metric{}, 2000)},
		mnames:  []string{"gmv"},
		snaps: map[string]*evidence.Snapshot{"Q1": {ID: "Q1", Source: "sales", Tool: "db_query__sales", SQL: "SELECT region, SUM(amount) AS gmv FROM sales GROUP BY region",
			Columns: []string{"region", "gmv"}, Types: []string{"TEXT", "INTEGER"}, Rows: [][]any{{"north", int64(1200)}}}},
		snapIDs: []string{"Q1"},
		inputs:  map[string]any{},
	}
	vs, _ := checkReport("Sales were 1234 in `amout`. Therefore the north clearly leads.", c, true, true)
	kinds := map[string]string{}
	for _, v := range vs {
		kinds[v.Kind] = v.Message
		if strings.Contains(v.Message, "NAME") || strings.Contains(v.Message, "COLUMN") || strings.Contains(v.Message, "TABLE") {
			t.Errorf("%s: a placeholder in %q", v.Kind, v.Message)
		}
	}
	for kind, want := range map[string]string{vBareNumber: "[[m:gmv]] or [[v:Q1.r0.region]]", vUncitedClaim: "[[see:m:gmv,Q1]]", vUnknownName: "[[c:sales.region]]"} {
		if !strings.Contains(kinds[kind], want) {
			t.Errorf("%s: %q does not name %s", kind, kinds[kind], want)
		}
	}
	// With nothing to cite, the message says so instead of inventing a marker.
	empty := &citable{metrics: map[string]*evidence.MetricValue{}, snaps: map[string]*evidence.Snapshot{}, inputs: map[string]any{}}
	vs, _ = checkReport("We sold 1234. Therefore demand clearly rose.", empty, true, true)
	for _, v := range vs {
		if strings.Contains(v.Message, "[[") {
			t.Errorf("%s with no evidence suggests a marker: %q", v.Kind, v.Message)
		}
	}
}

package engine

import (
	"strings"
	"testing"

	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/evidence/marker"
	"github.com/agentlab/agentlab/plan"
)

// TestCatalogOffersOnlyWhatResolves plays a data source whose column
// names the marker language cannot hold ("total amount" in a table
// marker's cols, "gmv]]" anywhere), a snapshot with no rows first, and a
// metric and an input: every marker the citation guide and the catalog
// show a model must be read back by the checker as a citation that
// resolves, so that a model that cites exactly what it is told is never
// marked down. A column no marker can name is said so.
func TestCatalogOffersOnlyWhatResolves(t *testing.T) {
	cols := []string{"region", "销售额", "total amount", "a.b", "x|y", "gmv]]", "a,b"}
	row := []any{"north", int64(100), int64(5), int64(7), int64(9), int64(200), int64(1)}
	c := &citable{
		metrics: map[string]*evidence.MetricValue{"gmv": metricFromDef("gmv", plan.Metric{}, 2000), "gmv@1": metricFromDef("gmv@1", plan.Metric{}, 1900)},
		mnames:  []string{"gmv", "gmv@1"},
		snaps: map[string]*evidence.Snapshot{
			"Q1": {ID: "Q1", Node: "none", Source: "s", SQL: "SELECT 1 WHERE 0", Columns: []string{"one"}, Types: []string{"INTEGER"}},
			"Q2": {ID: "Q2", Node: "q", Source: "s", SQL: "SELECT …", Columns: cols, Rows: [][]any{row, row}},
		},
		snapIDs: []string{"Q1", "Q2"},
		inputs:  map[string]any{"week": "2026-W47"},
	}
	// The guide, the catalog, and the repair messages, which offer
	// markers too.
	offered := citationGuide(c) + "\n" + evidenceCatalog(c) + "\n" + bareNumberMessage(c) + "\n" + uncitedClaimMessage(c)
	segs, errs := marker.Parse(offered)
	for _, e := range errs {
		t.Errorf("offered %q, which does not parse: %s", e.Raw, e.Message)
	}
	n := 0
	for _, sg := range segs {
		m := sg.Marker
		if m == nil || m.Kind == marker.Quote {
			continue
		}
		n++
		if msg := c.resolve(m); msg != "" {
			t.Errorf("offered %s, which does not resolve: %s", m.Raw, msg)
		}
	}
	if n < 8 {
		t.Errorf("only %d markers offered:\n%s", n, offered)
	}
	c.snaps["Q2"].Columns = []string{"gmv]]", "region"}
	if m := bareNumberMessage(c); !strings.Contains(m, "[[v:Q2.r0.region]]") {
		t.Errorf("the repair message does not offer a cell that resolves: %s", m)
	}
	c.snaps["Q2"].Columns = cols
	if !strings.Contains(offered, "no marker can name the cells of: gmv]]") {
		t.Errorf("the column no marker can name is not said:\n%s", offered)
	}
	if strings.Contains(offered, "[[v:Q1.") || strings.Contains(offered, "[[table:Q1") {
		t.Errorf("a snapshot without rows is offered as cells:\n%s", offered)
	}
}

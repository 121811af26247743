package engine

import (
	"strings"
	"testing"

	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/plan"
)

// FuzzReportCheck feeds arbitrary report texts to the checker, the
// sentence splitter and the filler: none may panic, every violation and
// claim must lie inside the text, and a text without violations must fill
// without any marker left.
func FuzzReportCheck(f *testing.F) {
	for _, s := range []string{
		cleanReport,
		"Sales grew 12.5% on the prior week. GMV reached [[m:gmv]].",
		"[[q:K1|fourteen days]] [[table:Q1 cols=gmv rows=0-9]] [[see:m:gmv,Q9]]",
		"# 标题\n销售额同比增长[[m:gmv|万]]。第三季度，两千余家。",
		"[[m:gmv", "]] [[ [[v:Q1.r0.gmv]] [[v:Q1.r99.x]]",
		"Week [[i:week]]: 2026-W47, 3.5万, 1st, Q3.",
	} {
		f.Add(s)
	}
	c := &citable{
		metrics: map[string]*evidence.MetricValue{"gmv": metricFromDef("gmv", plan.Metric{Unit: "CNY"}, 2000)},
		mnames:  []string{"gmv"},
		snaps: map[string]*evidence.Snapshot{"Q1": {ID: "Q1", Source: "sales", Tool: "db_query__sales", SQL: "SELECT region, SUM(amount) AS gmv FROM sales GROUP BY region", Columns: []string{"region", "gmv"}, Types: []string{"TEXT", "INTEGER"},
			Rows: [][]any{{"north", int64(1200)}, {"south", nil}}}},
		snapIDs: []string{"Q1"},
		hits:    map[string]evidence.KnowledgeHit{"K1": {ID: "K1", Text: "Refunds take fourteen days."}},
		hitIDs:  []string{"K1"},
		inputs:  map[string]any{"week": "2026-W47"},
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, strict := range []bool{true, false} {
			vs, cl := checkReport(text, c, strict, true)
			for _, v := range vs {
				if v.Start < 0 || v.End > len(text) || v.Start > v.End {
					t.Fatalf("violation %+v outside the text (%d bytes)", v, len(text))
				}
			}
			for _, x := range cl {
				if x.Start < 0 || x.End > len(text) || x.Start >= x.End {
					t.Fatalf("claim %+v outside the text", x)
				}
			}
			// Without violations every [[ opens a marker that resolves, and
			// no value of the fixture holds [[: nothing may be left.
			if filled := fill(text, c); len(vs) == 0 && strings.Contains(filled, "[[") {
				t.Fatalf("a marker was left unfilled: %q -> %q", text, filled)
			}
		}
	})
}

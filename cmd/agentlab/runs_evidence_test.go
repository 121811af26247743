package main

import (
	"strings"
	"testing"

	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/evidence/render"
)

// TestNumberVerdicts: a model's answer, one number at a time, against a
// sealed metric set (revenue 1,172,100; a refund rate of 2.08 %; two
// metrics that both equal 12), a snapshot and an input. Each line is a
// way a model gets a number right or wrong.
func TestNumberVerdicts(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	two := 2
	d := &render.Doc{
		MetricSets: []*render.MetricSet{{Node: "kpi", Artifact: "b3:m", Set: evidence.MetricSet{Node: "kpi", Metrics: []evidence.MetricValue{
			{Name: "revenue", Value: f(1172100), Card: "rev@3", Formula: "sum(revenue)"},
			{Name: "refund_rate", Value: f(0.0208), Format: "percent", Decimals: &two},
			{Name: "stores", Value: f(12)},
			{Name: "regions", Value: f(12)},
		}}}},
		Snapshots: []*render.Snapshot{{ID: "Q1", Artifact: "b3:q", Snap: &evidence.Snapshot{ID: "Q1", Node: "pull",
			Columns: []string{"region", "amount"}, Rows: [][]any{{"north", int64(1200)}, {"south", 800.5}}}}},
		Inputs: map[string]any{"year": 2026.0, "top": 3.0},
	}
	tests := []struct {
		name, text string
		status     string
		trail      string
	}{
		{"a metric quoted right", "Revenue was 1,172,100 yuan.", numSourced, "metric revenue = 1172100 (card rev@3) of node kpi, artifact b3:m"},
		{"a metric in 万", "Revenue was 117.21万.", numSourced, "metric revenue"},
		{"a percent metric", "Refunds ran at 2.08%.", numSourced, "metric refund_rate"},
		{"a snapshot cell", "North sold 1200.", numSourced, "Q1 row 0 column amount of node pull, artifact b3:q"},
		{"a float cell", "South sold 800.5.", numSourced, "Q1 row 1 column amount"},
		{"an input", "The top 3 stores.", numSourced, "input top"},
		{"a number two metrics hold", "We have 12 of them.", numSuspicious, "fits several metrics: regions, stores"},
		{"a metric rounded to its own display", "Refunds ran at 2.1%.", numSourced, "metric refund_rate"},
		{"a misquote near a metric", "Refunds ran at 2.15%.", numSuspicious, "from metric refund_rate"},
		{"a rounded-up revenue", "Revenue was 1,180,000.", numSuspicious, "off by 0.67% from metric revenue"},
		{"an approximate number around an input", "两千余", numSuspicious, "approximate: input year lies in it"},
		{"an approximate number around nothing", "三千余", numNoEvidence, "approximate, and no metric"},
		{"an approximate number the checker traces", "一百多万", numSourced, "metric revenue"},
		{"an invented number", "We hired 77 people.", numNoEvidence, "no metric, snapshot cell or input holds it"},
		{"a date is no quantity", "On 2026-11-03.", numIgnored, "date"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d.Outputs = map[string]any{"answer": tc.text}
			rows := runNumbers(d)
			if len(rows) != 1 {
				t.Fatalf("got %d numbers, want 1: %+v", len(rows), rows)
			}
			r := rows[0]
			if r.Status != tc.status || !strings.Contains(r.Trail, tc.trail) || r.Where != "output answer" {
				t.Errorf("%q: got %s %q, want %s with %q", r.Text, r.Status, r.Trail, tc.status, tc.trail)
			}
		})
	}
	// A JSON number in an output is judged like a written one.
	d.Outputs = map[string]any{"facts": map[string]any{"rows": []any{1200.0, 99.0}}}
	rows := runNumbers(d)
	if len(rows) != 2 || rows[0].Where != "output facts.rows[0]" || rows[0].Status != numSourced || rows[1].Status != numNoEvidence {
		t.Errorf("JSON numbers: %+v", rows)
	}
}

package compile

import (
	"fmt"
	"testing"

	"github.com/agentlab/agentlab/diag"
)

// srcHdr starts a flow with one CSV source; its nodes begin on line 5.
const srcHdr = "agentlab: 1\nname: t\nsources: {sales: {kind: csv, path: s.csv}}\nnodes:\n"

// TestLintRefusesWhatTheRunWouldRefuse is the rule "lint and run use the
// same rules": for every run-time refusal a static check can foresee, a
// flow written by an author who did not know the rule is refused by lint,
// with the run's own code, at the offending spot.
func TestLintRefusesWhatTheRunWouldRefuse(t *testing.T) {
	csv := map[string]string{"s.csv": "region,gmv\nnorth,1\n"}
	withSub := map[string]string{"s.csv": "region,gmv\nnorth,1\n",
		"sub.flow.yml": "agentlab: 1\nname: sub\nnodes:\n  - {id: o, type: output, fields: {total: '1'}}\n"}
	for _, tc := range []struct {
		name, code, want, flow, tier string
		files                        map[string]string
	}{
		{name: "a delete in a tool node", code: "E-SQL-STATEMENT", want: "8:18",
			flow: srcHdr + "  - id: q\n    type: tool\n    tool: db_query__sales\n    args: {sql: \"DELETE FROM sales\"}\n", files: csv},
		{name: "a delete in a tool node at governed", code: "E-SQL-STATEMENT", want: "9:18", tier: "governed",
			flow: srcHdr + "  - id: q\n    type: tool\n    tool: db_query__sales\n    evidence_role: source\n    args: {sql: \"DELETE FROM sales\"}\n", files: csv},
		{name: "a second statement hidden after a read", code: "E-SQL-MULTI", want: "8:39",
			flow: srcHdr + "  - id: q\n    type: tool\n    tool: db_query__sales\n    args: {sql: \"SELECT * FROM sales; DROP TABLE sales\"}\n", files: csv},
		{name: "a clock read in a literal query", code: "E-SQL-NONDET", want: "8:53",
			flow: srcHdr + "  - id: q\n    type: tool\n    tool: db_query__sales\n    args: {sql: \"SELECT * FROM sales WHERE d = date('now')\"}\n", files: csv},
		{name: "a write behind a CTE in a merge", code: "E-SQL-WRITE", want: "8:32",
			flow: srcHdr + "  - {id: a, type: tool, tool: db_query__sales, args: {sql: 'SELECT * FROM sales'}}\n  - id: m\n    type: merge\n    sql: \"WITH x AS (SELECT 1) DELETE FROM a\"\nedges: [a -> m]\n", files: csv},
		{name: "cell of a subgraph", code: "E-EXPR-SNAPSHOT", want: "8:31",
			flow: srcHdr + "  - {id: sub, type: subgraph, flow: sub.flow.yml}\n  - id: m\n    type: metrics\n    metrics: {x: {expr: \"cell(nodes.sub, 0, 'total')\"}}\nedges: [sub -> m]\n", files: withSub},
		{name: "rows of a subgraph", code: "E-EXPR-SNAPSHOT", want: "8:31",
			flow: srcHdr + "  - {id: sub, type: subgraph, flow: sub.flow.yml}\n  - id: m\n    type: metrics\n    metrics: {x: {expr: \"rows(nodes.sub)\"}}\nedges: [sub -> m]\n", files: withSub},
		{name: "a field the subflow does not return", code: "E-TMPL-FIELD", want: "6:53",
			flow: srcHdr + "  - {id: sub, type: subgraph, flow: sub.flow.yml}\n  - {id: o, type: output, fields: {t: '{{ nodes.sub.totl }}'}}\nedges: [sub -> o]\n", files: withSub},
		{name: "python that never prints to assign_to", code: "E-SCHEMA-NO-PRINT", want: "8:5",
			flow: srcHdr + "  - id: c\n    type: code\n    assign_to: r\n    code: x = 1\n", files: csv},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeCase(t, codeCase{flow: tc.flow, files: tc.files})
			l := LintFile(p, Options{Tier: tc.tier})
			found := false
			for _, d := range l {
				if d.Code == tc.code && d.Severity == diag.Error {
					found = true
					if got := fmt.Sprintf("%d:%d", d.Line, d.Col); got != tc.want {
						t.Errorf("%s at %s, want %s (%s)", tc.code, got, tc.want, d.Message)
					}
					if d.Fix == "" {
						t.Errorf("%s has no fix", tc.code)
					}
				}
			}
			if !found {
				t.Errorf("lint does not refuse it with %s:\n%s", tc.code, dump(l))
			}
		})
	}
}

package suite

import (
	"strings"
	"testing"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/plan"
)

func testPlan() *plan.Plan {
	return &plan.Plan{
		Name:    "p",
		Inputs:  map[string]plan.Input{"week": {Type: "string", Required: true}, "note": {Type: "string"}},
		Sources: map[string]plan.Source{"sales": {Kind: "csv", Path: "s.csv", MaskColumns: []string{"customer"}}},
		Cards:   map[string]plan.Card{"weekly-gmv@2": {Name: "weekly-gmv", Version: 2, Metrics: map[string]plan.Metric{"gmv": {Expr: "1"}}}},
		Nodes:   []plan.Node{{ID: "out", Type: "output", Spec: map[string]any{"fields": map[string]any{"answer": "x"}}}},
	}
}

func TestCheck(t *testing.T) {
	head := "eval: 1\nflow: f.yml\ncard: weekly-gmv@2\nquestions:\n  - id: a\n    inputs: {week: W1}\n"
	tests := []struct {
		name, src string
		want      string // "line:col CODE" joined by "; "
	}{
		{"ok sql", head + "    expect: {sql: 'SELECT SUM(amount) FROM sales'}\n", ""},
		{"ok metric", head + "    expect: {metric: gmv}\n", ""},
		{"unknown metric", head + "    expect: {metric: gvm}\n", "7:13 E-EVAL-CARD"},
		{"unpinned card", head + "    expect: {metric: gmv, card: other@1}\n", "7:13 E-EVAL-CARD"},
		{"masked where", head + "    expect: {sql: \"SELECT COUNT(*) FROM sales WHERE customer = 'x'\"}\n", "7:53 E-EVAL-MASKED"},
		{"masked quoted", head + "    expect: {sql: 'SELECT COUNT(DISTINCT \"Customer\") FROM sales'}\n", "7:42 E-EVAL-MASKED"},
		{"masked in string is fine", head + "    expect: {sql: \"SELECT COUNT(*) FROM sales WHERE region = 'customer'\"}\n", ""},
		{"star", head + "    expect: {sql: 'SELECT * FROM sales'}\n", "7:19 E-EVAL-MASKED"},
		{"guard", head + "    expect: {sql: 'DELETE FROM sales'}\n", "7:20 E-EVAL-SQL"},
		{"two columns", head + "    expect: {sql: 'SELECT a, b FROM sales'}\n", "7:19 E-EVAL-SQL"},
		{"params", head + "    expect: {sql: 'SELECT SUM(amount) FROM sales WHERE week = :week'}\n", "7:19 E-EVAL-SQL"},
		{"source", head + "    expect: {sql: 'SELECT 1', source: orders}\n", "7:19 E-EVAL-SOURCE"},
		{"unknown input", "eval: 1\nflow: f.yml\nquestions:\n  - id: a\n    inputs: {week: W1, wek: W2}\n    expect: {no_data: true}\n", "5:24 E-EVAL-INPUT"},
		{"missing input", "eval: 1\nflow: f.yml\nquestions:\n  - id: a\n    expect: {no_data: true}\n", "4:9 E-EVAL-INPUT"},
		{"answer field", "eval: 1\nflow: f.yml\nanswer: answr\nquestions:\n  - id: a\n    inputs: {week: W1}\n    expect: {no_data: true}\n", "3:9 E-EVAL-INPUT"},
		{"preset", "eval: 1\nflow: f.yml\nvariants:\n  - name: v\n    preset: nosuch\nquestions:\n  - id: a\n    inputs: {week: W1}\n    expect: {no_data: true}\n", "5:13 E-EVAL-VARIANT"},
		{"preset ok", "eval: 1\nflow: f.yml\nvariants:\n  - name: v\n    preset: minimal\nquestions:\n  - id: a\n    inputs: {week: W1}\n    expect: {no_data: true}\n", ""},
		{"pin", "eval: 1\nflow: f.yml\npin: b3:" + strings.Repeat("0", 64) + "\nquestions:\n  - id: a\n    inputs: {week: W1}\n    expect: {no_data: true}\n", "3:6 E-EVAL-PIN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, l := Parse("s.eval.yml", []byte(tt.src))
			if s == nil {
				t.Fatalf("parse: %v", l)
			}
			var got []string
			for _, d := range Check(s, testPlan(), hashid.Sum([]byte("plan"))) {
				got = append(got, strings.Join([]string{itoa(d.Line) + ":" + itoa(d.Col), d.Code}, " "))
				if d.Fix == "" {
					t.Errorf("%s has no fix", d.Code)
				}
			}
			if strings.Join(got, "; ") != tt.want {
				t.Errorf("got %q, want %q", strings.Join(got, "; "), tt.want)
			}
		})
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

func TestSQLPos(t *testing.T) {
	e := &Expect{SQLPos: posOf(10, 12)}
	if p := sqlPos(e, 1, 5); p.Line != 10 || p.Col != 16 {
		t.Errorf("plain: %+v", p)
	}
	e.SQLStyle = 2 // yaml.DoubleQuotedStyle
	if p := sqlPos(e, 1, 5); p.Line != 10 || p.Col != 17 {
		t.Errorf("quoted: %+v", p)
	}
	e.SQLStyle = 8 // yaml.LiteralStyle
	if p := sqlPos(e, 2, 3); p.Line != 12 || p.Col != 3 {
		t.Errorf("literal: %+v", p)
	}
}

func posOf(l, c int) diag.Pos { return diag.Pos{Line: l, Col: c} }

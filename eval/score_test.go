package eval

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/eval/suite"
	"github.com/agentlab/agentlab/evidence/answer"
)

func q(kind string) *suite.Question {
	e := suite.Expect{Kind: kind}
	switch kind {
	case suite.KindSQL:
		e.SQL = "SELECT SUM(amount) FROM sales"
	case suite.KindMetric:
		e.Metric = "gmv"
	}
	return &suite.Question{ID: "q", Expect: e}
}

func cardOf(*suite.Question) string { return "weekly-gmv@2" }

func TestScore(t *testing.T) {
	ok := func(text string) Answer { return Answer{Status: StatusSucceeded, Text: text} }
	tests := []struct {
		name   string
		q      *suite.Question
		exp    Expected
		ans    Answer
		pass   bool
		reason string // substring of the reason when failing
	}{
		{"sql exact", q(suite.KindSQL), Expected{Values: []float64{2300}}, ok("Revenue was 2,300."), true, ""},
		{"sql within written precision", q(suite.KindSQL), Expected{Values: []float64{2300.4}}, ok("Revenue was 2,300."), true, ""},
		{"sql outside precision", q(suite.KindSQL), Expected{Values: []float64{2301}}, ok("Revenue was 2,300."), false, "does not state 2301"},
		{"sql rounded k", q(suite.KindSQL), Expected{Values: []float64{2340}}, ok("Revenue was 2.3k."), true, ""},
		{"sql percent vs ratio", q(suite.KindSQL), Expected{Values: []float64{0.087}}, ok("Growth was 8.7%."), true, ""},
		{"sql percent points", q(suite.KindSQL), Expected{Values: []float64{8.7}}, ok("Growth was 8.7%."), true, ""},
		{"sql negative unsigned", q(suite.KindSQL), Expected{Values: []float64{-0.032}}, ok("Sales fell 3.2%."), true, ""},
		{"sql chinese", q(suite.KindSQL), Expected{Values: []float64{35000}}, ok("销售额为3.5万元。"), true, ""},
		{"sql column all present", q(suite.KindSQL), Expected{Values: []float64{3, 1}}, ok("3 orders in W47 and 1 in W48."), true, ""},
		{"sql column one missing", q(suite.KindSQL), Expected{Values: []float64{3, 2}}, ok("3 orders in W47 and 1 in W48."), false, "does not state 2"},
		{"sql date is not a number", q(suite.KindSQL), Expected{Values: []float64{2026}}, ok("As of 2026-11-29 nothing changed."), false, "does not state 2026"},
		{"sql no rows", q(suite.KindSQL), Expected{Values: nil}, ok("0"), false, "no rows"},
		{"sql expected error", q(suite.KindSQL), Expected{Err: errors.New("boom")}, ok("1"), false, "could not be computed: boom"},
		{"sql failed run", q(suite.KindSQL), Expected{Values: []float64{1}}, Answer{Status: StatusFailed, Error: "node x failed", Text: "1"}, false, "the run failed: node x failed"},
		{"metric", q(suite.KindMetric), Expected{}, Answer{Status: StatusSucceeded, Text: "GMV was 1.2M.", Metrics: map[string]float64{"gmv": 1234567}, Cards: []string{"weekly-gmv@2"}}, true, ""},
		{"metric wrong", q(suite.KindMetric), Expected{}, Answer{Status: StatusSucceeded, Text: "GMV was 1.4M.", Metrics: map[string]float64{"gmv": 1234567}}, false, "does not state 1234567"},
		{"metric absent", q(suite.KindMetric), Expected{}, ok("GMV was 1.2M."), false, "computed no metric"},
		{"metric other card", q(suite.KindMetric), Expected{}, Answer{Status: StatusSucceeded, Metrics: map[string]float64{"gmv": 1}, Cards: []string{"weekly-gmv@3"}}, false, "not the pinned weekly-gmv@2"},
		{"no data", q(suite.KindNoData), Expected{}, ok("There is no data for that week."), true, ""},
		{"no data with a date", q(suite.KindNoData), Expected{}, ok("There is no data for 2026-W47."), true, ""},
		{"no data but a number", q(suite.KindNoData), Expected{}, ok("Revenue was 12."), false, "states 12"},
		{"no data flagged", q(suite.KindNoData), Expected{}, Answer{Status: StatusSucceeded, Text: "n/a 12", NoData: true}, true, ""},
		{"asks back", q(suite.KindAsksBack), Expected{}, ok("Which week do you mean?"), true, ""},
		{"asks back chinese", q(suite.KindAsksBack), Expected{}, ok("您指的是哪一周？"), true, ""},
		{"asks back waiting", q(suite.KindAsksBack), Expected{}, Answer{Status: StatusWaiting}, true, ""},
		{"asks back answered", q(suite.KindAsksBack), Expected{}, ok("Revenue was 12."), false, "ask back"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Score(tt.q, tt.exp, tt.ans, cardOf)
			if r.Pass != tt.pass {
				t.Fatalf("pass = %v, want %v (reason %q, answered %v)", r.Pass, tt.pass, r.Reason, r.Answered)
			}
			if !tt.pass && !strings.Contains(r.Reason, tt.reason) {
				t.Errorf("reason %q does not contain %q", r.Reason, tt.reason)
			}
		})
	}
}

func TestScoreSQLShownWhenDifferent(t *testing.T) {
	qq := q(suite.KindSQL)
	ans := Answer{Status: StatusSucceeded, Text: "2300", SQL: []string{"select  sum(amount)\nfrom sales;"}}
	if r := Score(qq, Expected{Values: []float64{2300}, SQL: qq.Expect.SQL}, ans, cardOf); r.AnswerSQL != nil {
		t.Errorf("same SQL (modulo case and spaces) must not be listed, got %v", r.AnswerSQL)
	}
	ans.SQL = []string{"SELECT SUM(amount) FROM sales WHERE week = 'W1'"}
	r := Score(qq, Expected{Values: []float64{2300}, SQL: qq.Expect.SQL}, ans, cardOf)
	if !reflect.DeepEqual(r.AnswerSQL, ans.SQL) || r.ExpectedSQL != qq.Expect.SQL {
		t.Errorf("different SQL must list both, got %q and %v", r.ExpectedSQL, r.AnswerSQL)
	}
}

func TestScoreTraceable(t *testing.T) {
	qq := q(suite.KindSQL)
	r := Score(qq, Expected{Values: []float64{5}}, Answer{Status: StatusSucceeded, Text: "5", Tier: "formal"}, cardOf)
	if !r.Traceable || r.Tier != "formal" {
		t.Errorf("formal pass must be traceable: %+v", r)
	}
	r = Score(qq, Expected{Values: []float64{5}}, Answer{Status: StatusSucceeded, Text: "5", Tier: "degraded"}, cardOf)
	if r.Traceable {
		t.Error("degraded must not be traceable")
	}
	r = Score(qq, Expected{Values: []float64{6}}, Answer{Status: StatusSucceeded, Text: "5", Tier: "formal"}, cardOf)
	if r.Traceable {
		t.Error("a failed case must not be traceable")
	}
	if r := Score(qq, Expected{Values: []float64{5}}, Answer{Status: StatusSucceeded, Text: "5"}, cardOf); r.Tier != "none" {
		t.Errorf("no contract → tier none, got %q", r.Tier)
	}
}

func TestAnswerCut(t *testing.T) {
	long := strings.Repeat("é", 2000)
	r := Score(q(suite.KindNoData), Expected{}, Answer{Status: StatusSucceeded, Text: long}, cardOf)
	if len(r.Answer) > answer.MaxBytes+len("…") || !strings.HasSuffix(r.Answer, "…") {
		t.Errorf("answer not cut: %d bytes", len(r.Answer))
	}
}

package eval

import (
	"reflect"
	"testing"
)

func cases(spec ...any) []CaseResult {
	// spec: question, variant, pass triples
	var out []CaseResult
	for i := 0; i+2 < len(spec); i += 3 {
		out = append(out, CaseResult{Question: spec[i].(string), Variant: spec[i+1].(string), Pass: spec[i+2].(bool)})
	}
	return out
}

func TestCompareTransitions(t *testing.T) {
	base := &Result{Suite: "b3:s", Cases: cases(
		"a", "v", true,
		"b", "v", true,
		"c", "v", false,
		"d", "v", false,
		"gone", "v", true,
	)}
	cur := &Result{Suite: "b3:s", Cases: cases(
		"a", "v", true,
		"b", "v", false,
		"c", "v", true,
		"d", "v", false,
		"new", "v", false,
	)}
	c := Compare(base, cur, "base.json")
	want := []Transition{
		{"b", "v", "pass", "fail"},
		{"c", "v", "fail", "pass"},
		{"gone", "v", "pass", "absent"},
		{"new", "v", "absent", "fail"},
	}
	if !reflect.DeepEqual(c.Transitions, want) {
		t.Errorf("transitions = %+v", c.Transitions)
	}
	wantCounts := map[string]int{"pass→pass": 1, "pass→fail": 1, "fail→pass": 1, "fail→fail": 1, "pass→absent": 1, "absent→fail": 1}
	if !reflect.DeepEqual(c.Counts, wantCounts) {
		t.Errorf("counts = %v", c.Counts)
	}
	if c.Regressions != 2 {
		t.Errorf("regressions = %d, want 2 (b and new)", c.Regressions)
	}
	if len(c.Pairs) != 1 || c.Pairs[0].OnlyA != 1 || c.Pairs[0].OnlyB != 1 || c.Pairs[0].Both != 1 || c.Pairs[0].Neither != 1 {
		t.Errorf("pairs = %+v", c.Pairs)
	}
	if !c.SameSuite {
		t.Error("same suite hash must be reported")
	}
}

func TestRepeatsFoldIntoQuestion(t *testing.T) {
	cs := []CaseResult{
		{Question: "a", Variant: "v", Repeat: 0, Pass: true},
		{Question: "a", Variant: "v", Repeat: 1, Pass: false},
		{Question: "b", Variant: "v", Repeat: 0, Pass: true},
		{Question: "b", Variant: "v", Repeat: 1, Pass: true},
	}
	m := questionPass(cs, "v")
	if m["a"] || !m["b"] {
		t.Errorf("questionPass = %v", m)
	}
	s := Summarize(cs)[0]
	if s.Cases != 4 || s.Passed != 3 || s.Questions != 2 || s.QuestionsPassed != 1 {
		t.Errorf("summary = %+v", s)
	}
}

func TestExitCode(t *testing.T) {
	pass := &Result{Cases: cases("a", "v", true)}
	fail := &Result{Cases: cases("a", "v", true, "b", "v", false)}
	if ExitCode(pass) != 0 || ExitCode(fail) != 1 {
		t.Error("without a baseline any failure exits 1")
	}
	// With a baseline in which b already failed, b failing is no regression.
	fail.Baseline = Compare(&Result{Cases: cases("a", "v", true, "b", "v", false)}, fail, "")
	if ExitCode(fail) != 0 {
		t.Error("fail→fail is not a regression")
	}
	fail.Baseline = Compare(&Result{Cases: cases("a", "v", true, "b", "v", true)}, fail, "")
	if ExitCode(fail) != 1 {
		t.Error("pass→fail is a regression")
	}
	if ExitCode(&Result{Unrun: 1}) != 1 {
		t.Error("unrun cases exit 1")
	}
}

func TestSummarizeStats(t *testing.T) {
	var cs []CaseResult
	for i := 0; i < 10; i++ {
		c := CaseResult{Question: string(rune('a' + i)), Variant: "v", Pass: i < 8, Tier: "none", Tokens: 100 * (i + 1), CostUSD: 0.01, Millis: float64(i + 1)}
		if i < 4 {
			c.Tier, c.Traceable = "formal", true
		}
		cs = append(cs, c)
	}
	s := Summarize(cs)[0]
	// 8/10 → Wilson [0.490, 0.943] (see stats tests for the source).
	if s.Accuracy != 0.8 || s.CI[0] < 0.490 || s.CI[0] > 0.491 || s.CI[1] < 0.943 || s.CI[1] > 0.944 {
		t.Errorf("accuracy %v CI %v", s.Accuracy, s.CI)
	}
	if s.Traceable != 4 || s.TraceableAccuracy != 0.4 {
		t.Errorf("traceable %d %v", s.Traceable, s.TraceableAccuracy)
	}
	if s.Tiers["formal"] != 4 || s.Tiers["none"] != 6 {
		t.Errorf("tiers %v", s.Tiers)
	}
	if s.Tokens.P50 != 500 || s.Tokens.P90 != 900 || s.Tokens.P99 != 1000 {
		t.Errorf("tokens %+v", s.Tokens)
	}
	if s.TotalCostUSD < 0.0999 || s.TotalCostUSD > 0.1001 {
		t.Errorf("total cost %v", s.TotalCostUSD)
	}
}

func TestPairs(t *testing.T) {
	// b=1 (only A), c=7 (only B) → exact McNemar p = 0.0703.
	var cs []CaseResult
	for i := 0; i < 10; i++ {
		id := string(rune('a' + i))
		a, b := false, true
		switch {
		case i == 0:
			a, b = true, false
		case i >= 8:
			a, b = true, true
		}
		cs = append(cs, CaseResult{Question: id, Variant: "A", Pass: a}, CaseResult{Question: id, Variant: "B", Pass: b})
	}
	ps := Pairs(cs, []string{"A", "B"})
	if len(ps) != 1 || ps[0].OnlyA != 1 || ps[0].OnlyB != 7 || ps[0].Both != 2 {
		t.Fatalf("pairs %+v", ps)
	}
	if ps[0].P < 0.0703 || ps[0].P > 0.0704 {
		t.Errorf("p = %v, want 0.0703", ps[0].P)
	}
}

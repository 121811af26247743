package eval

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentlab/agentlab/eval/suite"
	"github.com/agentlab/agentlab/evidence/answer"
	"github.com/agentlab/agentlab/run/redact"
)

// countingOracle counts the queries it is asked to evaluate.
type countingOracle struct{ n atomic.Int64 }

func (o *countingOracle) Expected(ctx context.Context, q *suite.Question) Expected {
	o.n.Add(1)
	return fakeOracle{}.Expected(ctx, q)
}

// TestEachDistinctQueryRunsOnce plays a suite author who writes the same
// expectation query under many questions (and repeats): it is evaluated
// once per evaluation, while a different query, or the same query on
// another source, is evaluated on its own.
func TestEachDistinctQueryRunsOnce(t *testing.T) {
	s := parseFake(t, `eval: 1
name: same-query
flow: flow.yml
variants:
  - name: v
    repeats: 3
questions:
  - id: a
    expect: {sql: "SELECT 1"}
  - id: b
    expect: {sql: "SELECT 1"}
  - id: c
    expect: {sql: "SELECT 1", source: other}
  - id: d
    expect: {sql: "SELECT 2"}
`)
	o := fakeOptions(t, &fakeRunner{})
	oracle := &countingOracle{}
	o.Suite, o.Oracle, o.Parallel = s, oracle, 4
	res, err := Evaluate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cases) != 12 {
		t.Fatalf("%d cases, want 12", len(res.Cases))
	}
	if got := oracle.n.Load(); got != 3 {
		t.Errorf("the oracle was asked %d times for 3 distinct queries", got)
	}
	for _, c := range res.Cases {
		want := 1.0
		if c.Question == "d" {
			want = 2
		}
		if len(c.Expected) != 1 || c.Expected[0] != want {
			t.Errorf("case %s expected %v, want [%v]", c.Question, c.Expected, want)
		}
	}
}

// TestExpectationsForgottenAfterLastUse: an expected value is dropped once
// every case prepared for it has asked, and only then (a later ask of the
// same query would evaluate it again); a question nobody prepared for is
// still answered.
func TestExpectationsForgottenAfterLastUse(t *testing.T) {
	s := parseFake(t, `eval: 1
name: forget
flow: flow.yml
variants:
  - name: v
    repeats: 2
questions:
  - id: a
    expect: {sql: "SELECT 1"}
  - id: b
    expect: {sql: "SELECT 1"}
  - id: c
    expect: {sql: "SELECT 2"}
`)
	o := fakeOptions(t, &fakeRunner{})
	o.Suite = s
	cases, _, _ := Cases(&o)
	oracle := &countingOracle{}
	x := newExpectations(oracle, cases)
	ctx := context.Background()
	for i, c := range cases {
		if e := x.get(ctx, c.Question); len(e.Values) != 1 {
			t.Fatalf("case %d: %+v", i, e)
		}
		if i == 0 && len(x.m) != 2 {
			t.Fatalf("after the first of four uses, %d queries are held, want 2", len(x.m))
		}
	}
	if len(x.m) != 0 || oracle.n.Load() != 2 {
		t.Fatalf("after every case: %d queries held (want 0), %d evaluations (want 2)", len(x.m), oracle.n.Load())
	}
	other := &suite.Question{ID: "z", Expect: suite.Expect{Kind: suite.KindSQL, SQL: "SELECT 3"}}
	if e := x.get(ctx, other); len(e.Values) != 1 || oracle.n.Load() != 3 {
		t.Fatalf("an unprepared question: %+v, %d evaluations", e, oracle.n.Load())
	}
}

// TestFailureReasonIsCut: a reason quoting a huge value (an expectation's
// error carrying a whole cell) is kept at most as long as an answer.
func TestFailureReasonIsCut(t *testing.T) {
	q := &suite.Question{ID: "q", Expect: suite.Expect{Kind: suite.KindSQL, SQL: "SELECT big"}}
	huge := strings.Repeat("x", 1<<20)
	r := Score(q, Expected{SQL: q.Expect.SQL, Err: errors.New("the cell holds text: " + huge)}, Answer{Status: StatusSucceeded, Text: "42"}, nil)
	if r.Pass || len(r.Reason) > answer.MaxBytes+len("…") || !strings.HasSuffix(r.Reason, "…") {
		t.Fatalf("pass %v, reason of %d bytes", r.Pass, len(r.Reason))
	}
}

// TestAnsweredNumbersHoldNoSecret: an answer that writes a numeric secret
// in another form ("7,391,462,850") is read as that number; it is left out
// of the answered numbers, which the record and the result keep, while
// the other numbers stay.
func TestAnsweredNumbersHoldNoSecret(t *testing.T) {
	redact.Add("7391462850")
	q := &suite.Question{ID: "q", Expect: suite.Expect{Kind: suite.KindSQL, SQL: "SELECT 10001"}}
	r := Score(q, Expected{SQL: q.Expect.SQL, Values: []float64{10001}}, Answer{Status: StatusSucceeded, Text: "10,001 orders; token 7,391,462,850"}, nil)
	if len(r.Answered) != 1 || r.Answered[0] != 10001 || !r.Pass {
		t.Fatalf("answered %v, pass %v", r.Answered, r.Pass)
	}
}

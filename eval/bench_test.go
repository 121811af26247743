package eval

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/eval/suite"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run/provider"
)

// benchSuite has n questions with one SQL check each.
func benchSuite(b *testing.B, n int) *suite.Suite {
	var sb strings.Builder
	sb.WriteString("eval: 1\nname: bench\nflow: flow.yml\nquestions:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "  - id: q%d\n    inputs: {question: \"What was revenue in region %d?\"}\n    expect: {sql: \"SELECT %d\"}\n", i, i, 1000+i)
	}
	s, l := suite.Parse("bench.eval.yml", []byte(sb.String()))
	if s == nil {
		b.Fatal(l)
	}
	return s
}

// mockRunner answers with the deterministic mock provider in-process and
// states the expected figure, so that every check is exercised to a pass.
// It leaves out the engine and the per-run store writes, which have their
// own benchmarks (run/engine, run/store): this measures the harness.
type mockRunner struct{ p provider.Provider }

func (m mockRunner) Run(ctx context.Context, c Case) (Answer, error) {
	q, _ := c.Question.Inputs["question"].(string)
	resp, err := m.p.Complete(ctx, provider.Request{Node: "answer", Kind: provider.KindLLM,
		Messages: []provider.Message{{Role: provider.RoleUser, Content: q}}, Seed: c.Variant.Seed}, nil)
	if err != nil {
		return Answer{}, err
	}
	v := strings.TrimPrefix(c.Question.Expect.SQL, "SELECT ")
	return Answer{Status: StatusSucceeded, Text: resp.Text + " Revenue was " + v + ".", Tier: "formal",
		InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens}, nil
}

func benchEval(b *testing.B, sealed bool) {
	s := benchSuite(b, 1000)
	p := &plan.Plan{Name: "bench", Nodes: []plan.Node{{ID: "answer", Type: "llm"}}}
	r := mockRunner{provider.NewMock(provider.Options{Seed: 1})}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		o := Options{Suite: s, Plan: p, PlanHash: hashid.Sum([]byte("bench")), Runner: r, Oracle: fakeOracle{}, Parallel: 2}
		if sealed {
			b.StopTimer()
			o.DataDir = b.TempDir()
			b.StartTimer()
		}
		res, err := Evaluate(context.Background(), o)
		if err != nil {
			b.Fatal(err)
		}
		if res.Summary[0].Passed != 1000 {
			b.Fatalf("%d of 1000 passed", res.Summary[0].Passed)
		}
	}
	b.StopTimer()
	nsPerQ := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / 1000
	b.ReportMetric(nsPerQ/1e6, "ms/question")
}

// BenchmarkEvalMock1000 evaluates 1,000 questions with one check each on
// the mock provider, without recording (docs/performance.md budget: ≤ 0.35 ms and
// ≤ 50 KB per question; divide B/op by 1,000).
func BenchmarkEvalMock1000(b *testing.B) { benchEval(b, false) }

// BenchmarkEvalMock1000Sealed is the same with the evaluation recorded and
// sealed in a data dir (one artifact and one fsync'd event per case).
func BenchmarkEvalMock1000Sealed(b *testing.B) { benchEval(b, true) }

package provider

import (
	"slices"
	"testing"
)

func TestPickLabel(t *testing.T) {
	tests := []struct {
		name     string
		labels   []string
		question string
		want     string // "" = seed-derived, must be one of labels
	}{
		{"one word matches", []string{"billing", "technical", "other"}, "I was charged twice on my billing statement", "billing"},
		{"case and punctuation", []string{"billing", "technical"}, "TECHNICAL problem: app crashes.", "technical"},
		{"underscore words", []string{"needs_review", "auto_approve"}, "this one needs a careful review", "needs_review"},
		{"more matches win", []string{"yes", "no"}, "Choose yes or no. The answer is clearly no.", "no"},
		{"listed labels only", []string{"yes", "no"}, "Answer yes or no.", ""},
		{"tie goes to earlier", []string{"refund", "exchange", "other"}, "refund or exchange?", "refund"},
		{"no match", []string{"alpha", "beta"}, "something unrelated", ""},
		{"chinese", []string{"退款", "换货"}, "客户要求退款", "退款"},
		{"empty question", []string{"a", "b", "c"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string]bool{}
			for seed := int64(0); seed < 30; seed++ {
				resp, _ := complete(t, NewMock(Options{Seed: seed}), Request{Node: "route", Kind: KindBranch, Labels: tt.labels, Messages: userMsg(tt.question)})
				if !slices.Contains(tt.labels, resp.Text) {
					t.Fatalf("seed %d: %q is not a label", seed, resp.Text)
				}
				if tt.want != "" && resp.Text != tt.want {
					t.Fatalf("seed %d: got %q, want %q", seed, resp.Text, tt.want)
				}
				got[resp.Text] = true
			}
			if tt.want == "" && len(got) < 2 {
				t.Errorf("seed-derived pick never varies: %v", got)
			}
		})
	}
}

func TestMockJudge(t *testing.T) {
	counts := map[string]int{}
	for seed := int64(0); seed < 400; seed++ {
		resp, _ := complete(t, NewMock(Options{Seed: seed}), Request{Node: "brief", Kind: KindJudge, Messages: userMsg("Claim: sales grew. Evidence: Q1")})
		if !slices.Contains(Verdicts, resp.Text) {
			t.Fatalf("seed %d: verdict %q", seed, resp.Text)
		}
		counts[resp.Text]++
	}
	for _, v := range Verdicts {
		if counts[v] == 0 {
			t.Errorf("verdict %q never given in 400 seeds: %v", v, counts)
		}
	}
	if counts["supported"] < counts["unsupported"] {
		t.Errorf("supported should be the most common verdict: %v", counts)
	}
	// With a schema the drawn verdict lands in the enum field.
	schema := map[string]any{"type": "object", "required": []any{"verdict"}, "properties": map[string]any{
		"verdict": map[string]any{"enum": []any{"supported", "partly", "unsupported", "not_a_claim"}}}}
	for seed := int64(0); seed < 20; seed++ {
		r := newRNG(seed, mustMaterial(t, Request{Node: "j", Kind: KindJudge, Messages: userMsg("x"), OutputSchema: schema}))
		want := judgeVerdict(r)
		js, _ := complete(t, NewMock(Options{Seed: seed}), Request{Node: "j", Kind: KindJudge, Messages: userMsg("x"), OutputSchema: schema})
		if js.Text != `{"verdict":"`+want+`"}` {
			t.Errorf("seed %d: %s, want verdict %q", seed, js.Text, want)
		}
	}
}

func mustMaterial(t *testing.T, req Request) []byte {
	t.Helper()
	b, err := requestMaterial(req)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

package eval

import (
	"sort"

	"github.com/agentlab/agentlab/eval/stats"
)

// Summarize computes the per-variant summaries of cases, in the order the
// variants first appear.
func Summarize(cases []CaseResult) []VariantSummary {
	var order []string
	by := map[string][]*CaseResult{}
	for i := range cases {
		c := &cases[i]
		if _, ok := by[c.Variant]; !ok {
			order = append(order, c.Variant)
		}
		by[c.Variant] = append(by[c.Variant], c)
	}
	out := make([]VariantSummary, 0, len(order))
	for _, v := range order {
		cs := by[v]
		s := VariantSummary{Variant: v, Cases: len(cs), Tiers: map[string]int{}}
		tokens := make([]float64, 0, len(cs))
		cost := make([]float64, 0, len(cs))
		ms := make([]float64, 0, len(cs))
		qpass := map[string]bool{}
		for _, c := range cs {
			if c.Pass {
				s.Passed++
			}
			if c.Traceable {
				s.Traceable++
			}
			s.Tiers[c.Tier]++
			tokens = append(tokens, float64(c.Tokens))
			cost = append(cost, c.CostUSD)
			ms = append(ms, c.Millis)
			s.TotalCostUSD += c.CostUSD
			for _, kp := range c.KeyPoints {
				if kp.Verdict == VerdictNotJudged {
					continue
				}
				s.KeyPointsJudged++
				if kp.Verdict == "supported" {
					s.KeyPointsSupported++
				}
			}
			prev, seen := qpass[c.Question]
			qpass[c.Question] = c.Pass && (!seen || prev)
		}
		s.Questions = len(qpass)
		for _, ok := range qpass {
			if ok {
				s.QuestionsPassed++
			}
		}
		s.Accuracy = ratio(s.Passed, s.Cases)
		s.CI[0], s.CI[1] = stats.Wilson(s.Passed, s.Cases, stats.Z95)
		s.TraceableAccuracy = ratio(s.Traceable, s.Cases)
		s.TraceableCI[0], s.TraceableCI[1] = stats.Wilson(s.Traceable, s.Cases, stats.Z95)
		s.Tokens = stats.SpreadOf(tokens)
		s.Cost = stats.SpreadOf(cost)
		s.Millis = stats.SpreadOf(ms)
		out = append(out, s)
	}
	return out
}

func ratio(k, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(k) / float64(n)
}

// questionPass maps question → pass for one variant: a question passes
// when every repeat passed.
func questionPass(cases []CaseResult, variant string) map[string]bool {
	out := map[string]bool{}
	for i := range cases {
		c := &cases[i]
		if c.Variant != variant {
			continue
		}
		prev, seen := out[c.Question]
		out[c.Question] = c.Pass && (!seen || prev)
	}
	return out
}

// PairOf compares variant a of as with variant b of bs over the questions
// both have.
func PairOf(aName string, a map[string]bool, bName string, b map[string]bool) Pair {
	p := Pair{A: aName, B: bName}
	qs := make([]string, 0, len(a))
	for q := range a {
		if _, ok := b[q]; ok {
			qs = append(qs, q)
		}
	}
	sort.Strings(qs)
	for _, q := range qs {
		switch pa, pb := a[q], b[q]; {
		case pa && pb:
			p.Both++
		case pa:
			p.OnlyA++
		case pb:
			p.OnlyB++
		default:
			p.Neither++
		}
	}
	p.P = stats.McNemarExact(p.OnlyA, p.OnlyB)
	return p
}

// Pairs compares the first variant with each other one.
func Pairs(cases []CaseResult, variants []string) []Pair {
	out := []Pair{}
	if len(variants) < 2 {
		return out
	}
	a := questionPass(cases, variants[0])
	for _, v := range variants[1:] {
		out = append(out, PairOf(variants[0], a, v, questionPass(cases, v)))
	}
	return out
}

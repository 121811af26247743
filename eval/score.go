package eval

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/agentlab/agentlab/eval/suite"
	"github.com/agentlab/agentlab/evidence/answer"
)

// Expected is an expectation made concrete for one evaluation.
type Expected struct {
	Values []float64 // sql: every cell of the selected column; metric: filled per answer
	SQL    string
	Err    error // the expected value could not be computed
}

// Score decides one case. For sql and metric expectations every expected
// value must appear among the answer's quantities within written precision
// (an SQL column of three rows needs all three). no_data passes when the
// run succeeded and the answer states no quantity (or its output sets
// no_data: true); asks_back passes when the run paused for a person or the
// answer, stating no quantity, ends with a question mark. A run that did
// not succeed never passes a numeric expectation.
func Score(q *suite.Question, exp Expected, ans Answer, cardOf func(*suite.Question) string) CaseResult {
	ns := quantities(ans.Text)
	r := CaseResult{
		Question: q.ID, Kind: q.Expect.Kind, Status: ans.Status, Tier: ans.Tier,
		Answered: answered(ns), Run: ans.Run, Seal: ans.Seal,
		Tokens: ans.InputTokens + ans.OutputTokens, CostUSD: ans.CostUSD, runLog: ans.Log, runArtifacts: ans.Artifacts,
	}
	if r.Tier == "" {
		r.Tier = "none"
	}
	r.Answer = answer.Cut(ans.Text, answer.MaxBytes)
	fail := func(format string, args ...any) CaseResult {
		r.Pass = false
		// cut like the answer: a reason quoting a huge cell or error would
		// otherwise be kept whole in the record and the result
		r.Reason = answer.Cut(fmt.Sprintf(format, args...), answer.MaxBytes)
		return r
	}
	switch q.Expect.Kind {
	case suite.KindSQL, suite.KindMetric:
		values := exp.Values
		if q.Expect.Kind == suite.KindSQL {
			r.ExpectedSQL = exp.SQL
			if !sameSQL(exp.SQL, ans.SQL) {
				r.AnswerSQL = ans.SQL
			}
		}
		if exp.Err != nil {
			return fail("the expected value could not be computed: %v", exp.Err)
		}
		if q.Expect.Kind == suite.KindMetric {
			card := cardOf(q)
			if len(ans.Cards) > 0 && !containsStr(ans.Cards, card) {
				return fail("the run computed its metrics with card %s, not the pinned %s", strings.Join(ans.Cards, ", "), card)
			}
			v, ok := ans.Metrics[q.Expect.Metric]
			if cm, dual := ans.CardMetrics[card]; dual {
				v, ok = cm[q.Expect.Metric] // the pinned version of a dual card
			}
			if !ok {
				if ans.Status != StatusSucceeded {
					return fail("the run %s: %s", ans.Status, orNone(ans.Error))
				}
				return fail("the run computed no metric %q", q.Expect.Metric)
			}
			values = []float64{v}
		}
		r.Expected = values
		if ans.Status != StatusSucceeded {
			return fail("the run %s: %s", ans.Status, orNone(ans.Error))
		}
		if len(values) == 0 {
			return fail("the expectation's query returned no rows, so there is nothing to find in the answer; use no_data: true if that is the point")
		}
		for _, v := range values {
			if !found(v, ns) {
				r.Missing = append(r.Missing, v)
			}
		}
		if len(r.Missing) > 0 {
			return fail("the answer does not state %s (it states %s)", listNums(r.Missing), orNone(listNums(r.Answered)))
		}
	case suite.KindNoData:
		if ans.Status != StatusSucceeded {
			return fail("the run %s: %s", ans.Status, orNone(ans.Error))
		}
		if !ans.NoData && len(ns) > 0 {
			return fail("expected an answer saying there is no data, but it states %s", listNums(r.Answered))
		}
	case suite.KindAsksBack:
		if ans.Status == StatusWaiting {
			break
		}
		if ans.Status != StatusSucceeded {
			return fail("the run %s: %s", ans.Status, orNone(ans.Error))
		}
		if len(ns) > 0 || !endsWithQuestion(ans.Text) {
			return fail("expected the answer to ask back (a question, no numbers), got %q", answer.Cut(ans.Text, 120))
		}
	default:
		return fail("unknown expectation kind %q", q.Expect.Kind)
	}
	r.Pass = true
	r.Traceable = ans.Tier == "formal"
	return r
}

// sameSQL reports whether want is among got, compared without case and
// with runs of white space folded.
func sameSQL(want string, got []string) bool {
	w := normSQL(want)
	for _, g := range got {
		if normSQL(g) == w {
			return true
		}
	}
	return false
}

func normSQL(s string) string {
	return strings.TrimRight(strings.ToLower(strings.Join(strings.Fields(s), " ")), "; ")
}

func endsWithQuestion(s string) bool {
	s = strings.TrimRightFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '"' || r == '”' || r == '）' || r == ')' })
	return strings.HasSuffix(s, "?") || strings.HasSuffix(s, "？")
}

func listNums(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		if x != 0 && (math.Abs(x) >= 1e15 || math.Abs(x) < 1e-6) {
			parts[i] = strconv.FormatFloat(x, 'g', -1, 64)
		} else {
			parts[i] = strconv.FormatFloat(x, 'f', -1, 64)
		}
	}
	return strings.Join(parts, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}

func containsStr(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// cut shortens s to at most n bytes on a rune boundary.

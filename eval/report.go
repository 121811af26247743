package eval

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/agentlab/agentlab/eval/junit"
)

// WriteJUnit writes r as JUnit XML.
func WriteJUnit(w io.Writer, r *Result) error {
	cs := make([]junit.Case, len(r.Cases))
	for i := range r.Cases {
		c := &r.Cases[i]
		cs[i] = junit.Case{Question: c.Question, Variant: c.Variant, Repeat: c.Repeat, Pass: c.Pass, Reason: c.Reason,
			Seconds: c.Millis / 1000, Detail: detail(c)}
	}
	name := r.Name
	if name == "" {
		name = "eval"
	}
	return junit.Write(w, name, cs)
}

// detail is the failure body beyond the reason: numbers, SQL, run.
func detail(c *CaseResult) string {
	var b strings.Builder
	if len(c.Expected) > 0 {
		fmt.Fprintf(&b, "expected: %s\n", listNums(c.Expected))
	}
	fmt.Fprintf(&b, "answered: %s\n", orNone(listNums(c.Answered)))
	if c.ExpectedSQL != "" {
		fmt.Fprintf(&b, "expected SQL: %s\n", oneLine(c.ExpectedSQL))
		for _, s := range c.AnswerSQL {
			fmt.Fprintf(&b, "answer SQL:   %s\n", oneLine(s))
		}
	}
	if c.Run != "" {
		fmt.Fprintf(&b, "run: %s (status %s, tier %s)\n", c.Run, c.Status, c.Tier)
	}
	return strings.TrimRight(b.String(), "\n")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// WriteText writes the human-readable report: failures with their
// numbers, per-variant accuracy with intervals, tiers, percentiles, the
// A/B pairs and the baseline transitions.
func WriteText(w io.Writer, r *Result) {
	fmt.Fprintf(w, "eval %s  suite %s  plan %s", r.Eval, short(r.Suite), short(r.Plan))
	if r.Shard != nil {
		fmt.Fprintf(w, "  shard %s", r.Shard)
	}
	fmt.Fprintln(w)
	for i := range r.Cases {
		c := &r.Cases[i]
		if c.Pass {
			continue
		}
		fmt.Fprintf(w, "FAIL %s [%s #%d]: %s\n", c.Question, c.Variant, c.Repeat+1, c.Reason)
		for _, line := range strings.Split(detail(c), "\n") {
			if line != "" {
				fmt.Fprintf(w, "     %s\n", line)
			}
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-16s %9s %-22s %-22s %-28s %s\n", "variant", "passed", "accuracy (95% CI)", "traceable (95% CI)", "tiers", "key points")
	for _, s := range r.Summary {
		kp := "-"
		if s.KeyPointsJudged > 0 {
			kp = fmt.Sprintf("%d/%d supported", s.KeyPointsSupported, s.KeyPointsJudged)
		}
		fmt.Fprintf(w, "%-16s %9s %-22s %-22s %-28s %s\n", s.Variant, fmt.Sprintf("%d/%d", s.Passed, s.Cases),
			pct(s.Accuracy, s.CI), pct(s.TraceableAccuracy, s.TraceableCI), tiers(s.Tiers), kp)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-16s %-24s %-30s %s\n", "variant", "tokens p50/p90/p99", "cost USD p50/p90/p99 (total)", "time ms p50/p90/p99")
	for _, s := range r.Summary {
		fmt.Fprintf(w, "%-16s %-24s %-30s %s\n", s.Variant,
			fmt.Sprintf("%s/%s/%s", num(s.Tokens.P50), num(s.Tokens.P90), num(s.Tokens.P99)),
			fmt.Sprintf("%s/%s/%s (%s)", usd(s.Cost.P50), usd(s.Cost.P90), usd(s.Cost.P99), usd(s.TotalCostUSD)),
			fmt.Sprintf("%s/%s/%s", ms(s.Millis.P50), ms(s.Millis.P90), ms(s.Millis.P99)))
	}
	pairs := append([]Pair(nil), r.Pairs...)
	if r.Baseline != nil {
		pairs = append(pairs, r.Baseline.Pairs...)
	}
	if len(pairs) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "A/B (questions; exact McNemar, shown, not gating)")
		for _, p := range pairs {
			fmt.Fprintf(w, "  %s vs %s: both %d, only A %d, only B %d, neither %d, p = %.4g\n", p.A, p.B, p.Both, p.OnlyA, p.OnlyB, p.Neither, p.P)
		}
	}
	if b := r.Baseline; b != nil {
		fmt.Fprintln(w)
		same := ""
		if !b.SameSuite {
			same = " (the suite has changed since)"
		}
		fmt.Fprintf(w, "baseline %s%s: %d regression(s)\n", b.File, same, b.Regressions)
		keys := make([]string, 0, len(b.Counts))
		for k := range b.Counts {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(w, "  %-14s %d\n", k, b.Counts[k])
		}
		for _, t := range b.Transitions {
			mark := " "
			if t.Regression() {
				mark = "!"
			}
			fmt.Fprintf(w, "  %s %s [%s]: %s → %s\n", mark, t.Question, t.Variant, t.Before, t.After)
		}
	}
	fmt.Fprintln(w)
	switch {
	case r.Status != "complete":
		fmt.Fprintf(w, "incomplete: %d case(s) not run; continue with --resume\n", r.Unrun)
	case r.Seal != "":
		fmt.Fprintf(w, "sealed %s\n", r.Seal)
	}
}

func short(s string) string {
	if len(s) > 15 {
		return s[:15]
	}
	return s
}

func pct(x float64, ci Interval) string {
	return fmt.Sprintf("%.1f%% [%.1f, %.1f]", 100*x, 100*ci[0], 100*ci[1])
}

func tiers(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ":" + strconv.Itoa(m[k])
	}
	return strings.Join(parts, " ")
}

func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
func usd(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }
func ms(x float64) string  { return strconv.FormatFloat(x, 'f', 1, 64) }

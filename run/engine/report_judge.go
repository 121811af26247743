package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentlab/agentlab/evidence"
)

// The judge's defaults (docs/language.md, report): a report's conclusions
// are judged up to 40 sentences and 30 seconds, so that a long report or
// a slow judge model cannot hold the run up without bound.
const (
	DefaultJudgeSentences = 40
	DefaultJudgeTimeout   = 30 * time.Second
)

// Judge warnings (node.warning codes).
const (
	WarnJudgeBudget = "W-REPORT-JUDGE-BUDGET"
	WarnJudgeTime   = "W-REPORT-JUDGE-TIME"
	WarnJudgeSame   = "W-REPORT-JUDGE-SAME-MODEL"
)

// judgeVerdicts are the answers a judge may give.
var judgeVerdicts = map[string]bool{"supported": true, "partly": true, "unsupported": true, "not_a_claim": true}

// judgeResult is what judging a report found.
type judgeResult struct {
	violations []evidence.Violation // one per unsupported claim
	unjudged   int                  // claims left without a verdict by a cap
	used       Usage
}

// judge asks a model, one call per conclusion sentence, whether the
// sentence is supported by what it cites. It stops at judge.max_sentences
// sentences, once judge.max_cost_usd is spent or when judge.timeout_s has
// passed (a warning event says how many claims were left unjudged; the
// issuance contract degrades the output for them). An answer that is not
// one of the verdicts counts as "unsupported", which is a violation.
func (t *task) judge(ctx context.Context, text string, c *citable, cl []evidence.Claim, writer, shown string) (judgeResult, error) {
	var res judgeResult
	j := t.node.Map("judge")
	jm, _ := j["model"].(string)
	if jm == "" {
		jm = writer
	}
	if jm == writer {
		if err := t.warn(WarnJudgeSame, "the judge model %q is the model that wrote the report; a model tends to approve its own claims, so name another judge.model", shown); err != nil {
			return res, err
		}
	}
	maxN := DefaultJudgeSentences
	if x, ok := j["max_sentences"].(float64); ok && x > 0 {
		maxN = int(x)
	}
	maxCost := -1.0
	if x, ok := j["max_cost_usd"].(float64); ok && x >= 0 {
		maxCost = x
	}
	timeout := DefaultJudgeTimeout
	if x, ok := j["timeout_s"].(float64); ok && x > 0 {
		timeout = time.Duration(x * float64(time.Second))
	}
	jctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	timeUp := func(i int) error {
		res.unjudged = len(cl) - i
		return t.warn(WarnJudgeTime, "%d claim(s) were not judged: the judge's time cap (timeout_s %g) was reached", res.unjudged, timeout.Seconds())
	}
	judged := 0
	for i := range cl {
		if judged >= maxN || (maxCost >= 0 && res.used.CostUSD >= maxCost) {
			res.unjudged = len(cl) - i
			if err := t.warn(WarnJudgeBudget, "%d claim(s) were not judged: the judge budget (max_sentences %d, max_cost_usd %g) was reached", res.unjudged, maxN, maxCost); err != nil {
				return res, err
			}
			break
		}
		if jctx.Err() != nil && ctx.Err() == nil {
			if err := timeUp(i); err != nil {
				return res, err
			}
			break
		}
		sent := text[cl[i].Start:cl[i].End]
		req := ModelRequest{
			Node: t.modelID() + ":judge", Call: t.r.nextCall(t.modelID() + ":judge"), Kind: "judge", Model: jm, Seed: t.r.cfg.Seed,
			System:   "You check one claim of a report against the evidence it cites. Answer with exactly one word: supported, partly, unsupported or not_a_claim.",
			Messages: []Message{{Role: "user", Content: "Claim: " + fill(sent, c) + "\nAs written: " + sent}},
		}
		resp, err := t.r.cfg.Model.Complete(jctx, req, func(string) {})
		if err != nil {
			res.used = addUsage(res.used, billedBy(err))
			if ctx.Err() == nil && (jctx.Err() != nil || errors.Is(err, context.DeadlineExceeded)) {
				if err := timeUp(i); err != nil {
					return res, err
				}
				break
			}
			return res, fmt.Errorf("node %q: the judge call failed: %w", t.id, err)
		}
		res.used = addUsage(res.used, resp.Usage)
		judged++
		v := strings.ToLower(strings.Trim(strings.TrimSpace(resp.Text), ".!\"'"))
		if !judgeVerdicts[v] {
			v = "unsupported"
		}
		cl[i].Verdict = v
		if v == "unsupported" {
			res.violations = append(res.violations, evidence.Violation{Start: cl[i].Start, End: cl[i].End, Kind: vUnsupported, Text: sent,
				Message: "the judge found the claim not supported by the evidence it cites"})
		}
	}
	return res, nil
}

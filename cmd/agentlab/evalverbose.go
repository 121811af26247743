package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/agentlab/agentlab/eval"
)

// evalCaseDetail prints, for eval --verbose, what one case's line leaves
// out: its run, status and tier, tokens and cost, and why it failed.
func evalCaseDetail(w io.Writer, c eval.CaseResult) {
	facts := []string{"status " + c.Status, "tier " + c.Tier, fmt.Sprintf("%d tokens", c.Tokens), fmt.Sprintf("$%.4f", c.CostUSD)}
	if c.Run != "" {
		facts = append([]string{"run " + c.Run}, facts...)
	}
	fmt.Fprintf(w, "     %s\n", strings.Join(facts, ", "))
	if c.Reason != "" {
		fmt.Fprintf(w, "     reason: %s\n", c.Reason)
	}
}

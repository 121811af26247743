package main

import (
	"strings"
	"testing"

	"github.com/agentlab/agentlab/run/engine"
)

// A node whose model has no price shows its cost as "+?", in its row and
// in the total, never as a plain "$0.0000" that reads as free.
func TestSummaryTableUnknownCost(t *testing.T) {
	var b strings.Builder
	summaryTable(&b, []engine.NodeSummary{
		{Node: "priced", Type: "llm", Status: "finished", Usage: engine.Usage{InputTokens: 10, OutputTokens: 5, CostUSD: 0.25}},
		{Node: "unpriced", Type: "llm", Status: "finished", Usage: engine.Usage{InputTokens: 10, OutputTokens: 5, CostUnknown: true}},
	})
	out := b.String()
	for _, want := range []string{"$0.2500 ", "$0.0000+?", "$0.2500+?"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

package main

import (
	"strings"
	"testing"
	"time"

	"github.com/agentlab/agentlab/run/engine"
)

// TestProgressVerbose checks the plain lines --verbose prints: the node's
// type and facts in parentheses, a detail in full on indented lines.
func TestProgressVerbose(t *testing.T) {
	tests := []struct {
		name    string
		verbose bool
		updates []engine.Update
		want    string
	}{
		{
			name:    "finished with usage",
			verbose: true,
			updates: []engine.Update{
				{Node: "draft", Type: "llm", State: engine.StateRunning},
				{Node: "draft", Type: "llm", State: engine.StateFinished, Elapsed: 1200 * time.Millisecond,
					Usage: engine.Usage{InputTokens: 812, OutputTokens: 95, CostUSD: 0.0021}},
			},
			want: "running   draft (llm)\nfinished  draft (llm, 1.2s, 812/95 tokens, $0.0021)\n",
		},
		{
			name:    "unknown cost is not free",
			verbose: true,
			updates: []engine.Update{{Node: "d", Type: "llm", State: engine.StateFinished, Usage: engine.Usage{InputTokens: 1, OutputTokens: 2, CostUnknown: true}}},
			want:    "finished  d (llm, 1/2 tokens, $0.0000+?)\n",
		},
		{
			name:    "failed with a detail of two lines",
			verbose: true,
			updates: []engine.Update{{Node: "pull", Type: "tool", State: engine.StateFailed, Elapsed: 30 * time.Millisecond,
				Detail: "E-SQL-EXEC: no such column: amout\ncontinue with: agentlab resume R"}},
			want: "failed    pull (tool, 30ms)\n          E-SQL-EXEC: no such column: amout\n          continue with: agentlab resume R\n",
		},
		{
			name:    "restored",
			verbose: true,
			updates: []engine.Update{{Node: "a", Type: "transform", State: engine.StateFinished, Cached: true}},
			want:    "finished  a (transform, restored)\n",
		},
		{
			name:    "not verbose: first line of the detail only",
			updates: []engine.Update{{Node: "pull", Type: "tool", State: engine.StateFailed, Detail: "one\ntwo"}},
			want:    "failed    pull: one\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			p := &progress{w: &b, verbose: tt.verbose, nodes: map[string]*nodeView{}}
			for _, u := range tt.updates {
				p.observe(u)
			}
			if got := b.String(); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

package main

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/run/engine"
)

// TestAskHuman drives the inline question of a human node as a person at
// a terminal would answer it.
func TestAskHuman(t *testing.T) {
	tests := []struct {
		name, input string
		q           engine.HumanQuestion
		want        engine.HumanDecision
		approved    bool
	}{
		{"assignee approves", "Yes\nann\nfine by me\n", engine.HumanQuestion{Node: "gate", Prompt: "Ship?", Assignees: []string{"ann"}, Decision: "any"},
			engine.HumanDecision{By: "ann", Answer: "Yes", Comment: "fine by me"}, true},
		{"anything else rejects", "sure\nann\n\n", engine.HumanQuestion{Node: "gate", Prompt: "Ship?", Assignees: []string{"ann"}},
			engine.HumanDecision{By: "ann", Answer: "sure"}, false},
		{"no assignees: the user", "同意\n\n", engine.HumanQuestion{Node: "gate", Prompt: "Ship?"},
			engine.HumanDecision{By: "tester", Answer: "同意"}, true},
	}
	t.Setenv("USER", "tester")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			got, err := askHuman(&out, bufio.NewReader(strings.NewReader(tc.input)), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want || engine.IsApproval(got.Answer) != tc.approved {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			if !strings.Contains(out.String(), "decision needed: gate") || !strings.Contains(out.String(), "Ship?") {
				t.Errorf("prompt = %q", out.String())
			}
		})
	}
	if _, err := askHuman(&bytes.Buffer{}, bufio.NewReader(strings.NewReader("")), engine.HumanQuestion{Node: "g"}); err == nil {
		t.Error("an empty stdin gave a decision")
	}
}

package main

import (
	"bufio"
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/compile/form"
	"github.com/agentlab/agentlab/run/engine"
)

// gateForm is a form with a required text, an enum and an optional number.
var gateForm = form.Form{
	{Name: "amount", Type: form.Number},
	{Name: "risk", Type: form.String, Enum: []any{"low", "high"}},
	{Name: "ticket", Type: form.String, Required: true, Description: "the change ticket"},
}

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
		// amount left empty, risk asked again after a value off the enum,
		// ticket asked again after a blank answer.
		{"approval fills the form", "approve\n\nmedium\nlow\n \nOPS-12\nok\n", engine.HumanQuestion{Node: "gate", Prompt: "Ship?", Form: gateForm},
			engine.HumanDecision{By: "tester", Answer: "approve", Comment: "ok", Form: map[string]any{"risk": "low", "ticket": "OPS-12"}}, true},
		{"a number is typed", "y\n12.5\n\nT-1\n\n", engine.HumanQuestion{Node: "gate", Prompt: "Ship?", Form: gateForm},
			engine.HumanDecision{By: "tester", Answer: "y", Form: map[string]any{"amount": 12.5, "ticket": "T-1"}}, true},
		{"a rejection asks no form", "no\nnot now\n", engine.HumanQuestion{Node: "gate", Prompt: "Ship?", Form: gateForm},
			engine.HumanDecision{By: "tester", Answer: "no", Comment: "not now"}, false},
	}
	t.Setenv("USER", "tester")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			got, err := askHuman(&out, bufio.NewReader(strings.NewReader(tc.input)), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) || engine.IsApproval(got.Answer) != tc.approved {
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
	// A required field never answered ends the prompt instead of looping.
	_, err := askHuman(&bytes.Buffer{}, bufio.NewReader(strings.NewReader("yes\n\n\n\n\n\n\n")), engine.HumanQuestion{Node: "g", Form: gateForm})
	if err == nil || !strings.Contains(err.Error(), `form field "ticket"`) {
		t.Errorf("an unanswered required field: err = %v", err)
	}
}

// TestAskHumanNoEmptyUser: with $USER unset, or a person who answers
// with no name or someone else's, the inline prompt asks again and never
// records a decision by an empty name (nor by a stand-in like "terminal").
func TestAskHumanNoEmptyUser(t *testing.T) {
	t.Setenv("USER", "")
	tests := []struct {
		name, input string
		assignees   []string
		wantBy      string
		wantErr     bool
	}{
		{"USER unset: the name is asked", "yes\nbo\n\n", nil, "bo", false},
		{"USER unset: a blank name is asked again", "yes\n\n  \nbo\n\n", nil, "bo", false},
		{"USER unset: only blank names end the prompt", "yes\n\n\n\n", nil, "", true},
		{"an outsider is asked again", "yes\nmallory\nann\n\n", []string{"ann"}, "ann", false},
		{"an empty name is not an assignee", "yes\n\n\n\n", []string{"ann"}, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			got, err := askHuman(&out, bufio.NewReader(strings.NewReader(tc.input)), engine.HumanQuestion{Node: "gate", Prompt: "Ship?", Assignees: tc.assignees})
			if tc.wantErr {
				if err == nil {
					t.Fatalf("decided by %q; want no decision", got.By)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.By != tc.wantBy {
				t.Errorf("by = %q, want %q", got.By, tc.wantBy)
			}
		})
	}
}

// TestPrintForm checks the list of fields shown when a run waits.
func TestPrintForm(t *testing.T) {
	var b bytes.Buffer
	printForm(&b, gateForm)
	want := "form (fill with --field NAME=VALUE; required to approve: ticket):\n" +
		"  amount  number\n" +
		"  risk    string: low|high\n" +
		"  ticket  string, required  the change ticket\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	printForm(&b, nil)
	if b.Len() != 0 {
		t.Errorf("a node without a form printed %q", b.String())
	}
}

package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/plan"
)

// formPlan is a human gate with a form: a required ticket and an optional
// number; each port leads to an output that reads the form.
func formPlan(extra ...any) *plan.Plan {
	spec := append([]any{"prompt", "Deploy?", "form", map[string]any{
		"ticket": map[string]any{"type": "string", "required": true},
		"n":      map[string]any{"type": "number"},
	}}, extra...)
	return mkPlan([]plan.Node{
		nd("gate", "human", spec...),
		nd("yes", "output", "fields", map[string]any{"ticket": "{{ nodes.gate.form.ticket }}", "n": "{{ nodes.gate.form.n }}"}),
		nd("no", "output", "fields", map[string]any{"why": "rejected [{{ nodes.gate.form.ticket }}]"}),
	}, edges("gate.approve -> yes", "gate.reject -> no"))
}

func decidedForm(by, answer string, form map[string]any) RecordedEvent {
	b, _ := json.Marshal(HumanDecision{By: by, Answer: answer, Form: form})
	return RecordedEvent{Type: EvHumanDecided, Node: "gate", Data: b}
}

func TestHumanForm(t *testing.T) {
	p := formPlan()
	res, rec := run(t, p, nil)
	if res.Status != StatusWaiting || len(res.Waiting) != 1 {
		t.Fatalf("%s %+v", res.Status, res.Waiting)
	}
	if f := res.Waiting[0].Form; len(f) != 2 || f[0].Name != "n" || f[1].Name != "ticket" || !f[1].Required {
		t.Errorf("waiting form = %+v", f)
	}
	if l := strings.Join(rec.lines(), "\n"); !strings.Contains(l, `"form":[{"name":"n","type":"number"},{"name":"ticket","required":true,"type":"string"}]`) {
		t.Errorf("human.waiting does not carry the form:\n%s", l)
	}
	tests := []struct {
		name string
		evs  []RecordedEvent
		want map[string]any
		note string // in the recorded events
	}{
		{"approval with the form", []RecordedEvent{decidedForm("ann", "approve", map[string]any{"ticket": "OPS-12", "n": 2.5})},
			map[string]any{"ticket": "OPS-12", "n": "2.5"}, `"form":{"n":2.5,"ticket":"OPS-12"}`},
		{"an optional field left empty", []RecordedEvent{decidedForm("ann", "yes", map[string]any{"ticket": "OPS-1"})},
			map[string]any{"ticket": "OPS-1", "n": ""}, ""},
		{"a rejection needs no form", []RecordedEvent{decidedForm("ann", "no", nil)},
			map[string]any{"why": "rejected []"}, ""},
		// approve refuses to record these; an edited event log must not pass the gate.
		{"an approval without a required field rejects", []RecordedEvent{decidedForm("ann", "approve", map[string]any{"n": 1.0})},
			map[string]any{"why": "rejected []"}, `counted as a rejection: form field \"ticket\" is required`},
		{"an approval with a value of the wrong type rejects", []RecordedEvent{decidedForm("ann", "approve", map[string]any{"ticket": "T", "n": "lots"})},
			map[string]any{"why": "rejected []"}, "counted as a rejection"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, rec2 := run(t, p, nil, withPrior(resumeWith(t, rec, tc.evs...)))
			if res.Status != StatusSucceeded {
				t.Fatalf("%s %v", res.Status, res.Err)
			}
			for k, v := range tc.want {
				if res.Outputs[k] != v {
					t.Errorf("output %s = %#v, want %#v (outputs %v)", k, res.Outputs[k], v, res.Outputs)
				}
			}
			if l := strings.Join(rec2.lines(), "\n"); tc.note != "" && !strings.Contains(l, tc.note) {
				t.Errorf("events lack %s:\n%s", tc.note, l)
			}
		})
	}
}

// TestHumanFormDecisive checks whose values the output carries when
// several people decide.
func TestHumanFormDecisive(t *testing.T) {
	p := formPlan("assignees", []any{"ann", "bob", "cy"}, "decision", "quorum:2")
	_, rec := run(t, p, nil)
	res, _ := run(t, p, nil, withPrior(resumeWith(t, rec,
		decidedForm("ann", "yes", map[string]any{"ticket": "A"}),
		decidedForm("cy", "no", map[string]any{"ticket": "C"}),
		decidedForm("bob", "yes", map[string]any{"ticket": "B"}))))
	if res.Status != StatusSucceeded || res.Outputs["ticket"] != "B" {
		t.Fatalf("quorum: %s %v %v; want the approval that reached the quorum", res.Status, res.Outputs, res.Err)
	}
	pa := formPlan()
	_, rec = run(t, pa, nil)
	res, _ = run(t, pa, nil, withPrior(resumeWith(t, rec,
		decidedForm("ann", "yes", map[string]any{"ticket": "A"}),
		decidedForm("bob", "yes", map[string]any{"ticket": "B"}))))
	if res.Outputs["ticket"] != "A" {
		t.Fatalf("any: %v; want the first decision, which decided", res.Outputs)
	}
}

func TestHumanFormInline(t *testing.T) {
	ask := func(d HumanDecision) Host {
		return Host{Ask: func(_ context.Context, q HumanQuestion) (HumanDecision, error) {
			if len(q.Form) != 2 {
				t.Errorf("the question has no form: %+v", q)
			}
			return d, nil
		}}
	}
	res, _ := run(t, formPlan(), nil, withHost(ask(HumanDecision{By: "me", Answer: "y", Form: map[string]any{"ticket": "T-9", "n": "4"}})))
	if res.Status != StatusSucceeded || res.Outputs["ticket"] != "T-9" || res.Outputs["n"] != "4" {
		t.Fatalf("%s %v %v", res.Status, res.Outputs, res.Err)
	}
	res, _ = run(t, formPlan(), nil, withHost(ask(HumanDecision{By: "me", Answer: "y"})))
	if res.Status != StatusFailed || !strings.Contains(res.Err.Error(), `form field "ticket" is required`) {
		t.Fatalf("an inline approval without the form: %s %v", res.Status, res.Err)
	}
}

func TestHumanBadFormInPlan(t *testing.T) {
	p := formPlan()
	p.Nodes[0].Spec["form"] = map[string]any{"x": map[string]any{"type": "date"}}
	res, _ := run(t, p, nil)
	if res.Status != StatusFailed || !strings.Contains(res.Err.Error(), `form field "x" has type "date"`) {
		t.Fatalf("%s %v", res.Status, res.Err)
	}
}

package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentlab/agentlab/plan"
)

func TestIsApproval(t *testing.T) {
	for _, s := range []string{"approve", "Approved", " YES ", "y", "true", "同意", "批准", " 通过\n"} {
		if !IsApproval(s) {
			t.Errorf("IsApproval(%q) = false", s)
		}
	}
	for _, s := range []string{"", "ok", "sure", "lgtm", "approve!", "yes please", "no", "reject", "1", "是", "不同意"} {
		if IsApproval(s) {
			t.Errorf("IsApproval(%q) = true; only explicit approvals approve", s)
		}
	}
}

func dec(by, answer string) HumanDecision {
	return HumanDecision{By: by, Answer: answer, Approved: IsApproval(answer)}
}

func TestTallyDecisions(t *testing.T) {
	abc := []string{"ann", "bob", "cy"}
	tests := []struct {
		name, mode string
		assignees  []string
		ds         []HumanDecision
		want       string
	}{
		{"any none", "any", nil, nil, VerdictPending},
		{"any first approves", "any", nil, []HumanDecision{dec("ann", "yes"), dec("bob", "no")}, VerdictApproved},
		{"any first rejects", "any", nil, []HumanDecision{dec("ann", "meh"), dec("bob", "yes")}, VerdictRejected},
		{"all partial", "all", abc, []HumanDecision{dec("ann", "yes"), dec("bob", "yes")}, VerdictPending},
		{"all complete", "all", abc, []HumanDecision{dec("ann", "yes"), dec("bob", "yes"), dec("CY", "approve")}, VerdictApproved},
		{"all one rejection", "all", abc, []HumanDecision{dec("ann", "yes"), dec("bob", "nope")}, VerdictRejected},
		{"all ignores outsiders", "all", abc, []HumanDecision{dec("ann", "yes"), dec("bob", "yes"), dec("eve", "yes")}, VerdictPending},
		{"all without assignees is any", "all", nil, []HumanDecision{dec("eve", "yes")}, VerdictApproved},
		{"quorum reached", "quorum:2", abc, []HumanDecision{dec("ann", "yes"), dec("cy", "no"), dec("bob", "y")}, VerdictApproved},
		{"quorum still possible", "quorum:2", abc, []HumanDecision{dec("ann", "no")}, VerdictPending},
		{"quorum out of reach", "quorum:2", abc, []HumanDecision{dec("ann", "no"), dec("bob", "no")}, VerdictRejected},
		{"quorum same person twice counts once", "quorum:2", abc, []HumanDecision{dec("ann", "yes"), dec("ann", "yes")}, VerdictPending},
		{"latest decision of a person wins", "any", nil, []HumanDecision{dec("ann", "no"), dec("ann", "yes")}, VerdictApproved},
		{"quorum without assignees rejects on a rejection", "quorum:2", nil, []HumanDecision{dec("ann", "yes"), dec("bob", "no")}, VerdictRejected},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := TallyDecisions(tc.mode, tc.assignees, tc.ds)
			if err != nil {
				t.Fatal(err)
			}
			if got.Verdict != tc.want {
				t.Errorf("verdict = %s, want %s (%+v)", got.Verdict, tc.want, got)
			}
		})
	}
	if _, err := TallyDecisions("quorum:0", nil, nil); err == nil {
		t.Error("quorum:0 accepted")
	}
	if _, err := TallyDecisions("most", nil, nil); err == nil {
		t.Error("an unknown mode accepted")
	}
}

func TestParseDeadline(t *testing.T) {
	since := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Time
		bad  bool
	}{
		{"", time.Time{}, false},
		{"36h", since.Add(36 * time.Hour), false},
		{"2d", since.Add(48 * time.Hour), false},
		{"1d12h", since.Add(36 * time.Hour), false},
		{"2026-12-01T17:00:00+01:00", time.Date(2026, 12, 1, 16, 0, 0, 0, time.UTC), false},
		{"tomorrow", time.Time{}, true},
		{"-3h", time.Time{}, true},
	}
	for _, tc := range tests {
		got, err := ParseDeadline(tc.in, since)
		if (err != nil) != tc.bad || !got.Equal(tc.want) {
			t.Errorf("ParseDeadline(%q) = %v, %v; want %v (error %v)", tc.in, got, err, tc.want, tc.bad)
		}
	}
}

// gatePlan is a human gate with approve and (optionally) reject edges and
// an independent node beside it.
func gatePlan(withReject bool, extra ...any) *plan.Plan {
	spec := append([]any{"prompt", "Ship {{ input.what }}?", "on_timeout", "reject"}, extra...)
	nodes := []plan.Node{
		nd("gate", "human", spec...),
		nd("yes", "transform", "expr", "'shipped'"),
		nd("no", "transform", "expr", "'held'"),
		nd("side", "transform", "expr", "'side work'"),
	}
	es := edges("gate.approve -> yes")
	if withReject {
		es = append(es, edges("gate.reject -> no")...)
	}
	p := mkPlan(nodes, es)
	p.Inputs = map[string]plan.Input{"what": {Type: "string", Default: "v2"}}
	return p
}

func withHost(h Host) runOpt { return func(c *Config) { c.Host = h } }

// resumeWith builds the Prior of an earlier attempt plus extra events.
func resumeWith(t *testing.T, rec *memRecorder, extra ...RecordedEvent) *Prior {
	t.Helper()
	evs := append(append([]RecordedEvent(nil), rec.events...), extra...)
	p, err := NewPrior(evs, rec.get)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func decided(node, by, answer string) RecordedEvent {
	b, _ := json.Marshal(HumanDecision{By: by, Answer: answer})
	return RecordedEvent{Type: EvHumanDecided, Node: node, Data: b}
}

func TestHumanWaitsAndResumes(t *testing.T) {
	clock := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	h := Host{Now: func() time.Time { return clock }}
	p := gatePlan(true)
	res, rec := run(t, p, nil, withHost(h))
	if res.Status != StatusWaiting || len(res.Waiting) != 1 || res.Waiting[0].Node != "gate" || res.Waiting[0].Prompt != "Ship v2?" {
		t.Fatalf("status %s, waiting %+v, err %v", res.Status, res.Waiting, res.Err)
	}
	if got := rec.ofType(EvNodeFinished); strings.Join(got, ",") != "side" {
		t.Errorf("finished = %v; the independent node must run, the gated ones must not", got)
	}
	if got := rec.ofType(EvHumanWaiting); len(got) != 1 {
		t.Fatalf("human.waiting = %v", got)
	}

	// Resuming without a decision waits again and records no second human.waiting.
	rec2 := newRecorder()
	res2, _ := run(t, p, nil, withHost(h), withPrior(resumeWith(t, rec)), withRecorder(rec2))
	if res2.Status != StatusWaiting || len(rec2.ofType(EvHumanWaiting)) != 0 {
		t.Fatalf("second attempt: %s, waiting events %v", res2.Status, rec2.ofType(EvHumanWaiting))
	}

	// An approval recorded in between: the approve port is followed.
	rec3 := newRecorder()
	res3, _ := run(t, p, nil, withHost(h), withPrior(resumeWith(t, rec, decided("gate", "ann", "Yes"))), withRecorder(rec3))
	if res3.Status != StatusSucceeded {
		t.Fatalf("after approval: %s %v", res3.Status, res3.Err)
	}
	if got := strings.Join(rec3.ofType(EvNodeFinished), ","); got != "gate,yes" {
		t.Errorf("finished = %s, want gate,yes", got)
	}
	if got := strings.Join(rec3.ofType(EvNodeSkipped), ","); got != "no" {
		t.Errorf("skipped = %s, want no", got)
	}

	// Anything but an explicit approval rejects and follows the reject port.
	rec4 := newRecorder()
	res4, _ := run(t, p, nil, withHost(h), withPrior(resumeWith(t, rec, decided("gate", "ann", "looks fine"))), withRecorder(rec4))
	if res4.Status != StatusSucceeded || strings.Join(rec4.ofType(EvNodeFinished), ",") != "gate,no" {
		t.Fatalf("after a non-explicit answer: %s %v %v", res4.Status, rec4.ofType(EvNodeFinished), res4.Err)
	}
}

func TestHumanRejectWithoutEdgeCancels(t *testing.T) {
	p := gatePlan(false)
	_, rec := run(t, p, nil)
	rec2 := newRecorder()
	res, _ := run(t, p, nil, withPrior(resumeWith(t, rec, decided("gate", "ann", "reject"))), withRecorder(rec2))
	if res.Status != StatusCancelled || !strings.Contains(res.Err.Error(), `human node "gate" was rejected and has no reject edge, so the run is cancelled`) {
		t.Fatalf("%s %v", res.Status, res.Err)
	}
	if len(rec2.ofType(EvNodeRetrying)) != 0 || len(rec2.ofType(EvNodeFailed)) != 0 {
		t.Errorf("a rejection is neither retried nor a failure: %v", rec2.lines())
	}
}

func TestHumanAllAndQuorum(t *testing.T) {
	p := gatePlan(true, "assignees", []any{"ann", "bob", "cy"}, "decision", "quorum:2")
	_, rec := run(t, p, nil)
	res, _ := run(t, p, nil, withPrior(resumeWith(t, rec, decided("gate", "ann", "yes"))))
	if res.Status != StatusWaiting || res.Waiting[0].Approvals != 1 {
		t.Fatalf("one of two approvals: %s %+v", res.Status, res.Waiting)
	}
	res, rec2 := run(t, p, nil, withPrior(resumeWith(t, rec, decided("gate", "ann", "yes"), decided("gate", "eve", "yes"), decided("gate", "bob", "approve"))))
	if res.Status != StatusSucceeded || !strings.Contains(strings.Join(rec2.lines(), "\n"), `"approvals":2`) {
		t.Fatalf("quorum: %s %v", res.Status, rec2.lines())
	}
	pa := gatePlan(true, "assignees", []any{"ann", "bob"}, "decision", "all")
	_, rec = run(t, pa, nil)
	res, rec3 := run(t, pa, nil, withPrior(resumeWith(t, rec, decided("gate", "ann", "yes"), decided("gate", "bob", "no"))))
	if res.Status != StatusSucceeded || strings.Join(rec3.ofType(EvNodeFinished), ",") != "gate,no" {
		t.Fatalf("all with a rejection: %s %v", res.Status, rec3.ofType(EvNodeFinished))
	}
}

func TestHumanDeadlineOnResume(t *testing.T) {
	start := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) runOpt {
		return withHost(Host{Now: func() time.Time { return start.Add(d) }})
	}
	p := gatePlan(true, "deadline", "2h")
	_, rec := run(t, p, nil, at(0))
	res, _ := run(t, p, nil, at(time.Hour), withPrior(resumeWith(t, rec)))
	if res.Status != StatusWaiting || res.Waiting[0].Deadline != "2026-11-01T14:00:00Z" {
		t.Fatalf("before the deadline: %s %+v", res.Status, res.Waiting)
	}
	res, rec2 := run(t, p, nil, at(3*time.Hour), withPrior(resumeWith(t, rec)))
	if res.Status != StatusSucceeded || strings.Join(rec2.ofType(EvNodeFinished), ",") != "gate,no" ||
		!strings.Contains(strings.Join(rec2.lines(), "\n"), `"timed_out":true`) {
		t.Fatalf("after the deadline: %s %v", res.Status, rec2.lines())
	}

	// escalate keeps waiting (never approves) and records the escalation once.
	pe := gatePlan(true, "deadline", "2h", "on_timeout", "escalate")
	_, rec = run(t, pe, nil, at(0))
	res, rec3 := run(t, pe, nil, at(3*time.Hour), withPrior(resumeWith(t, rec)))
	if res.Status != StatusWaiting || !res.Waiting[0].Escalated || len(rec3.ofType(EvHumanEscalated)) != 1 {
		t.Fatalf("escalate: %s %+v %v", res.Status, res.Waiting, rec3.lines())
	}
	all := append(append([]RecordedEvent(nil), rec.events...), rec3.events...)
	prior, err := NewPrior(all, rec.get)
	if err != nil {
		t.Fatal(err)
	}
	_, rec4 := run(t, pe, nil, at(4*time.Hour), withPrior(prior))
	if len(rec4.ofType(EvHumanEscalated)) != 0 {
		t.Errorf("escalated twice: %v", rec4.lines())
	}
}

func TestHumanInlinePrompt(t *testing.T) {
	asked := 0
	h := Host{Ask: func(_ context.Context, q HumanQuestion) (HumanDecision, error) {
		asked++
		if q.Node != "gate" || q.Prompt != "Ship v2?" {
			t.Errorf("question %+v", q)
		}
		return HumanDecision{By: "me", Answer: "y"}, nil
	}, Yes: true}
	res, rec := run(t, gatePlan(true), nil, withHost(h))
	if res.Status != StatusSucceeded || asked != 1 || len(rec.ofType(EvHumanDecided)) != 1 {
		t.Fatalf("%s asked=%d %v", res.Status, asked, rec.lines())
	}
	// --yes alone never approves.
	res, _ = run(t, gatePlan(true), nil, withHost(Host{Yes: true}))
	if res.Status != StatusWaiting {
		t.Fatalf("--yes approved a human node: %s", res.Status)
	}
}

func TestHumanInsideLoop(t *testing.T) {
	l := nd("l", "loop", "over", "[1, 2]", "max_iterations", 5)
	l.Body = &plan.Graph{
		Nodes: []plan.Node{nd("gate", "human", "prompt", "Item {{ item }}?"), nd("done", "transform", "expr", "item * 10")},
		Edges: edges("gate.approve -> done"),
	}
	p := mkPlan([]plan.Node{l, nd("after", "transform", "expr", "1")}, edges("l -> after"))
	res, rec := run(t, p, nil)
	if res.Status != StatusWaiting || len(res.Waiting) != 1 || res.Waiting[0].Node != "l[0].gate" || res.Waiting[0].Prompt != "Item 1?" {
		t.Fatalf("%s %+v %v", res.Status, res.Waiting, res.Err)
	}
	all := append([]RecordedEvent(nil), rec.events...)
	all = append(all, decided("l[0].gate", "ann", "yes"))
	prior, err := NewPrior(all, rec.get)
	if err != nil {
		t.Fatal(err)
	}
	res, rec2 := run(t, p, nil, withPrior(prior))
	if res.Status != StatusWaiting || res.Waiting[0].Node != "l[1].gate" {
		t.Fatalf("second item: %s %+v", res.Status, res.Waiting)
	}
	all = append(append(all, rec2.events...), decided("l[1].gate", "ann", "approve"))
	prior, err = NewPrior(all, rec.get)
	if err != nil {
		t.Fatal(err)
	}
	res, rec3 := run(t, p, nil, withPrior(prior))
	if res.Status != StatusSucceeded || !strings.Contains(strings.Join(rec3.ofType(EvNodeFinished), ","), "after") {
		t.Fatalf("after both approvals: %s %v %v", res.Status, res.Err, rec3.lines())
	}
}

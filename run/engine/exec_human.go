package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentlab/agentlab/compile/form"
)

func init() { registerExecutor("human", executor{leaf: true, run: execHuman}) }

// waitError is not a failure: the node (or a node inside it) is waiting
// for people. The scheduler resolves such a node as waiting — its
// successors stay undecided, independent branches go on — and the run
// ends with StatusWaiting.
type waitError struct{ nodes []Waiting }

func (e *waitError) Error() string {
	ids := make([]string, len(e.nodes))
	for i, w := range e.nodes {
		ids[i] = w.Node
	}
	return "waiting for a decision at " + strings.Join(ids, ", ")
}

// rejectedError ends the run as cancelled: a human node was rejected and
// has no reject edge to follow. It is never retried or continued past.
type rejectedError struct{ msg string }

func (e *rejectedError) Error() string { return e.msg }

// execHuman decides a human node from the decisions recorded so far
// (human.decided events written by `agentlab approve` between attempts,
// or by an inline prompt). Undecided, it records human.waiting once and
// pauses; a deadline that has passed rejects (on_timeout: reject) or
// escalates (records human.escalated and keeps waiting). Nothing — not
// --yes, not a timeout — ever approves: only an explicit approval does.
//
// Output: {decision, approvals, rejections, decisions, timed_out?, form?};
// port approve or reject. With a `form:`, output.form holds every declared
// field, filled from the decisive decision (nil where it left a field
// empty), and each entry of decisions its own submitted values. A
// rejection with no reject edge cancels the run.
func execHuman(ctx context.Context, t *task) (any, effects, error) {
	n := t.node
	h := &t.r.cfg.Host
	prompt, err := render(n.Str("prompt"), t.sc.env())
	if err != nil {
		return nil, effects{}, fmt.Errorf("node %q: prompt: %v", t.id, err)
	}
	mode := n.Str("decision")
	if mode == "" {
		mode = "any"
	}
	if _, _, err := ParseDecisionMode(mode); err != nil {
		return nil, effects{}, fmt.Errorf("node %q: %v", t.id, err)
	}
	assignees, err := renderAssignees(t)
	if err != nil {
		return nil, effects{}, err
	}
	fm, err := form.FromSpec(n.Spec["form"])
	if err != nil {
		return nil, effects{}, fmt.Errorf("node %q: %v", t.id, err)
	}
	prior := t.r.prior.humanState(t.id)
	var decisions []HumanDecision
	var since, deadline time.Time
	escalated := false
	if prior != nil {
		for _, d := range prior.decisions {
			decisions = append(decisions, checkDecisionForm(fm, d))
		}
		escalated = prior.escalated
	}
	if prior != nil && prior.waiting {
		since, deadline = prior.since, prior.deadline
	} else {
		since = h.now()
		if deadline, err = ParseDeadline(n.Str("deadline"), since); err != nil {
			return nil, effects{}, fmt.Errorf("node %q: %v", t.id, err)
		}
		wd := waitingData{Prompt: prompt, Assignees: assignees, Decision: mode, Since: since.Format(time.RFC3339Nano), OnTimeout: n.Str("on_timeout"), Form: fm}
		if !deadline.IsZero() {
			wd.Deadline = deadline.Format(time.RFC3339Nano)
		}
		if err := t.emit(pendingEvent{EvHumanWaiting, t.id, wd}); err != nil {
			return nil, effects{}, err
		}
	}
	tally, err := TallyDecisions(mode, assignees, decisions)
	if err != nil {
		return nil, effects{}, fmt.Errorf("node %q: %v", t.id, err)
	}
	if tally.Verdict == VerdictPending && h.Ask != nil {
		d, err := h.Ask(ctx, HumanQuestion{Node: t.id, Prompt: prompt, Assignees: assignees, Decision: mode, Form: fm})
		if err != nil {
			return nil, effects{}, fmt.Errorf("node %q: the inline prompt failed: %v", t.id, err)
		}
		d.Approved = IsApproval(d.Answer)
		vals, err := fm.Check(d.Form, d.Approved)
		if err != nil {
			return nil, effects{}, fmt.Errorf("node %q: the inline answer does not fill the form: %v", t.id, err)
		}
		d.Form = nilIfEmpty(vals)
		if err := t.emit(pendingEvent{EvHumanDecided, t.id, d}); err != nil {
			return nil, effects{}, err
		}
		decisions = append(decisions, d)
		if tally, err = TallyDecisions(mode, assignees, decisions); err != nil {
			return nil, effects{}, err
		}
	}
	timedOut := false
	if tally.Verdict == VerdictPending && !deadline.IsZero() && h.now().After(deadline) {
		if n.Str("on_timeout") == "escalate" {
			if !escalated {
				data := map[string]any{"deadline": deadline.Format(time.RFC3339Nano), "assignees": assignees,
					"sentence": fmt.Sprintf("the deadline %s passed without a decision; the node keeps waiting and is escalated", deadline.Format(time.RFC3339))}
				if err := t.emit(pendingEvent{EvHumanEscalated, t.id, data}); err != nil {
					return nil, effects{}, err
				}
				escalated = true
			}
		} else {
			tally.Verdict, timedOut = VerdictRejected, true
		}
	}
	if tally.Verdict == VerdictPending {
		w := Waiting{Node: t.id, Prompt: prompt, Assignees: assignees, Decision: mode, Escalated: escalated, Form: fm,
			Approvals: tally.Approvals, Rejections: tally.Rejections}
		if !deadline.IsZero() {
			w.Deadline = deadline.Format(time.RFC3339)
		}
		return nil, effects{}, &waitError{nodes: []Waiting{w}}
	}
	list := make([]any, len(tally.Counted))
	for i, d := range tally.Counted {
		m := map[string]any{"by": d.By, "answer": d.Answer, "approved": d.Approved}
		if d.Comment != "" {
			m["comment"] = d.Comment
		}
		if len(d.Form) > 0 {
			m["form"] = d.Form
		}
		list[i] = m
	}
	out := map[string]any{"decision": tally.Verdict, "approvals": tally.Approvals, "rejections": tally.Rejections, "decisions": list}
	if fm != nil {
		var vals map[string]any
		if d := decisive(mode, assignees, tally); d != nil {
			vals = d.Form
		}
		out["form"] = fm.Output(vals)
	}
	if timedOut {
		out["timed_out"] = true
	}
	if tally.Verdict == VerdictRejected && !hasPortEdge(t.gn, n.ID, VerdictRejected) {
		why := "was rejected"
		if timedOut {
			why = fmt.Sprintf("was rejected because its deadline %s passed without a decision (on_timeout: reject)", deadline.Format(time.RFC3339))
		}
		return nil, effects{}, &rejectedError{fmt.Sprintf("human node %q %s and has no reject edge, so the run is cancelled; add an edge %s.reject -> NODE to handle a rejection", t.id, why, n.ID)}
	}
	return out, effects{port: tally.Verdict}, nil
}

// checkDecisionForm judges a recorded decision against the node's form
// again, as the answer is judged again: an approval whose values do not
// fill the form (an event edited by hand, a plan changed under the run)
// does not approve. `agentlab approve` refuses such approvals before
// recording them, so this is a guard, not the place where people learn
// what is missing.
func checkDecisionForm(fm form.Form, d HumanDecision) HumanDecision {
	vals, err := fm.Check(d.Form, d.Approved)
	if err != nil {
		d.Approved = false
		d.Form = nil
		if d.Comment != "" {
			d.Comment += "; "
		}
		d.Comment += "counted as a rejection: " + err.Error()
		return d
	}
	d.Form = nilIfEmpty(vals)
	return d
}

// decisive is the decision whose form values the node's output carries:
// the one that decided (the first one counted under decision: any), or
// else the latest counted decision that agrees with the verdict. A
// timed-out node has none.
func decisive(mode string, assignees []string, t Tally) *HumanDecision {
	if len(t.Counted) == 0 || t.Verdict == VerdictPending {
		return nil
	}
	if m, _, _ := ParseDecisionMode(mode); m == "any" || (m == "all" && len(assignees) == 0) {
		if verdictOf(t.Counted[0].Approved) == t.Verdict {
			return &t.Counted[0]
		}
		return nil
	}
	for i := len(t.Counted) - 1; i >= 0; i-- {
		if verdictOf(t.Counted[i].Approved) == t.Verdict {
			return &t.Counted[i]
		}
	}
	return nil
}

func nilIfEmpty(m map[string]any) map[string]any {
	if len(m) == 0 {
		return nil
	}
	return m
}

// hasPortEdge reports whether an edge leaves node id through port.
func hasPortEdge(gn *gnode, id, port string) bool {
	for _, s := range gn.out {
		for _, e := range s.in {
			if e.From == id && e.Port == port {
				return true
			}
		}
	}
	return false
}

// strList reads a list of strings from a node spec value.
func strList(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// isWaitOrReject reports the two outcomes of a human node that are not
// failures.
func isWaitOrReject(err error) bool {
	var we *waitError
	var re *rejectedError
	return errors.As(err, &we) || errors.As(err, &re)
}

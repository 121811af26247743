package engine

import (
	"encoding/json"
	"time"

	"github.com/agentlab/agentlab/compile/form"
)

// Events of human nodes.
const (
	// EvHumanWaiting: a human node started waiting ({prompt, assignees,
	// decision, since, deadline?, form?}). Written once per node; a resumed run
	// keeps the first one's deadline.
	EvHumanWaiting = "human.waiting"
	// EvHumanDecided: one person's decision ({by, answer, approved,
	// comment?, form?}), written by `agentlab approve` or an inline prompt.
	EvHumanDecided = "human.decided"
	// EvHumanEscalated: the deadline passed with on_timeout: escalate.
	EvHumanEscalated = "human.escalated"
	// EvNodeCancelled: a human node was rejected with no reject edge to
	// follow ({reason}); the run ends cancelled.
	EvNodeCancelled = "node.cancelled"
	// StateCancelled is reported to the Observer with EvNodeCancelled.
	StateCancelled = "cancelled"
)

// priorHuman is what earlier attempts (and `agentlab approve`) recorded
// about one human node.
type priorHuman struct {
	waiting   bool
	since     time.Time
	deadline  time.Time
	escalated bool
	decisions []HumanDecision
}

// waitingData is the payload of human.waiting.
type waitingData struct {
	Prompt    string   `json:"prompt"`
	Assignees []string `json:"assignees,omitempty"`
	Decision  string   `json:"decision"`
	Since     string   `json:"since"`
	Deadline  string   `json:"deadline,omitempty"`
	OnTimeout string   `json:"on_timeout,omitempty"`
	// Form is the node's form, so that `agentlab approve` checks the
	// submitted values against what this run waits for, without the plan.
	Form form.Form `json:"form,omitempty"`
}

func (p *Prior) addHuman(ev RecordedEvent) error {
	if p.human == nil {
		p.human = map[string]*priorHuman{}
	}
	h := p.human[ev.Node]
	if h == nil {
		h = &priorHuman{}
		p.human[ev.Node] = h
	}
	switch ev.Type {
	case EvHumanWaiting:
		if h.waiting {
			return nil // the first one holds the deadline
		}
		var d waitingData
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			return err
		}
		h.waiting = true
		h.since, _ = time.Parse(time.RFC3339Nano, d.Since)
		if d.Deadline != "" {
			t, err := time.Parse(time.RFC3339Nano, d.Deadline)
			if err != nil {
				return err
			}
			h.deadline = t
		}
	case EvHumanDecided:
		var d HumanDecision
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			return err
		}
		// The recorded answer is judged again: approved is derived, never
		// trusted from the event.
		d.Approved = IsApproval(d.Answer)
		h.decisions = append(h.decisions, d)
	case EvHumanEscalated:
		h.escalated = true
	}
	return nil
}

// humanState returns what is known about a human node; nil if nothing.
func (p *Prior) humanState(id string) *priorHuman {
	if p == nil || p.human == nil {
		return nil
	}
	return p.human[id]
}

// HumanDecisions returns the decisions recorded for a human node, in
// order (for `agentlab approve`, which reports the tally).
func (p *Prior) HumanDecisions(id string) []HumanDecision {
	if h := p.humanState(id); h != nil {
		return append([]HumanDecision(nil), h.decisions...)
	}
	return nil
}

package engine

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentlab/agentlab/compile/form"
)

// approvalWords are the only answers that approve a human node, compared
// trimmed and case-insensitively. Anything else — "ok", "sure", "lgtm",
// an empty answer, a typo — rejects: a gate that can be passed by accident
// is not a gate.
var approvalWords = map[string]bool{
	"approve": true, "approved": true, "yes": true, "y": true, "true": true,
	"同意": true, "批准": true, "通过": true,
}

// IsApproval reports whether a person's answer is an explicit approval.
func IsApproval(answer string) bool {
	return approvalWords[strings.ToLower(strings.TrimSpace(answer))]
}

// HumanDecision is one person's answer to a human node, as recorded in a
// human.decided event.
type HumanDecision struct {
	By       string `json:"by"`
	Answer   string `json:"answer"`
	Approved bool   `json:"approved"`
	Comment  string `json:"comment,omitempty"`
	// Form holds the values of the node's form fields this person
	// submitted (package compile/form), typed: string, float64 or bool.
	Form map[string]any `json:"form,omitempty"`
}

// HumanQuestion is what an inline prompt shows.
type HumanQuestion struct {
	Node      string
	Prompt    string
	Assignees []string
	Decision  string
	// Form lists the fields to fill when approving (nil: none).
	Form form.Form
}

// Waiting is one human node a run paused at.
type Waiting struct {
	Node      string   `json:"node"`
	Prompt    string   `json:"prompt"`
	Assignees []string `json:"assignees,omitempty"`
	Decision  string   `json:"decision"`
	Deadline  string   `json:"deadline,omitempty"`
	Escalated bool     `json:"escalated,omitempty"`
	// Form lists the fields an approval fills (nil: the node has no form).
	Form form.Form `json:"form,omitempty"`
	// Approvals and Rejections count the decisions recorded so far.
	Approvals  int `json:"approvals"`
	Rejections int `json:"rejections"`
}

// Verdicts of a tally.
const (
	VerdictPending  = "pending"
	VerdictApproved = "approve"
	VerdictRejected = "reject"
)

// Tally is the state of a human node's decisions.
type Tally struct {
	Verdict    string
	Approvals  int
	Rejections int
	// Counted are the decisions that count (the latest per person, from
	// assignees only when there are assignees), in the order recorded.
	Counted []HumanDecision
}

// ParseDecisionMode reads `decision`: any, all or quorum:M (M ≥ 1).
func ParseDecisionMode(s string) (mode string, quorum int, err error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "" || s == "any":
		return "any", 0, nil
	case s == "all":
		return "all", 0, nil
	case strings.HasPrefix(s, "quorum:"):
		m, err := strconv.Atoi(strings.TrimPrefix(s, "quorum:"))
		if err != nil || m < 1 {
			return "", 0, fmt.Errorf("decision %q: quorum:M needs a whole number M of at least 1", s)
		}
		return "quorum", m, nil
	}
	return "", 0, fmt.Errorf("decision %q is not any, all or quorum:M", s)
}

// TallyDecisions decides a human node from the decisions recorded so far:
//
//   - any: the first person to decide decides, approve or reject;
//   - all: every assignee must approve; one rejection rejects;
//   - quorum:M: M approvals approve; the node is rejected once so many
//     assignees rejected that M approvals can no longer be reached (with
//     no assignees listed, the first rejection rejects).
//
// A person's latest decision replaces their earlier ones. With assignees,
// decisions of anyone else do not count. "all" without assignees behaves
// like "any". Nothing is ever approved without an explicit approval.
func TallyDecisions(decision string, assignees []string, ds []HumanDecision) (Tally, error) {
	mode, quorum, err := ParseDecisionMode(decision)
	if err != nil {
		return Tally{}, err
	}
	allowed := map[string]bool{}
	for _, a := range assignees {
		allowed[normPerson(a)] = true
	}
	latest := map[string]int{}
	var counted []HumanDecision
	for _, d := range ds {
		who := normPerson(d.By)
		if len(allowed) > 0 && !allowed[who] {
			continue
		}
		if i, ok := latest[who]; ok {
			counted[i] = d
			continue
		}
		latest[who] = len(counted)
		counted = append(counted, d)
	}
	t := Tally{Verdict: VerdictPending, Counted: counted}
	for _, d := range counted {
		if d.Approved {
			t.Approvals++
		} else {
			t.Rejections++
		}
	}
	n := len(allowed)
	switch {
	case mode == "any" || (mode == "all" && n == 0):
		if len(counted) > 0 {
			t.Verdict = verdictOf(counted[0].Approved)
		}
	case mode == "all":
		if t.Rejections > 0 {
			t.Verdict = VerdictRejected
		} else if t.Approvals >= n {
			t.Verdict = VerdictApproved
		}
	default: // quorum
		switch {
		case t.Approvals >= quorum:
			t.Verdict = VerdictApproved
		case n == 0 && t.Rejections > 0, n > 0 && t.Rejections > n-quorum:
			t.Verdict = VerdictRejected
		}
	}
	return t, nil
}

func verdictOf(approved bool) string {
	if approved {
		return VerdictApproved
	}
	return VerdictRejected
}

func normPerson(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// ParseDeadline reads a human node's `deadline`: an RFC 3339 time, or a
// duration counted from when the node started waiting ("36h", "90m",
// "2d", "1d12h").
func ParseDeadline(s string, since time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), nil
	}
	rest, days := s, 0
	if i := strings.Index(rest, "d"); i > 0 {
		n, err := strconv.Atoi(rest[:i])
		if err == nil {
			days, rest = n, rest[i+1:]
		}
	}
	var d time.Duration
	if rest != "" {
		var err error
		if d, err = time.ParseDuration(rest); err != nil {
			return time.Time{}, fmt.Errorf("deadline %q is neither an RFC 3339 time (2026-12-01T17:00:00Z) nor a duration (36h, 2d, 1d12h)", s)
		}
	}
	if days < 0 || d < 0 {
		return time.Time{}, fmt.Errorf("deadline %q is negative; give a time in the future or a positive duration", s)
	}
	const century = 36500 // days; also keeps the sum below time.Duration's range
	if days > century || d > century*24*time.Hour || days*24*int(time.Hour/time.Second)+int(d/time.Second) > century*24*3600 {
		return time.Time{}, fmt.Errorf("deadline %q is more than 100 years away; give a shorter duration", s)
	}
	return since.Add(time.Duration(days)*24*time.Hour + d).UTC(), nil
}

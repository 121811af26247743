package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/run/engine"
)

// finding is one anomaly of a run, at the event that shows it.
type finding struct {
	Rule    string `json:"rule"`
	Seq     int64  `json:"seq"`
	Node    string `json:"node,omitempty"`
	Message string `json:"message"`
}

// reviewRules are the rules of runs review, in the order docs/evidence.md
// lists them. Each reads one event and says what is anomalous about it,
// in the event's own words: the review computes no figure of its own.
var reviewRules = []struct {
	name  string
	check func(e chain.Event, d eventFields) string
}{
	{"refused-call", func(e chain.Event, d eventFields) string {
		if e.Type == "tool.result" && d.Refused {
			return fmt.Sprintf("call %s to %s was refused: %s", d.CallID, d.Tool, d.Error)
		}
		return ""
	}},
	{"malformed-call", func(e chain.Event, d eventFields) string {
		if e.Type == "tool.result" && d.Malformed {
			return fmt.Sprintf("call %s to %s was malformed: %s", d.CallID, d.Tool, d.Error)
		}
		return ""
	}},
	{"repeated-call", func(e chain.Event, d eventFields) string {
		if e.Type == "tool.result" && d.RepeatOf != "" {
			return fmt.Sprintf("call %s to %s repeated call %s with the same arguments", d.CallID, d.Tool, d.RepeatOf)
		}
		return ""
	}},
	{"repair", func(e chain.Event, d eventFields) string {
		if e.Type == "report.repair" {
			return fmt.Sprintf("the report broke the citation rules and was sent back (attempt %s, %s violation(s))", d.Attempt, d.Violations)
		}
		return ""
	}},
	{"retry", func(e chain.Event, d eventFields) string {
		if e.Type == "node.retrying" {
			return fmt.Sprintf("attempt %s failed and was retried: %s", d.Attempt, firstLine(d.Error))
		}
		return ""
	}},
	{"failed-node", func(e chain.Event, d eventFields) string {
		if e.Type == "node.failed" {
			return "the node failed: " + firstLine(d.Error)
		}
		return ""
	}},
	{"unpriced-model", func(e chain.Event, d eventFields) string {
		if e.Type == "node.warning" && d.Code == "W-AGENT-COST-UNKNOWN" {
			return d.Message
		}
		return ""
	}},
	{"warning", func(e chain.Event, d eventFields) string {
		if (e.Type == "node.warning" && d.Code != "W-AGENT-COST-UNKNOWN") || e.Type == "mcp.warning" {
			return strings.TrimSpace(d.Code + " " + d.Message)
		}
		return ""
	}},
	{"agent-limit", func(e chain.Event, d eventFields) string {
		switch {
		case e.Type == "agent.stopped" && d.Reason != "" && d.Reason != "answer":
			return fmt.Sprintf("the agent stopped on %s: %s", d.Reason, d.Sentence)
		case e.Type == "agent.warning":
			return fmt.Sprintf("the agent was warned before its %s limit", d.Limit)
		}
		return ""
	}},
	{"violation", func(e chain.Event, d eventFields) string {
		if e.Type == "node.finished" && len(d.Output.Violations) > 0 && string(d.Output.Violations) != "0" && string(d.Output.Violations) != "null" {
			return fmt.Sprintf("the node kept %s violation(s) of the citation rules (on_violation: mark)", d.Output.Violations)
		}
		return ""
	}},
	{"human-reject", func(e chain.Event, d eventFields) string {
		switch {
		case e.Type == "human.decided" && !engine.IsApproval(d.Answer):
			// Judged from the recorded answer, as resume judges it, never
			// from the stored flag.
			return fmt.Sprintf("%s rejected (answered %q)", orSomeone(d.By), d.Answer)
		case e.Type == "human.escalated":
			return "the deadline passed and the decision was escalated"
		}
		return ""
	}},
	{"tier", func(e chain.Event, d eventFields) string {
		if e.Type == "run.finished" && (d.Tier == "degraded" || d.Tier == "withheld") {
			return fmt.Sprintf("the run was issued %s", d.Tier)
		}
		return ""
	}},
	{"run-failed", func(e chain.Event, d eventFields) string {
		if e.Type == "run.finished" && d.Status != "" && d.Status != "succeeded" {
			return fmt.Sprintf("the run ended %s: %s", d.Status, firstLine(d.Error))
		}
		return ""
	}},
}

// eventFields are the event data fields the rules read. Numbers are kept
// as their JSON text: the review repeats them, it never computes one.
type eventFields struct {
	Tool       string          `json:"tool"`
	CallID     string          `json:"call_id"`
	Refused    bool            `json:"refused"`
	Malformed  bool            `json:"malformed"`
	RepeatOf   string          `json:"repeat_of"`
	Error      string          `json:"error"`
	Attempt    json.RawMessage `json:"attempt"`
	Violations json.RawMessage `json:"violations"`
	Code       string          `json:"code"`
	Message    string          `json:"message"`
	Reason     string          `json:"reason"`
	Sentence   string          `json:"sentence"`
	Limit      string          `json:"limit"`
	By         string          `json:"by"`
	Answer     string          `json:"answer"`
	Tier       string          `json:"tier"`
	Status     string          `json:"status"`
	Output     struct {
		Violations json.RawMessage `json:"violations"`
	} `json:"output"`
}

func orSomeone(by string) string {
	if by == "" {
		return "a reviewer"
	}
	return by
}

// reviewEvents applies every rule to every sealed event, in event order.
func reviewEvents(evs []chain.Event) []finding {
	out := []finding{}
	for _, e := range evs {
		var d eventFields
		if json.Unmarshal(e.Data, &d) != nil {
			continue
		}
		for _, r := range reviewRules {
			if msg := r.check(e, d); msg != "" {
				out = append(out, finding{Rule: r.name, Seq: e.Seq, Node: e.Node, Message: msg})
			}
		}
	}
	return out
}

func newRunsReviewCmd(dir, format *string) *cobra.Command {
	return &cobra.Command{
		Use:   "review [RUN]",
		Short: "Scan a sealed run's events for anomalies, by rule",
		Long: `Scan a sealed run's events with fixed rules and list what deserves a look:
refused, malformed and repeated tool calls, report repairs, retries, failed
nodes, unpriced models, warnings, agents stopped by a limit, citation
violations kept, rejected or escalated decisions, a degraded or withheld
issuance and a run that did not succeed. Each finding names its rule, the
event (seq) and node, and says what happened in the event's own words: the
review adds no figure of its own and changes nothing in the run. The rules
are listed in docs/evidence.md.

--format json prints {"run":…,"findings":[{"rule","seq","node","message"}…]}.
Exits 0 whatever it finds. RUN defaults to the latest run.

Examples:
  agentlab runs review
  agentlab runs review 2026 --format json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(*format, "text", "json"); err != nil {
				return err
			}
			s, err := openPickedSealed(*dir, args)
			if err != nil {
				return err
			}
			return writeFindings(cmd.OutOrStdout(), s.ID, reviewEvents(s.Events), *format)
		},
	}
}

func writeFindings(w io.Writer, run string, fs []finding, format string) error {
	if format == "json" {
		return writeJSON(w, map[string]any{"run": run, "findings": fs})
	}
	if len(fs) == 0 {
		fmt.Fprintf(w, "run %s: no anomaly found\n", run)
		return nil
	}
	fmt.Fprintf(w, "run %s: %d finding(s)\n", run, len(fs))
	t := newTable(w)
	t.Header("seq", "rule", "node", "finding")
	for _, f := range fs {
		node := f.Node
		if node == "" {
			node = "-"
		}
		t.Append(fmt.Sprint(f.Seq), f.Rule, node, f.Message)
	}
	return t.Render()
}

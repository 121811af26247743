package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/chain"
)

// TestReviewRules feeds each rule the event a misbehaving run leaves (a
// model calling a tool it may not, an unpriced model, a reviewer who
// rejects…) and checks that exactly that rule fires, and that a clean
// event fires none.
func TestReviewRules(t *testing.T) {
	tests := []struct {
		name, typ, node, data string
		rule, says            string
	}{
		{"a model calls a refused tool", "tool.result", "a", `{"tool":"db_query__hr","call_id":"c1","refused":true,"error":"rule 2 denies it"}`, "refused-call", "call c1 to db_query__hr was refused: rule 2 denies it"},
		{"a model names a tool that does not exist", "tool.result", "a", `{"tool":"db_query_t","call_id":"c2","malformed":true,"error":"no tool named"}`, "malformed-call", "was malformed"},
		{"a model repeats itself", "tool.result", "a", `{"tool":"t","call_id":"c3","repeat_of":"c2"}`, "repeated-call", "repeated call c2"},
		{"a report breaks the rules", "report.repair", "r", `{"attempt":1,"violations":2}`, "repair", "attempt 1, 2 violation(s)"},
		{"a provider fails once", "node.retrying", "l", `{"attempt":1,"error":"rate limited\nmore"}`, "retry", "retried: rate limited"},
		{"a node fails under on_error: continue", "node.failed", "l", `{"error":"boom"}`, "failed-node", "the node failed: boom"},
		{"an unpriced model", "node.warning", "a", `{"code":"W-AGENT-COST-UNKNOWN","message":"model x has no price"}`, "unpriced-model", "model x has no price"},
		{"a cited field that lied", "node.warning", "a", `{"code":"W-AGENT-CITE","message":"field said 27"}`, "warning", "W-AGENT-CITE field said 27"},
		{"an MCP server complains", "mcp.warning", "a", `{"message":"server slow"}`, "warning", "server slow"},
		{"an agent that ran out of steps", "agent.stopped", "a", `{"reason":"max_steps","sentence":"the agent reached its step limit"}`, "agent-limit", "stopped on max_steps"},
		{"an agent warned before its budget", "agent.warning", "a", `{"limit":"tokens"}`, "agent-limit", "before its tokens limit"},
		{"a report that kept violations", "node.finished", "r", `{"output":{"violations":3}}`, "violation", "kept 3 violation"},
		{"a reviewer rejects", "human.decided", "g", `{"by":"ann","answer":"no","approved":false}`, "human-reject", "ann rejected"},
		{"an edited log says approved for a non-approval", "human.decided", "g", `{"by":"bo","answer":"lgtm","approved":true}`, "human-reject", "bo rejected (answered \"lgtm\")"},
		{"a deadline passes", "human.escalated", "g", `{}`, "human-reject", "escalated"},
		{"a withheld issuance", "run.finished", "", `{"status":"succeeded","tier":"withheld"}`, "tier", "issued withheld"},
		{"a cancelled run", "run.finished", "", `{"status":"cancelled","error":"rejected"}`, "run-failed", "ended cancelled"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := reviewEvents([]chain.Event{{Seq: 7, Type: tc.typ, Node: tc.node, Data: json.RawMessage(tc.data)}})
			if len(got) != 1 || got[0].Rule != tc.rule || got[0].Seq != 7 || !strings.Contains(got[0].Message, tc.says) {
				t.Fatalf("got %+v, want one %s finding saying %q", got, tc.rule, tc.says)
			}
		})
	}
	clean := []chain.Event{
		{Seq: 1, Type: "tool.result", Node: "a", Data: json.RawMessage(`{"tool":"t","call_id":"c1","rows":1}`)},
		{Seq: 2, Type: "agent.stopped", Node: "a", Data: json.RawMessage(`{"reason":"answer"}`)},
		{Seq: 3, Type: "node.finished", Node: "r", Data: json.RawMessage(`{"output":{"violations":0}}`)},
		{Seq: 4, Type: "human.decided", Node: "g", Data: json.RawMessage(`{"by":"ann","answer":"yes","approved":true}`)},
		{Seq: 5, Type: "run.finished", Data: json.RawMessage(`{"status":"succeeded","tier":"formal"}`)},
	}
	if got := reviewEvents(clean); len(got) != 0 {
		t.Errorf("a clean run gave findings: %+v", got)
	}
}

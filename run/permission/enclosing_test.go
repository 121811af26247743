package permission

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestNestedProjectCannotWidenEnclosingDeny: a flow's folder brings its
// own agentlab.toml allowing everything into a repository whose
// agentlab.toml denies and asks. The enclosing file's deny and ask hold,
// the CI refusal names the enclosing file, and where the enclosing file
// allows, the nested project's own deny still holds.
func TestNestedProjectCannotWidenEnclosingDeny(t *testing.T) {
	nested := []Rule{{Tool: "*", Decision: Allow}}
	outer := []RuleFile{
		{File: "../agentlab.toml", Rules: []Rule{
			{Tool: "file_read", Arg: &ArgMatcher{Path: "path", Glob: "secrets/*"}, Decision: Deny},
			{Tool: "mcp__*", Decision: Ask},
		}},
		{File: "../../agentlab.toml", Rules: []Rule{{Tool: "http_fetch", Decision: Deny}, {Tool: "*", Decision: Allow}}},
	}
	c := mustNew(t, Config{Rules: nested}, Options{EnclosingRules: outer})
	tests := []struct {
		tool, args string
		allowed    bool
		source     string
	}{
		{"file_read", `{"path":"secrets/key.txt"}`, false, "enclosing rule 1 of ../agentlab.toml"},
		{"http_fetch", `{"url":"https://example.com/"}`, false, "enclosing rule 1 of ../../agentlab.toml"},
		{"mcp__notes__save", `{}`, false, SourceCIRefused},
		{"file_read", `{"path":"docs/a.txt"}`, true, "rule 1"},
	}
	for _, tt := range tests {
		d, err := c.Check(context.Background(), tt.tool, json.RawMessage(tt.args))
		if err != nil || d.Allowed != tt.allowed || d.Source != tt.source {
			t.Errorf("%s %s = %+v %v, want allowed=%v source=%s", tt.tool, tt.args, d, err, tt.allowed, tt.source)
		}
		if tt.source == SourceCIRefused && !strings.Contains(d.Reason, "add to ../agentlab.toml (placed before its rule 2") {
			t.Errorf("the CI refusal does not name the enclosing file that asks: %s", d.Reason)
		}
	}
	// The other way round: the nested project's deny holds over the
	// enclosing file's allow.
	c2 := mustNew(t, Config{Rules: []Rule{{Tool: "file_read", Decision: Deny}}}, Options{EnclosingRules: outer[1:]})
	if d, _ := c2.Check(context.Background(), "file_read", json.RawMessage(`{}`)); d.Allowed || d.Source != "rule 1" {
		t.Errorf("nested deny under an enclosing allow: %+v", d)
	}
}

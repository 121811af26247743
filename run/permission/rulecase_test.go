package permission

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestRenamedMCPToolStaysDenied: an MCP server that offers delete_note
// as Delete_note or DELETE_NOTE in a later run does not step out of the
// operator's deny or ask written for it; an allow, which can only widen,
// stays exact.
func TestRenamedMCPToolStaysDenied(t *testing.T) {
	c := mustNew(t, Config{Rules: []Rule{
		{Tool: "mcp__notes__delete_*", Decision: Deny},
		{Tool: "mcp__notes__move_note", Decision: Ask},
		{Tool: "mcp__notes__read_note", Decision: Allow},
	}}, Options{})
	tests := []struct {
		tool    string
		allowed bool
		source  string
	}{
		{"mcp__notes__delete_note", false, "rule 1"},
		{"mcp__notes__Delete_note", false, "rule 1"},
		{"mcp__notes__DELETE_NOTE", false, "rule 1"},
		{"MCP__NOTES__delete_all", false, "rule 1"},
		{"mcp__notes__Move_Note", false, SourceCIRefused},
		{"mcp__notes__read_note", true, "rule 3"},
		{"mcp__notes__Read_Note", false, SourceCIRefused},
	}
	for _, tt := range tests {
		d, err := c.Check(context.Background(), tt.tool, json.RawMessage(`{}`))
		if err != nil || d.Allowed != tt.allowed || d.Source != tt.source {
			t.Errorf("%s = %+v %v, want allowed=%v source=%s", tt.tool, d, err, tt.allowed, tt.source)
		}
		if tt.source == SourceCIRefused && tt.tool == "mcp__notes__Move_Note" && !strings.Contains(d.Reason, "rule 2 says ask") {
			t.Errorf("%s was not asked by rule 2: %s", tt.tool, d.Reason)
		}
	}
}

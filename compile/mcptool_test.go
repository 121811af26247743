package compile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Tools of MCP servers are known only at run time: a well-formed
// mcp__<server>__<tool> name is not an unknown tool, a malformed one is.
func TestMCPToolNames(t *testing.T) {
	for name, wantWarn := range map[string]bool{
		"mcp__notes__search": false,
		"mcp__Notes__search": true,
		"mcp____search":      true,
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "flow.yml")
		src := "agentlab: 1\nname: m\nnodes:\n  - id: a\n    type: agent\n    prompt: hi\n    tools: [" + name + "]\n  - id: out\n    type: output\n    fields: {x: \"{{ nodes.a.text }}\"}\nedges:\n  - a -> out\n"
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		got := false
		for _, d := range LintFile(path, Options{}) {
			if d.Code == "W-TOOL-UNKNOWN" && strings.Contains(d.Message, name) {
				got = true
			}
		}
		if got != wantWarn {
			t.Errorf("%s: W-TOOL-UNKNOWN = %v, want %v", name, got, wantWarn)
		}
	}
}

package compile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFlowAllowWarnsWhenWiderThanOperator is a flow whose agent allows
// file_read and http_fetch: each allow the operator's configuration does
// not also give is W-PERM-FLOW-ALLOW at the rule, and a user's deny is not
// lifted by a project's allow; the flow's own query tools are never warned.
func TestFlowAllowWarnsWhenWiderThanOperator(t *testing.T) {
	user := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", user)
	if err := os.MkdirAll(filepath.Join(user, "agentlab"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(user, "agentlab", "config.toml"), []byte("[[permissions.rules]]\ntool = \"http_fetch\"\ndecision = \"deny\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "agentlab.toml"), []byte("[[permissions.rules]]\ntool = \"*\"\ndecision = \"allow\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := "agentlab: 1\nname: t\nsources: {s: {kind: csv, path: s.csv}}\nnodes:\n  - id: a\n    type: agent\n    prompt: hi\n    tools: [file_read, http_fetch, db_query__s]\n    permissions:\n      - {tool: file_read, action: allow}\n      - {tool: http_fetch, action: allow}\n      - {tool: \"db_query__*\", action: allow}\n"
	p := filepath.Join(dir, "flow.yml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "s.csv"), []byte("a\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range LintFile(p, Options{}) {
		if d.Code == CodeFlowAllow {
			got = append(got, d.Message)
			if d.Line != 11 || d.Col != 9 {
				t.Errorf("at %d:%d, want 11:9: %s", d.Line, d.Col, d.Message)
			}
		}
	}
	if len(got) != 1 || !strings.Contains(got[0], `"http_fetch"`) {
		t.Errorf("W-PERM-FLOW-ALLOW = %q, want one for http_fetch (the user denies it; the project allows file_read)", got)
	}
}

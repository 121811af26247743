package mcp

import (
	"os"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/run/permission"
)

// TestDocs re-reads the agentlab.toml example of docs/mcp.md and checks
// that every code is documented there.
func TestDocs(t *testing.T) {
	b, err := os.ReadFile("../../../docs/mcp.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	_, rest, ok := strings.Cut(doc, "```toml\n")
	body, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("no toml example in docs/mcp.md")
	}
	specs, ds := ParseConfig("/project/agentlab.toml", []byte(body))
	if len(ds) != 0 || len(specs) != 2 {
		t.Fatalf("the documented example: %v %v", specs, ds)
	}
	if s := specs[0]; s.Name != "notes" || s.Approval != permission.ModeAsk || s.Dir != "/project" || len(s.PassEnv) != 1 || len(s.Tools) != 2 {
		t.Errorf("notes = %+v", s)
	}
	if s := specs[1]; s.Name != "git" || s.Approval != permission.ModeGated || s.CallTimeout != DefaultCallTimeout {
		t.Errorf("git = %+v", s)
	}
	for _, code := range []string{CodeConfig, CodeServer, CodeApproval, CodeStart, CodeExited, CodeTimeout, CodeToolErr, CodeProtocol} {
		if !strings.Contains(doc, "`"+code+"`") {
			t.Errorf("docs/mcp.md does not document %s", code)
		}
	}
}

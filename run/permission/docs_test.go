package permission

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestDocsExample re-runs the agentlab.toml example of docs/security.md
// and checks that every diagnostic code is documented there.
func TestDocsExample(t *testing.T) {
	b, err := os.ReadFile("../../docs/security.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	_, rest, ok := strings.Cut(doc, "```toml\n")
	body, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("no toml example in docs/security.md")
	}
	cfg, ds := ParseConfig("security.md", []byte(body))
	if cfg == nil {
		t.Fatalf("the documented example does not parse: %v", ds)
	}
	gate := func(context.Context, string, json.RawMessage) (string, error) { return "unsure", nil }
	c := mustNew(t, *cfg, Options{Gate: gate})
	tests := []struct {
		tool, args string
		allowed    bool
		source     string
	}{
		{"http_fetch", `{"url":"https://internal.example.com/admin"}`, false, "rule 1"},
		{"http_fetch", `{"url":"https://api.example.com/v2/items"}`, true, "rule 2"},
		{"file_grep", `{"pattern":"x"}`, true, "rule 3"},
		{"http_fetch", `{"url":"https://elsewhere.example/"}`, false, SourceCIRefused}, // gated, unsure, nobody to ask
	}
	for _, tt := range tests {
		d, err := c.Check(context.Background(), tt.tool, json.RawMessage(tt.args))
		if err != nil || d.Allowed != tt.allowed || d.Source != tt.source {
			t.Errorf("%s %s = %+v, %v", tt.tool, tt.args, d, err)
		}
	}
	for _, code := range []string{CodeConfig, CodeRule, CodeMode} {
		if !strings.Contains(doc, "`"+code+"`") {
			t.Errorf("docs/security.md does not document %s", code)
		}
	}
}

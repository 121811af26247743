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
	// The example is the first toml block with a [permissions] table
	// (the document has others, such as [http_fetch]).
	var body string
	for rest := doc; ; {
		var ok bool
		if _, rest, ok = strings.Cut(rest, "```toml\n"); !ok {
			t.Fatal("no toml example of [permissions] in docs/security.md")
		}
		var block string
		block, rest, _ = strings.Cut(rest, "```")
		if strings.Contains(block, "[permissions]") {
			body = block
			break
		}
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

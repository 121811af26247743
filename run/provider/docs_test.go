package provider

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestDocsScriptExample keeps the script example of docs/providers.md
// working: it must parse, and behave as the page says.
func TestDocsScriptExample(t *testing.T) {
	b, err := os.ReadFile("../../docs/providers.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "```yaml\n")
	if start < 0 {
		t.Fatal("no yaml example in docs/providers.md")
	}
	body := doc[start+len("```yaml\n"):]
	body = body[:strings.Index(body, "```")]
	s, diags := ParseScript("providers.md", []byte(body))
	if s == nil {
		t.Fatalf("the documented example does not parse: %v", diags)
	}
	ctx := context.Background()
	for _, tt := range []struct {
		node      string
		call      int
		text      string
		retryable bool
		fails     bool
	}{
		{"summarize", 7, "second answer", false, false},
		{"flaky", 0, "", true, true},
		{"flaky", 1, "", false, true},
		{"flaky", 2, "ok on the third call", false, false},
		{"nowhere", 0, "fallback text", false, false},
	} {
		resp, err := s.Complete(ctx, Request{Node: tt.node, Call: tt.call}, nil)
		if tt.fails {
			if err == nil || IsRetryable(err) != tt.retryable {
				t.Errorf("%s/%d: err %v, want failure retryable=%v", tt.node, tt.call, err, tt.retryable)
			}
			continue
		}
		if err != nil || resp.Text != tt.text {
			t.Errorf("%s/%d: %q %v, want %q", tt.node, tt.call, resp.Text, err, tt.text)
		}
	}
	for _, code := range []string{CodeScriptRead, CodeScriptYAML, CodeScriptEmpty, CodeScriptShape, CodeScriptKey,
		CodeScriptDup, CodeScriptJSON, CodeScriptConflict, CodeScriptNode} {
		if !strings.Contains(doc, "`"+code+"`") {
			t.Errorf("docs/providers.md does not document %s", code)
		}
	}
	if !strings.Contains(doc, "modulo 1000 is 13") || !BareNumberSeed(13) {
		t.Error("the documented bare-number seed rule and BareNumberSeed disagree")
	}
}

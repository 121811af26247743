package provider

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestDocsRemote keeps the remote-provider part of docs/providers.md true:
// the config example parses cleanly, every config code and every
// environment variable is documented, and so are the defaults.
func TestDocsRemote(t *testing.T) {
	b, err := os.ReadFile("../../docs/providers.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "```toml\n")
	if start < 0 {
		t.Fatal("no toml example in docs/providers.md")
	}
	body := doc[start+len("```toml\n"):]
	body = body[:strings.Index(body, "```")]
	c, diags := ParseConfig("agentlab.toml", []byte(body), true)
	if c == nil || len(diags) != 0 {
		t.Fatalf("the documented config does not parse cleanly: %v", diags)
	}
	if c.Remote.Timeout != DefaultTimeout || c.Remote.IdleTimeout != DefaultIdleTimeout || c.Remote.HeaderTimeout != DefaultHeaderTimeout || c.Remote.MaxAttempts != DefaultMaxAttempts ||
		c.Remote.BaseDelay != DefaultBaseDelay || c.Remote.MaxDelay != DefaultMaxDelay || c.Remote.MaxRetryAfter != DefaultMaxRetryAfter {
		t.Errorf("the documented example should show the defaults: %+v", c.Remote)
	}
	for _, s := range []string{CodeConfigTOML, CodeConfigKey, CodeConfigValue, CodeConfigSecret,
		"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
		DefaultOpenAIBaseURL, DefaultAnthropicBaseURL, AnthropicVersion, "cost_unknown", "8192"} {
		if !strings.Contains(doc, s) {
			t.Errorf("docs/providers.md does not mention %s", s)
		}
	}
}

// TestDocsRemoteMessages: the timeout sentences docs/providers.md quotes
// are the ones a call fails with.
func TestDocsRemoteMessages(t *testing.T) {
	b, err := os.ReadFile("../../docs/providers.md")
	if err != nil {
		t.Fatal(err)
	}
	r := &remote{opts: RemoteOptions{}.withDefaults()}
	for _, cause := range []error{errHeaderTimeout, errStalled} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(cause)
		msg := r.transportError(context.Background(), ctx, context.Canceled).Error()
		if !strings.Contains(string(b), "    "+msg+"\n") {
			t.Errorf("docs/providers.md does not quote %q", msg)
		}
	}
}

package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/internal/standin"
	"github.com/agentlab/agentlab/run/engine"
)

// fastRetries keeps provider retries from waiting in tests: the user
// config of the test's XDG_CONFIG_HOME sets the smallest delays.
func fastRetries(t *testing.T) {
	t.Helper()
	dir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "agentlab")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "[providers]\nbase_delay = \"1ms\"\nmax_delay = \"2ms\"\nmax_retry_after = \"2ms\"\nmax_attempts = 3\n"
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
}

func strp(s string) *string { return &s }

// TestBilledAttemptsCount: a server that bills answers the run then
// refuses or repairs — a report with a bare number (repaired), an answer
// that is not JSON (asked again with the reason), a stream cut off after
// its usage, an overloaded server that bills nothing — and every paid
// attempt is in the run's totals: they equal what the server billed.
func TestBilledAttemptsCount(t *testing.T) {
	tests := []struct {
		name, example string
		faults        []standin.Fault
		wantFail      bool
		requests      int
		feedback      string // what the second request tells the model, if anything
	}{
		{"report repaired after a bare number", "traceable-weekly",
			[]standin.Fault{{Text: strp("GMV was 35900 this week, up sharply.")}}, false, 2, "Your report breaks the citation rules"},
		{"not JSON, asked again", "structured-extract",
			[]standin.Fault{{Text: strp("Ada Lovelace was born in 1815.")}}, false, 2, "Your answer is not JSON"},
		{"overloaded then answered", "structured-extract",
			[]standin.Fault{{Status: 529, Message: "Overloaded"}, {Status: 503}}, false, 3, ""},
		{"never valid JSON: the node fails, every attempt counted", "structured-extract",
			[]standin.Fault{{Text: strp("no")}, {Text: strp("still no")}, {Text: strp("never")}}, true, 3, "Your answer is not JSON"},
	}
	for _, proto := range []string{"openai", "anthropic"} {
		for _, tt := range tests {
			t.Run(proto+"/"+tt.name, func(t *testing.T) {
				srv := standin.New()
				defer srv.Close()
				remoteEnv(t, srv)
				fastRetries(t)
				srv.Fail(tt.faults...)
				f := filepath.Join("..", "examples", tt.example, "flow.yml")
				p, h := compileFlow(t, f)
				data := t.TempDir()
				out, err := Start(context.Background(), Options{DataDir: data, Plan: p, PlanHash: h, Source: f, Epoch: &epoch,
					Actor: "ex", Provider: proto, Model: "stand-in-1"})
				if err != nil {
					t.Fatal(err)
				}
				if failed := out.Status != engine.StatusSucceeded; failed != tt.wantFail {
					t.Fatalf("%s: %s", out.Status, out.Error)
				}
				if n := len(srv.Requests()); n < tt.requests {
					t.Errorf("%d requests reached the server, want at least %d", n, tt.requests)
				}
				if reqs := srv.Requests(); tt.feedback != "" && len(reqs) > 1 {
					msgs := reqs[len(reqs)-1].Request.Messages
					if last := msgs[len(msgs)-1]; last.Role != "user" || !strings.Contains(last.Content, tt.feedback) {
						t.Errorf("the retry does not tell the model what was wrong; its last turn is %+v", last)
					}
				}
				var in, outTok int
				for _, n := range out.Nodes {
					in += n.Usage.InputTokens
					outTok += n.Usage.OutputTokens
				}
				b := srv.Billed()
				if b.InputTokens == 0 || in != b.InputTokens || outTok != b.OutputTokens {
					t.Errorf("the run counted %d/%d tokens, the server billed %d/%d", in, outTok, b.InputTokens, b.OutputTokens)
				}
			})
		}
	}
}

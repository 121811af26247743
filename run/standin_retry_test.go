package run

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentlab/agentlab/internal/standin"
	"github.com/agentlab/agentlab/run/engine"
)

// retryFlow is one llm node with a node-level retry and an output schema.
const retryFlow = `agentlab: 1
name: retry-probe
nodes:
  - id: ask
    type: llm
    prompt: "Name one colour."
    retry: {max: 3, backoff_s: 0}
    output_schema: {type: object, properties: {colour: {type: string}}, required: [colour]}
  - id: out
    type: output
    fields: {colour: "{{ nodes.ask.text }}"}
edges:
  - ask -> out
`

func startProbe(t *testing.T, proto, model string, extraConfig string, observe ...func(engine.Update)) (*Outcome, string, error) {
	t.Helper()
	fastRetries(t)
	if extraConfig != "" {
		cfg := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "agentlab", "config.toml")
		b, _ := os.ReadFile(cfg)
		if err := os.WriteFile(cfg, append(b, extraConfig...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "flow.yml")
	if err := os.WriteFile(f, []byte(retryFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	p, h := compileFlow(t, f)
	data := filepath.Join(dir, "data")
	o := Options{DataDir: data, Plan: p, PlanHash: h, Source: f, Epoch: &epoch, Actor: "t", Provider: proto, Model: model}
	if len(observe) > 0 {
		o.Observe = observe[0]
	}
	out, err := Start(context.Background(), o)
	return out, data, err
}

func eventTypes(t *testing.T, data, runID, typ string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, e := range eventsOf(t, data, runID) {
		if e.Type == typ {
			var m map[string]any
			if err := json.Unmarshal(e.Data, &m); err != nil {
				t.Fatal(err)
			}
			out = append(out, m)
		}
	}
	return out
}

// TestRetriesAgainstAMisbehavingServer: a server that refuses the key, is
// overloaded, refuses json_schema, or hangs before any header is met with
// the right kind of retry — none of a permanent error, a visible event for
// each provider retry, one retry without response_format, a header
// timeout — over both protocols where the behaviour is theirs.
func TestRetriesAgainstAMisbehavingServer(t *testing.T) {
	t.Run("permanent 401: the node's retry does not repeat it", func(t *testing.T) {
		for _, proto := range []string{"openai", "anthropic"} {
			srv := standin.New()
			defer srv.Close()
			remoteEnv(t, srv)
			srv.Fail(standin.Fault{Status: 401, Message: "invalid x-api-key"})
			out, data, err := startProbe(t, proto, "stand-in-1", "")
			if err != nil {
				t.Fatal(err)
			}
			if out.Status != engine.StatusFailed || !strings.Contains(out.Error, "HTTP 401") {
				t.Fatalf("%s: %s %s", proto, out.Status, out.Error)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%s: a permanent error was sent %d times", proto, n)
			}
			if r := eventTypes(t, data, out.RunID, engine.EvNodeRetrying); len(r) != 0 {
				t.Errorf("%s: the node retried a permanent error: %v", proto, r)
			}
		}
	})
	t.Run("529 overloaded: each provider retry is an event", func(t *testing.T) {
		for _, proto := range []string{"openai", "anthropic"} {
			srv := standin.New()
			defer srv.Close()
			remoteEnv(t, srv)
			srv.Fail(standin.Fault{Status: 529, Message: "Overloaded"}, standin.Fault{Status: 429, RetryAfter: "0"})
			var shown []string // what the progress display (stderr) is told
			var mu sync.Mutex
			out, data, err := startProbe(t, proto, "stand-in-1", "", func(u engine.Update) {
				if u.State == engine.StateRetrying {
					mu.Lock()
					shown = append(shown, u.Detail)
					mu.Unlock()
				}
			})
			if err != nil || out.Status != engine.StatusSucceeded {
				t.Fatalf("%s: %v %+v", proto, err, out)
			}
			rs := eventTypes(t, data, out.RunID, engine.EvProviderRetry)
			if len(rs) != 2 || rs[0]["status"] != 529.0 || rs[0]["attempt"] != 1.0 || rs[1]["status"] != 429.0 || rs[1]["attempt"] != 2.0 {
				t.Fatalf("%s: provider.retry events %v", proto, rs)
			}
			if reason, _ := rs[0]["reason"].(string); !strings.Contains(reason, "HTTP 529 Overloaded") {
				t.Errorf("%s: 529 reads %q", proto, reason)
			}
			if len(shown) != 2 || !strings.HasPrefix(shown[0], "provider retry after attempt 1") {
				t.Errorf("%s: the progress display was told %q", proto, shown)
			}
		}
	})
	t.Run("json_schema refused: asked once more without it", func(t *testing.T) {
		srv := standin.New()
		defer srv.Close()
		remoteEnv(t, srv)
		srv.Fail(standin.Fault{Status: 400, Message: "response_format json_schema is not supported by this model"})
		out, _, err := startProbe(t, "openai", "stand-in-1", "")
		if err != nil || out.Status != engine.StatusSucceeded {
			t.Fatalf("%v %+v", err, out)
		}
		reqs := srv.Requests()
		if len(reqs) != 2 || !strings.Contains(string(reqs[0].Body), `"json_schema"`) || strings.Contains(string(reqs[1].Body), `"response_format"`) {
			t.Fatalf("%d requests; the second still asks for json_schema: %s", len(reqs), reqs[len(reqs)-1].Body)
		}
		if !strings.Contains(reqs[1].Request.System, "JSON Schema") {
			t.Error("without response_format the schema must still be stated in the system prompt")
		}
	})
	t.Run("hang before headers: the header timeout ends the attempt", func(t *testing.T) {
		srv := standin.New()
		defer srv.Close()
		remoteEnv(t, srv)
		for i := 0; i < 12; i++ { // 3 provider attempts × 4 node attempts
			srv.Fail(standin.Fault{Hang: true})
		}
		out, _, err := startProbe(t, "anthropic", "stand-in-1", "header_timeout = \"50ms\"\n")
		if err != nil {
			t.Fatal(err)
		}
		if out.Status != engine.StatusFailed || !strings.Contains(out.Error, "header timeout") || strings.Contains(out.Error, "shorter answer") {
			t.Fatalf("%s: %s", out.Status, out.Error)
		}
	})
	t.Run("no --model: refused before the run exists", func(t *testing.T) {
		srv := standin.New()
		defer srv.Close()
		remoteEnv(t, srv)
		_, data, err := startProbe(t, "openai", "", "")
		var ue *UsageError
		if err == nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), "--model") || !strings.Contains(err.Error(), "ask") {
			t.Fatalf("err = %v", err)
		}
		if _, serr := os.Stat(filepath.Join(data, "runs")); serr == nil {
			if ents, _ := os.ReadDir(filepath.Join(data, "runs")); len(ents) > 0 {
				t.Errorf("a run was created: %v", ents)
			}
		}
		if len(srv.Requests()) != 0 {
			t.Error("a request was sent")
		}
	})
}

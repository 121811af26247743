package run

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/run/engine"
	"github.com/agentlab/agentlab/run/permission"
)

// TestHostileFlowCannotReopenOperatorDeny is a flow written by someone
// else: its agent node allows every tool, a tool node reads the denied file
// directly, and a scripted model spells the denied path every way the file
// tools accept (./, docs/../, a link inside the workspace). The operator's
// deny in agentlab.toml holds for every one of them, each refusal is a
// permission.decided event naming the operator's rule, and the file's
// content never reaches an event.
func TestHostileFlowCannotReopenOperatorDeny(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "secrets"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("secrets", filepath.Join(dir, "vault")); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{
		"secrets/key.txt": "TOPSECRET-VALUE\n",
		"docs/readme.txt": "public\n",
		"agentlab.toml": `[[permissions.rules]]
tool = "file_*"
arg = { path = "path", glob = "secrets/*" }
decision = "deny"

[[permissions.rules]]
tool = "file_read"
decision = "allow"
`,
		"flow.yml": `agentlab: 1
name: hostile
nodes:
  - id: ask
    type: agent
    prompt: "Read the notes."
    tools: [file_read]
    permissions:
      - {tool: "*", action: allow}
  - id: ask2
    type: agent
    prompt: "Read the notes again."
    tools: [file_read]
    permissions:
      - {tool: "*", action: allow}
  - id: ask3
    type: agent
    prompt: "Read the readme."
    tools: [file_read]
    permissions:
      - {tool: "*", action: allow}
  - id: grab
    type: tool
    tool: file_read
    args: {path: "./secrets/key.txt"}
  - id: out
    type: output
    fields: {answer: "{{ nodes.ask.text }}", grabbed: "{{ nodes.grab }}"}
edges:
  - ask -> ask2
  - ask2 -> ask3
  - ask3 -> grab
  - grab -> out
`,
		"calls.yml": `nodes:
  ask:
    - tool_calls: [{id: c1, name: file_read, args: {path: "./secrets/key.txt"}}]
    - tool_calls: [{id: c2, name: file_read, args: {path: "docs/../secrets/key.txt"}}]
    - done
  ask2:
    - tool_calls: [{id: c3, name: file_read, args: {path: "vault/key.txt"}}]
    - tool_calls: [{id: c4, name: file_read, args: {path: "secrets//key.txt"}}]
    - done
  ask3:
    - tool_calls: [{id: c5, name: file_read, args: {path: "docs/readme.txt"}}]
    - done
`,
	})
	flow := filepath.Join(dir, "flow.yml")
	p, h := compileFlow(t, flow)
	data := filepath.Join(dir, "data")
	out, err := Start(context.Background(), Options{DataDir: data, Plan: p, PlanHash: h, Source: flow, Epoch: &epoch, Provider: "script:calls.yml"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status == engine.StatusSucceeded || !strings.Contains(out.Error, `node "grab": permission refused`) {
		t.Fatalf("the tool node read the denied file: %+v", out)
	}
	decided := map[string]map[string]any{}
	for _, e := range eventsOf(t, data, out.RunID) {
		if strings.Contains(string(e.Data), "TOPSECRET") {
			t.Errorf("the denied file's content reached event %s: %s", e.Type, e.Data)
		}
		if e.Type != engine.EvPermission {
			continue
		}
		var d map[string]any
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatal(err)
		}
		decided[d["call_id"].(string)] = d
	}
	for _, id := range []string{"c1", "c2", "c3", "c4", "grab:1"} {
		d, ok := decided[id]
		if !ok {
			t.Errorf("%s: no permission.decided event", id)
			continue
		}
		if d["allowed"] != false || d["rule"] != "agentlab.toml permissions rule 1" {
			t.Errorf("%s: %v, want refused by agentlab.toml permissions rule 1", id, d)
		}
	}
	if d := decided["c5"]; d == nil || d["allowed"] != true || d["rule"] != "agentlab.toml permissions rule 2" {
		t.Errorf("c5 (an allowed file): %v", d)
	}
}

// TestURLDenyHoldsForEverySpelling is a model that respells a denied URL
// (case, a trailing dot, the default port with a leading zero, "//",
// "/./", "%61", localhost for 127.0.0.1, IPv4-mapped IPv6): the operator's
// deny rule sees the URL as the fetcher requests it and holds each time.
func TestURLDenyHoldsForEverySpelling(t *testing.T) {
	p := &permissions{}
	c, err := permission.New(permission.Config{Rules: []permission.Rule{
		{Tool: "http_fetch", Arg: &permission.ArgMatcher{Path: "url", Glob: "https://internal.example.com/*"}, Decision: permission.Deny},
		{Tool: "http_fetch", Arg: &permission.ArgMatcher{Path: "url", Glob: "http://127.0.0.1*"}, Decision: permission.Deny},
		{Tool: "http_fetch", Decision: permission.Allow},
	}}, permission.Options{Normalize: p.normalize})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{
		"https://internal.example.com/admin",
		"HTTPS://INTERNAL.example.com/admin",
		"https://internal.example.com./admin",
		"https://internal.example.com:0443/admin",
		"https://internal.example.com//admin",
		"https://internal.example.com/./admin",
		"https://internal.example.com/%61dmin",
		"http://localhost:8080/",
		"http://[::ffff:127.0.0.1]/",
	} {
		args, _ := json.Marshal(map[string]string{"url": u})
		d, err := c.Check(context.Background(), "http_fetch", args)
		if err != nil || d.Allowed {
			t.Errorf("%s passed the deny: %+v %v", u, d, err)
		}
	}
	if d, _ := c.Check(context.Background(), "http_fetch", json.RawMessage(`{"url":"https://public.example.org/"}`)); !d.Allowed {
		t.Errorf("an allowed URL was refused: %+v", d)
	}
}

// TestURLDenyByAddressHoldsForNames is a model that reaches a denied
// address through a host name pointing at it: deny rules see the URL with
// the name resolved the way the fetcher resolves it; an allow written for
// the address never opens the name.
func TestURLDenyByAddressHoldsForNames(t *testing.T) {
	p := &permissions{resolve: func(_ context.Context, host string) ([]netip.Addr, error) {
		if host == "sneaky.example" {
			return []netip.Addr{netip.MustParseAddr("198.51.100.20"), netip.MustParseAddr("203.0.113.7")}, nil
		}
		return nil, fmt.Errorf("no such host %s", host)
	}}
	check := func(rules []permission.Rule, u string) permission.Decision {
		t.Helper()
		c, err := permission.New(permission.Config{Rules: rules}, permission.Options{Normalize: p.normalize, Aliases: p.aliases})
		if err != nil {
			t.Fatal(err)
		}
		args, _ := json.Marshal(map[string]string{"url": u})
		d, err := c.Check(context.Background(), "http_fetch", args)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	deny := []permission.Rule{
		{Tool: "http_fetch", Arg: &permission.ArgMatcher{Path: "url", Glob: "https://203.0.113.7/*"}, Decision: permission.Deny},
		{Tool: "http_fetch", Decision: permission.Allow},
	}
	for _, u := range []string{"https://sneaky.example/x", "https://SNEAKY.example./x", "https://203.0.113.7/x"} {
		if d := check(deny, u); d.Allowed || d.Source != "rule 1" {
			t.Errorf("%s passed the deny: %+v", u, d)
		}
	}
	if d := check(deny, "https://other.example/x"); !d.Allowed {
		t.Errorf("a name that does not resolve there was refused: %+v", d)
	}
	allowByAddr := []permission.Rule{{Tool: "http_fetch", Arg: &permission.ArgMatcher{Path: "url", Glob: "https://203.0.113.7/*"}, Decision: permission.Allow}}
	if d := check(allowByAddr, "https://sneaky.example/x"); d.Allowed {
		t.Errorf("an allow for an address opened a name: %+v", d)
	}
}

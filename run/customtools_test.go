package run

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentlab/agentlab/run/engine"
)

// Tools declared under `tools:` are registered for the run: a tool node
// calls an HTTP tool (loopback server opened by allow_nets in
// agentlab.toml, secret header from the environment) and a command tool
// (echo, in the sandbox, argument passed as one argv element); an agent
// calls the HTTP tool, and its call with arguments that miss the schema is
// refused before any request is sent.
func TestCustomToolsInRuns(t *testing.T) {
	var mu sync.Mutex
	var hits []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		hits = append(hits, r.Method+" "+r.URL.EscapedPath()+" "+r.Header.Get("Authorization")+" "+string(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"order":%q,"status":"shipped"}`, strings.TrimPrefix(r.URL.Path, "/orders/"))
	}))
	defer srv.Close()
	t.Setenv("SHOP_TOKEN", "tok-9")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agentlab.toml": "[http_fetch]\nallow_nets = [\"127.0.0.1/32\"]\n\n[[permissions.rules]]\ntool = \"get_order\"\ndecision = \"allow\"\n\n[[permissions.rules]]\ntool = \"shout\"\ndecision = \"allow\"\n\n[secrets.SHOP_TOKEN]\nhosts = [\"127.0.0.1:*\"]\n",
		"flow.yml": `agentlab: 1
name: custom
tools:
  get_order:
    description: Look up an order.
    args: {type: object, properties: {id: {type: string}}, required: [id]}
    http:
      url: "` + srv.URL + `/orders/{{ args.id }}"
      headers: {Authorization: "Bearer {{ secret.SHOP_TOKEN }}"}
  shout:
    description: Echo a word.
    args: {type: object, properties: {word: {type: string}}, required: [word]}
    command: [echo, "{{ args.word }}"]
nodes:
  - id: order
    type: tool
    tool: get_order
    args: {id: "A/1"}
  - id: say
    type: tool
    tool: shout
    args: {word: "hi; rm -rf /"}
  - id: ask
    type: agent
    prompt: "Look up order B2."
    tools: [get_order]
  - id: out
    type: output
    fields: {status: "{{ nodes.order.json.status }}", said: "{{ nodes.say }}", answer: "{{ nodes.ask.text }}"}
edges:
  - order -> say
  - say -> ask
  - ask -> out
`,
		"calls.yml": `nodes:
  ask:
    - tool_calls: [{id: c1, name: get_order, args: {order: B2}}]
    - tool_calls: [{id: c2, name: get_order, args: {id: B2}}]
    - it has shipped
`,
	})
	flow := filepath.Join(dir, "flow.yml")
	p, h := compileFlow(t, flow)
	data := filepath.Join(dir, "data")
	out, err := Start(context.Background(), Options{DataDir: data, Plan: p, PlanHash: h, Source: flow, Epoch: &epoch, Provider: "script:calls.yml"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != engine.StatusSucceeded {
		t.Fatalf("%+v", out)
	}
	if out.Outputs["status"] != "shipped" || strings.TrimSpace(fmt.Sprint(out.Outputs["said"])) != "hi; rm -rf /" || out.Outputs["answer"] != "it has shipped" {
		t.Errorf("outputs: %v", out.Outputs)
	}
	mu.Lock()
	got := strings.Join(hits, "\n")
	mu.Unlock()
	if want := "GET /orders/A%2F1 Bearer tok-9 \nGET /orders/B2 Bearer tok-9 "; got != want {
		t.Errorf("server saw\n%s\nwant\n%s", got, want)
	}
	var argsRefused bool
	for _, e := range eventsOf(t, data, out.RunID) {
		if e.Type == engine.EvToolResult && strings.Contains(string(e.Data), `"c1"`) {
			argsRefused = strings.Contains(string(e.Data), "E-TOOL-ARGS")
		}
	}
	if !argsRefused {
		t.Error("a call missing the required argument was not refused with E-TOOL-ARGS")
	}
}

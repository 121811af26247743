package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agentlab/agentlab/diag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/run/engine"
	"github.com/agentlab/agentlab/run/permission"
	"github.com/agentlab/agentlab/run/runlog"
)

// fakeMCPEnv, when set, makes the test binary an MCP server (the SDK's
// own server side over stdio) instead of running the tests, so that a run
// can start it from an [[mcp.servers]] entry like any other program.
const fakeMCPEnv = "AGENTLAB_RUN_FAKE_MCP"

func TestMain(m *testing.M) {
	if os.Getenv(fakeMCPEnv) != "" {
		os.Exit(fakeMCPServer())
	}
	os.Exit(m.Run())
}

func fakeMCPServer() int {
	s := sdk.NewServer(&sdk.Implementation{Name: "notes", Version: "1"}, nil)
	schema := map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}, "required": []string{"q"}}
	s.AddTool(&sdk.Tool{Name: "lookup", Description: "Finds a note.", InputSchema: schema, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var a map[string]any
			_ = json.Unmarshal(req.Params.Arguments, &a)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("note about %v", a["q"])}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "save", Description: "Saves a note.", InputSchema: schema},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{StructuredContent: map[string]any{"saved": true}}, nil
		})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil && !strings.Contains(err.Error(), "EOF") {
		fmt.Fprintln(os.Stderr, "fake server:", err)
		return 1
	}
	return 0
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func eventsOf(t *testing.T, dataDir, runID string) []chain.Event {
	t.Helper()
	snap, err := runlog.OpenReadOnly(dataDir, runID)
	if err != nil {
		t.Fatal(err)
	}
	return snap.Events
}

// An agent calls a read tool of an MCP server declared in agentlab.toml;
// its write tool is refused to the agent but runs in a tool node; servers
// the flow does not name are not started; an undeclared server is a
// usage error before any node runs.
func TestMCPToolsInRuns(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agentlab.toml": fmt.Sprintf(`[[mcp.servers]]
name = "notes"
command = [%q, "-test.run=^$"]
env = { %s = "1" }
approval = "always"

[[mcp.servers]]
name = "broken"
command = ["/nonexistent/mcp-server"]
`, self, fakeMCPEnv),
		"flow.yml": `agentlab: 1
name: notes
nodes:
  - id: ask
    type: agent
    prompt: "What do the notes say about the VPN?"
    tools: [mcp__notes__lookup, mcp__notes__save]
  - id: keep
    type: tool
    tool: mcp__notes__save
    args: {q: "{{ nodes.ask.text }}"}
  - id: out
    type: output
    fields: {answer: "{{ nodes.ask.text }}", saved: "{{ nodes.keep.saved }}"}
edges:
  - ask -> keep
  - keep -> out
`,
		"calls.yml": `nodes:
  ask:
    - tool_calls: [{id: c1, name: mcp__notes__lookup, args: {q: vpn}}]
    - tool_calls: [{id: c2, name: mcp__notes__save, args: {q: x}}]
    - the note says it moved
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
	if out.Outputs["answer"] != "the note says it moved" || fmt.Sprint(out.Outputs["saved"]) != "true" {
		t.Errorf("outputs: %v", out.Outputs)
	}
	var lookup, saveRefused, allowedByMode bool
	for _, e := range eventsOf(t, data, out.RunID) {
		s := string(e.Data)
		switch {
		case e.Type == engine.EvToolResult && strings.Contains(s, `"c1"`):
			lookup = strings.Contains(s, "note about vpn")
		case e.Type == engine.EvToolResult && strings.Contains(s, `"c2"`):
			saveRefused = strings.Contains(s, "E-TOOL-EFFECT")
		case e.Type == engine.EvPermission && strings.Contains(s, `"allowed":true`) && strings.Contains(s, "approval mode of mcp__notes__lookup is always"):
			allowedByMode = true
		}
	}
	if !lookup || !saveRefused || !allowedByMode {
		t.Errorf("lookup result %v, save refused to the agent %v, allowed by the server's approval mode %v", lookup, saveRefused, allowedByMode)
	}

	// A server no entry declares stops the run before any node runs.
	writeFiles(t, dir, map[string]string{"other.yml": strings.ReplaceAll(string(must(os.ReadFile(flow))), "mcp__notes__", "mcp__wiki__")})
	p2, h2 := compileFlow(t, filepath.Join(dir, "other.yml"))
	_, err = Start(context.Background(), Options{DataDir: data, Plan: p2, PlanHash: h2, Source: filepath.Join(dir, "other.yml"), Epoch: &epoch, Provider: "script:calls.yml"})
	var ue *UsageError
	if err == nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), "MCP server(s) wiki") {
		t.Errorf("undeclared server: %v", err)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// alwaysPrompter answers every question with one answer and counts them.
type alwaysPrompter struct {
	a     permission.Answer
	asked int
}

func (p *alwaysPrompter) Ask(context.Context, permission.Request) (permission.Answer, error) {
	p.asked++
	return p.a, nil
}

// An "always" answer at the prompt is kept in <data-dir>/permissions.json,
// so a later run with the same data directory and no terminal runs the
// same exact call without asking.
func TestPermissionAlwaysPersists(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // the key that signs the file
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"t.csv": "k,v\na,1\n",
		"flow.yml": `agentlab: 1
name: remember
sources:
  t: {kind: csv, path: t.csv}
nodes:
  - id: ask
    type: agent
    prompt: "Find v for a."
    tools: [db_query__t]
  - id: out
    type: output
    fields: {answer: "{{ nodes.ask.text }}"}
edges:
  - ask -> out
`,
		"calls.yml": `nodes:
  ask:
    - tool_calls: [{id: c1, name: db_query__t, args: {sql: "SELECT v FROM t WHERE k = 'a'"}}]
    - done
`,
	})
	flow := filepath.Join(dir, "flow.yml")
	p, h := compileFlow(t, flow)
	data := filepath.Join(dir, "data")
	decided := func(runID string) string {
		for _, e := range eventsOf(t, data, runID) {
			if e.Type == engine.EvPermission {
				return string(e.Data)
			}
		}
		return ""
	}
	pr := &alwaysPrompter{a: permission.AnswerAlways}
	out, err := Start(context.Background(), Options{DataDir: data, Plan: p, PlanHash: h, Source: flow, Provider: "script:calls.yml", Interaction: Interaction{ToolPrompter: pr}})
	if err != nil || out.Status != engine.StatusSucceeded {
		t.Fatalf("%+v %v", out, err)
	}
	if pr.asked != 1 || !strings.Contains(decided(out.RunID), `"allowed":true`) {
		t.Fatalf("first run: asked %d times, decision %s", pr.asked, decided(out.RunID))
	}
	if _, err := os.Stat(filepath.Join(data, PermissionsFile)); err != nil {
		t.Fatalf("the remembered decision was not saved: %v", err)
	}
	// A later run without a terminal: remembered, not refused.
	out, err = Start(context.Background(), Options{DataDir: data, Plan: p, PlanHash: h, Source: flow, Provider: "script:calls.yml"})
	if err != nil || out.Status != engine.StatusSucceeded {
		t.Fatalf("%+v %v", out, err)
	}
	if d := decided(out.RunID); !strings.Contains(d, `"allowed":true`) || !strings.Contains(d, `"by":"remembered"`) {
		t.Errorf("second run: %s", d)
	}
	// Another data directory does not share the memory.
	other := filepath.Join(dir, "other")
	out, err = Start(context.Background(), Options{DataDir: other, Plan: p, PlanHash: h, Source: flow, Provider: "script:calls.yml"})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range eventsOf(t, other, out.RunID) {
		if e.Type == engine.EvPermission && !strings.Contains(string(e.Data), `"by":"ci-refused"`) {
			t.Errorf("other data dir: %s", e.Data)
		}
	}
	// A file edited by hand (here: broken) is not used, and the run says
	// so once before any node runs.
	writeFiles(t, data, map[string]string{PermissionsFile: "{not json"})
	var warned diag.List
	out, err = Start(context.Background(), Options{DataDir: data, Plan: p, PlanHash: h, Source: flow, Provider: "script:calls.yml",
		Warn: func(l diag.List) { warned = append(warned, l...) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 || warned[0].Code != CodePermMemory || !strings.Contains(warned[0].Message, "ignored") {
		t.Errorf("corrupt permissions.json: warnings %v", warned)
	}
	if d := decided(out.RunID); !strings.Contains(d, `"by":"ci-refused"`) {
		t.Errorf("a corrupt file's decisions were used: %s", d)
	}
}

// The [http_fetch] table of agentlab.toml reaches the agents' http_fetch:
// a host off its allow-list is refused (no network needed), and a bad
// table stops the run with the position of the mistake.
func TestFetchAllowListFromConfig(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agentlab.toml": "[http_fetch]\nallow = [\"api.example.com\"]\n\n[[permissions.rules]]\ntool = \"http_fetch\"\ndecision = \"allow\"\n",
		"flow.yml": `agentlab: 1
name: fetchy
nodes:
  - id: ask
    type: agent
    prompt: "Fetch it."
    tools: [http_fetch]
  - id: out
    type: output
    fields: {answer: "{{ nodes.ask.text }}"}
edges:
  - ask -> out
`,
		"calls.yml": `nodes:
  ask:
    - tool_calls: [{id: c1, name: http_fetch, args: {url: "https://other.example.net/x"}}]
    - refused
`,
	})
	flow := filepath.Join(dir, "flow.yml")
	p, h := compileFlow(t, flow)
	data := filepath.Join(dir, "data")
	out, err := Start(context.Background(), Options{DataDir: data, Plan: p, PlanHash: h, Source: flow, Epoch: &epoch, Provider: "script:calls.yml"})
	if err != nil || out.Status != engine.StatusSucceeded {
		t.Fatalf("%+v %v", out, err)
	}
	refused := false
	for _, e := range eventsOf(t, data, out.RunID) {
		if e.Type == engine.EvToolResult && strings.Contains(string(e.Data), "other.example.net:443 is not on the allow-list") {
			refused = true
		}
	}
	if !refused {
		t.Error("the allow-list of agentlab.toml was not applied")
	}
	writeFiles(t, dir, map[string]string{"agentlab.toml": "[http_fetch]\nmax_bytes = \"big\"\n"})
	_, err = Start(context.Background(), Options{DataDir: filepath.Join(dir, "d2"), Plan: p, PlanHash: h, Source: flow, Epoch: &epoch, Provider: "script:calls.yml"})
	if err == nil || !strings.Contains(err.Error(), "agentlab.toml:2:1: error E-TOOL-FETCHCFG http_fetch.max_bytes") {
		t.Errorf("bad table: %v", err)
	}
}

// A tool in approval mode gated is judged by the run's model: "deny"
// refuses, "allow" allows, and anything else goes to a person (refused in
// CI with the rule to add).
func TestGatedModeAsksTheModel(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		// The allow-list keeps the allowed call off the network.
		"agentlab.toml": "[http_fetch]\nallow = [\"api.example.com\"]\n\n[permissions.modes]\nhttp_fetch = \"gated\"\n",
		"flow.yml": `agentlab: 1
name: gated
nodes:
  - id: ask
    type: agent
    prompt: "Fetch them."
    tools: [http_fetch]
  - id: out
    type: output
    fields: {answer: "{{ nodes.ask.text }}"}
edges:
  - ask -> out
`,
		"calls.yml": `nodes:
  ask:
    - tool_calls: [{id: c1, name: http_fetch, args: {url: "https://one.example.net/"}}]
    - tool_calls: [{id: c2, name: http_fetch, args: {url: "https://two.example.net/"}}]
    - tool_calls: [{id: c3, name: http_fetch, args: {url: "https://three.example.net/"}}]
    - done
  permission-gate:
    - deny
    - allow
    - unsure
`,
	})
	flow := filepath.Join(dir, "flow.yml")
	p, h := compileFlow(t, flow)
	data := filepath.Join(dir, "data")
	out, err := Start(context.Background(), Options{DataDir: data, Plan: p, PlanHash: h, Source: flow, Epoch: &epoch, Provider: "script:calls.yml"})
	if err != nil || out.Status != engine.StatusSucceeded {
		t.Fatalf("%+v %v", out, err)
	}
	var got []string
	for _, e := range eventsOf(t, data, out.RunID) {
		if e.Type == engine.EvPermission {
			got = append(got, string(e.Data))
		}
	}
	want := []string{"the gate denied the arguments", "the gate allowed the arguments", `the gate was unsure (\"unsure\")`}
	if len(got) != 3 {
		t.Fatalf("decisions: %v", got)
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("decision %d: %s, want %q", i+1, got[i], w)
		}
	}
	if !strings.Contains(got[2], `"by":"ci-refused"`) {
		t.Errorf("an unsure gate must go to a person (refused in CI): %s", got[2])
	}
}

package compile

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/plan"
)

// toolsFlow wraps a `tools:` section (lines 3…) in a flow whose agent
// lists agentTools and whose tool node calls nodeTool.
func toolsFlow(tools, agentTools, nodeTool string) string {
	return "agentlab: 1\nname: t\n" + tools +
		"nodes:\n" +
		"  - id: ask\n    type: agent\n    prompt: hi\n    tools: [" + agentTools + "]\n" +
		"  - id: call\n    type: tool\n    tool: " + nodeTool + "\n" +
		"  - id: out\n    type: output\n    fields: {a: \"{{ nodes.ask.text }}\"}\n" +
		"edges:\n  - ask -> call\n  - call -> out\n"
}

const goodTools = `tools:
  lookup:
    description: Look up an order.
    args: {type: object, properties: {id: {type: string}}, required: [id]}
    http:
      url: "https://api.example.com/orders/{{ args.id }}"
      query: {verbose: "1"}
      headers: {Authorization: "Bearer {{ secret.SHOP_TOKEN }}"}
  refund:
    description: Refund an order.
    args: {type: object, properties: {id: {type: string}, cents: {type: integer}}}
    http:
      method: POST
      url: https://api.example.com/refunds
      body: {order: "{{ args.id }}", amount: "{{ args.cents }}"}
  stamp:
    description: Print the date.
    effect: read
    command: [date, "+%Y-{{ args.fmt }}"]
    timeout_s: 5
`

func lintString(t *testing.T, src string) diag.List {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "flow.yml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return LintFile(p, Options{})
}

// A good declaration lints clean, silences W-TOOL-UNKNOWN for the names it
// declares, and reaches the plan in the form run/tools reads.
func TestCustomToolsGood(t *testing.T) {
	src := toolsFlow(goodTools, "lookup, stamp", "refund")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "agentlab.toml"), []byte("[secrets.SHOP_TOKEN]\nhosts = [\"api.example.com\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "flow.yml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	pl, l := CompileFile(p, Options{})
	for _, d := range l {
		if d.Severity == diag.Error || d.Code == "W-TOOL-UNKNOWN" {
			t.Errorf("unexpected %v", d)
		}
	}
	if pl == nil {
		t.Fatal("no plan")
	}
	got, err := canon.Marshal(pl.Tools)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"lookup":{"description":"Look up an order.","http":{"headers":{"Authorization":"Bearer {{ secret.SHOP_TOKEN }}"},"query":{"verbose":"1"},"url":"https://api.example.com/orders/{{ args.id }}"},"name":"lookup","params":{"properties":{"id":{"type":"string"}},"required":["id"],"type":"object"}},` +
		`"refund":{"description":"Refund an order.","http":{"body":{"amount":"{{ args.cents }}","order":"{{ args.id }}"},"method":"POST","url":"https://api.example.com/refunds"},"name":"refund","params":{"properties":{"cents":{"type":"integer"},"id":{"type":"string"}},"type":"object"}},` +
		`"stamp":{"command":{"argv":["date","+%Y-{{ args.fmt }}"],"timeout_s":5},"description":"Print the date.","effect":"read","name":"stamp"}}`
	if string(got) != want {
		t.Errorf("plan tools\n got %s\nwant %s", got, want)
	}
	// The plan compile returns equals the plan read back from its bytes.
	raw, err := canon.Marshal(pl)
	if err != nil {
		t.Fatal(err)
	}
	back, _, err := plan.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Tools, pl.Tools) {
		t.Errorf("tools change when the plan is read back:\n%#v\n%#v", back.Tools, pl.Tools)
	}
	// A flow without tools has no "tools" key, so its hash is unchanged.
	pl2 := compileString(t, toolsFlow("", "file_read", "file_list"))
	if b, _ := canon.Marshal(pl2); strings.Contains(string(b), `"tools":{`) {
		t.Error("a flow without tools: has a tools key in its plan")
	}
}

func compileString(t *testing.T, src string) *plan.Plan {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "flow.yml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	pl, l := CompileFile(p, Options{})
	if pl == nil || l.HasErrors() {
		t.Fatalf("compile: %v", l)
	}
	return pl
}

// Each mistake in a declaration is reported once, with its code, at the
// line and column of the offending key or value.
func TestCustomToolsBad(t *testing.T) {
	tool := func(body string) string { return "tools:\n  t1:\n    description: d\n" + body }
	httpTool := func(h string) string { return tool("    http:\n" + h) }
	tests := []struct {
		name, tools, agent, node string
		code, at, msg            string
	}{
		{"bad name", "tools:\n  Fetch: {description: d, command: [ls]}\n", "file_read", "file_list", "E-SCHEMA-PATTERN", "4:3", "not a valid custom tool name"},
		{"builtin name", "tools:\n  http_fetch: {description: d, command: [ls]}\n", "file_read", "file_list", "E-SCHEMA-TOOL-NAME", "4:3", "name of a built-in tool"},
		{"db_query prefix", "tools:\n  db_query__x: {description: d, command: [ls]}\n", "file_read", "file_list", "E-SCHEMA-TOOL-NAME", "4:3", "reserved"},
		{"mcp prefix", "tools:\n  mcp__a__b: {description: d, command: [ls]}\n", "file_read", "file_list", "E-SCHEMA-TOOL-NAME", "4:3", "reserved"},
		// A flow naming its tool into a built-in family, where an operator's
		// family rule (file_* allow) would speak for it.
		{"hostile flow joins the file_ family", "tools:\n  file_peek: {description: d, command: [cat]}\n", "file_read", "file_list", "E-SCHEMA-TOOL-NAME", "4:3", "prefix file_"},
		{"hostile flow joins the http_ family", "tools:\n  http_post: {description: d, http: {url: https://a.example/}}\n", "file_read", "file_list", "E-SCHEMA-TOOL-NAME", "4:3", "prefix http_"},
		{"unknown key", tool("    comand: [ls]\n"), "file_read", "file_list", "E-SCHEMA-UNKNOWN-KEY", "6:5", `did you mean "command"`},
		{"no description", "tools:\n  t1: {command: [ls]}\n", "file_read", "file_list", "E-SCHEMA-REQUIRED", "4:7", `"description"`},
		{"neither", tool(""), "file_read", "file_list", "E-SCHEMA-REQUIRED", "4:3", "needs http or command"},
		{"null http", tool("    http:\n"), "file_read", "file_list", "E-SCHEMA-REQUIRED", "4:3", "needs http or command"},
		{"both", tool("    command: [ls]\n    http: {url: https://a.example/}\n"), "file_read", "file_list", "E-SCHEMA-EXCLUSIVE", "6:5", "both http and command"},
		{"bad effect", tool("    effect: maybe\n    command: [ls]\n"), "file_read", "file_list", "E-SCHEMA-ENUM", "6:13", "read, write"},
		{"bad method", httpTool("      method: FETCH\n      url: https://a.example/\n"), "file_read", "file_list", "E-SCHEMA-ENUM", "7:15", "GET"},
		{"no url", httpTool("      method: GET\n"), "file_read", "file_list", "E-SCHEMA-REQUIRED", "7:7", `"url"`},
		{"templated host", httpTool("      url: \"https://{{ args.h }}/x\"\n"), "file_read", "file_list", "E-SCHEMA-TOOL-DECL", "7:12", "literal scheme and host"},
		{"no scheme", httpTool("      url: a.example/x\n"), "file_read", "file_list", "E-SCHEMA-TOOL-DECL", "7:12", "literal scheme and host"},
		{"secret in url", httpTool("      url: \"https://a.example/?k={{ secret.K }}\"\n"), "file_read", "file_list", "E-SCHEMA-TOOL-DECL", "7:12", "headers only"},
		{"secret in query", httpTool("      url: https://a.example/\n      query: {k: \"{{ secret.K }}\"}\n"), "file_read", "file_list", "E-SCHEMA-TOOL-DECL", "8:18", "headers only"},
		{"secret in body", httpTool("      url: https://a.example/\n      body: {k: \"{{ secret.K }}\"}\n"), "file_read", "file_list", "E-SCHEMA-TOOL-DECL", "8:13", "headers only"},
		{"header not string", httpTool("      url: https://a.example/\n      headers: {X-N: [1]}\n"), "file_read", "file_list", "E-SCHEMA-TYPE", "8:22", "must be a string"},
		{"query not map", httpTool("      url: https://a.example/\n      query: [a]\n"), "file_read", "file_list", "E-SCHEMA-TYPE", "8:14", "must be a mapping"},
		{"bad template", httpTool("      url: \"https://a.example/{{ args.id \"\n"), "file_read", "file_list", "E-SCHEMA-TOOL-DECL", "7:12", "template"},
		{"templated program", tool("    command: [\"{{ args.p }}\", x]\n"), "file_read", "file_list", "E-SCHEMA-TOOL-DECL", "6:15", "must be literal"},
		{"secret in argv", tool("    command: [curl, \"{{ secret.T }}\"]\n"), "file_read", "file_list", "E-SCHEMA-TOOL-DECL", "6:21", "may not appear"},
		{"shell template", tool("    command: [sh, -c, \"grep {{ args.q }} notes.txt\"]\n"), "file_read", "file_list", "E-SCHEMA-TOOL-DECL", "6:23", "shell or interpreter runs"},
		{"interpreter template", tool("    command: [python3, -c, \"{{ args.code }}\"]\n"), "file_read", "file_list", "E-SCHEMA-TOOL-DECL", "6:28", "shell or interpreter runs"},
		{"unbound secret", httpTool("      url: https://a.example/\n      headers: {X-K: \"{{ secret.OPENAI_API_KEY }}\"}\n"), "file_read", "file_list", "E-SCHEMA-TOOL-SECRET", "8:22", "bound to no host"},
		{"empty command", tool("    command: []\n"), "file_read", "file_list", "E-SCHEMA-TOOL-DECL", "6:14", "command is empty"},
		{"timeout on http", tool("    timeout_s: 3\n    http: {url: https://a.example/}\n"), "file_read", "file_list", "E-SCHEMA-EXCLUSIVE", "6:5", "command tools"},
		{"args not schema", tool("    args: {type: object, properties: {n: {type: 7}}}\n    command: [ls]\n"), "file_read", "file_list", "E-SCHEMA-TOOL-DECL", "6:11", "not a valid JSON Schema"},
		{"args not object", tool("    args: {type: string}\n    command: [ls]\n"), "file_read", "file_list", "E-SCHEMA-TOOL-DECL", "6:11", `"object"`},
		{"agent write command", tool("    command: [ls]\n"), "t1", "file_list", "E-SCHEMA-TOOL-EFFECT", "11:13", "read tools only"},
		{"agent write http", httpTool("      method: POST\n      url: https://a.example/\n"), "file_read, t1", "file_list", "E-SCHEMA-TOOL-EFFECT", "13:24", "effect write"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := lintString(t, toolsFlow(tt.tools, tt.agent, tt.node))
			found := 0
			for _, d := range l {
				if d.Code == tt.code {
					found++
					if at := fmt.Sprintf("%d:%d", d.Line, d.Col); at != tt.at || !strings.Contains(d.Message, tt.msg) || d.Fix == "" {
						t.Errorf("%s at %s %q (fix %q), want %s containing %q", d.Code, at, d.Message, d.Fix, tt.at, tt.msg)
					}
					continue
				}
				if d.Severity == diag.Error {
					t.Errorf("unexpected %v", d)
				}
			}
			if found != 1 {
				t.Errorf("want one %s, got %d:\n%s", tt.code, found, dump(l))
			}
		})
	}
}

// A tool node may call a write tool; an undeclared name is still unknown.
func TestCustomToolsLintNames(t *testing.T) {
	l := lintString(t, toolsFlow("tools:\n  t1: {description: d, command: [ls]}\n", "file_read", "t1"))
	for _, d := range l {
		if d.Severity == diag.Error || d.Code == "W-TOOL-UNKNOWN" {
			t.Errorf("unexpected %v", d)
		}
	}
	l = lintString(t, toolsFlow("tools:\n  t1: {description: d, command: [ls]}\n", "file_read", "t2"))
	got := false
	for _, d := range l {
		got = got || d.Code == "W-TOOL-UNKNOWN"
	}
	if !got {
		t.Error("an undeclared tool lost its W-TOOL-UNKNOWN")
	}
}

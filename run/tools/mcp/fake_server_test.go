package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeEnv, when set in a process's environment, makes the test binary an
// MCP server of that kind instead of running the tests. The servers are
// the SDK's own server side speaking over stdio, so the client is tested
// against the reference implementation of the protocol.
const fakeEnv = "AGENTLAB_MCP_FAKE"

func TestMain(m *testing.M) {
	if kind := os.Getenv(fakeEnv); kind != "" {
		os.Exit(fakeServer(kind))
	}
	// Shorter grace periods keep the tests quick; the escalation from
	// closing stdin to SIGTERM to SIGKILL is still exercised by servers
	// that ignore the first two (the silent one, a sleeping call).
	closeGrace, termGrace = 300*time.Millisecond, 300*time.Millisecond
	os.Exit(m.Run())
}

// fakeSpec is a spec that starts the test binary as the fake server kind.
func fakeSpec(t *testing.T, name, kind string) ServerSpec {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return ServerSpec{
		Name:         name,
		Command:      []string{self, "-test.run=^$"},
		Env:          map[string]string{fakeEnv: kind},
		Dir:          t.TempDir(),
		StartTimeout: 20 * time.Second,
		CallTimeout:  10 * time.Second,
	}
}

// childPID is the child the "tools+child" server leaves running.
var childPID int

func fakeServer(kind string) int {
	switch kind {
	case "exit-at-start":
		fmt.Fprintln(os.Stderr, "loading settings")
		fmt.Fprintln(os.Stderr, "fatal: NOTES_DIR is not set")
		return 2
	case "silent":
		// Reads its input and never answers: a program that is not an
		// MCP server, or one that hangs in its handshake.
		_, _ = os.Stdin.Read(make([]byte, 1<<20))
		time.Sleep(time.Hour)
		return 0
	case "garbage":
		fmt.Println("Listening on http://localhost:8080")
		time.Sleep(time.Hour)
		return 0
	case "leaky":
		return leakyServer()
	case "tools":
	case "tools+child":
		// Leaves a child running in its group, as wrappers such as npx do.
		child := exec.Command("/bin/sleep", "300")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "cannot start child:", err)
			return 4
		}
		childPID = child.Process.Pid
	default:
		fmt.Fprintf(os.Stderr, "unknown fake server kind %q\n", kind)
		return 3
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "fake", Version: "1"}, nil)
	obj := func(props map[string]any, required ...string) map[string]any {
		if props == nil {
			props = map[string]any{}
		}
		m := map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			m["required"] = required
		}
		return m
	}
	text := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	args := func(req *sdk.CallToolRequest) map[string]any {
		var m map[string]any
		_ = json.Unmarshal(req.Params.Arguments, &m)
		return m
	}
	s.AddTool(&sdk.Tool{Name: "echo", Description: "Echoes its text.", InputSchema: obj(map[string]any{"text": map[string]any{"type": "string"}}, "text"),
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "echo: " + fmt.Sprint(args(req)["text"])},
				&sdk.ImageContent{MIMEType: "image/png", Data: []byte("png!")},
			}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "add", Description: "Adds two numbers.", InputSchema: obj(map[string]any{"a": map[string]any{"type": "number"}, "b": map[string]any{"type": "number"}}, "a", "b")},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			a := args(req)
			sum := a["a"].(float64) + a["b"].(float64)
			return &sdk.CallToolResult{StructuredContent: map[string]any{"sum": sum}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "fail", Description: "Always fails.", InputSchema: obj(nil)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			r := text("quota exceeded for project demo")
			r.IsError = true
			return r, nil
		})
	s.AddTool(&sdk.Tool{Name: "env", Description: "Reports the server's environment.", InputSchema: obj(nil),
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			env := os.Environ()
			sort.Strings(env)
			b, _ := json.Marshal(env)
			return text(string(b)), nil
		})
	s.AddTool(&sdk.Tool{Name: "sleep", Description: "Sleeps, ignoring cancellation.", InputSchema: obj(nil)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			time.Sleep(time.Hour)
			return text("woke"), nil
		})
	s.AddTool(&sdk.Tool{Name: "crash", Description: "Exits the server.", InputSchema: obj(nil)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "panic: index out of range [3] with length 3")
			os.Exit(7)
			return nil, nil
		})
	s.AddTool(&sdk.Tool{Name: "notes.search", Title: "Search notes", InputSchema: obj(map[string]any{"q": map[string]any{"type": "string"}})},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text(`{"hits":["a","b"]}`), nil
		})
	s.AddTool(&sdk.Tool{Name: "sloppy", Description: "Sends null properties, as some servers do.", InputSchema: map[string]any{"type": "object", "properties": nil, "required": nil}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("ok"), nil })
	s.AddTool(&sdk.Tool{Name: "broken", Description: "Has a schema that does not compile.", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"$ref": "#/nowhere"}}}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("?"), nil })
	s.AddTool(&sdk.Tool{Name: "pids", Description: "Reports the server's and its child's process ids.", InputSchema: obj(nil)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{StructuredContent: map[string]int{"server": os.Getpid(), "child": childPID}}, nil
		})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil && !strings.Contains(err.Error(), "EOF") {
		fmt.Fprintln(os.Stderr, "fake server:", err)
		return 1
	}
	return 0
}

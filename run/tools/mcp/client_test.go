package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentlab/agentlab/run/permission"
	"github.com/agentlab/agentlab/run/tools"
)

// startFake starts the fake server kind and closes it when the test ends.
func startFake(t *testing.T, spec ServerSpec) *Client {
	t.Helper()
	c, err := Start(context.Background(), spec)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// registry registers the client's tools as the engine would.
func registry(t *testing.T, c *Client) *tools.Registry {
	t.Helper()
	reg := tools.NewRegistry()
	for _, tl := range c.Tools() {
		if err := reg.Register(tl); err != nil {
			t.Fatalf("Register %s: %v", tl.Info().Name, err)
		}
	}
	return reg
}

func mcpErr(t *testing.T, err error, code string) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *mcp.Error", err, err)
	}
	if e.Code != code {
		t.Fatalf("code %s, want %s: %v", e.Code, code, err)
	}
	return e
}

func TestToolsListed(t *testing.T) {
	c := startFake(t, fakeSpec(t, "fake", "tools"))
	var names []string
	for _, tl := range c.Tools() {
		names = append(names, tl.Info().Name)
	}
	want := []string{"mcp__fake__add", "mcp__fake__crash", "mcp__fake__echo", "mcp__fake__env", "mcp__fake__fail",
		"mcp__fake__notes_search", "mcp__fake__pids", "mcp__fake__sleep", "mcp__fake__sloppy"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("tools = %v\nwant %v", names, want)
	}
	if w := c.Warnings(); len(w) != 1 || !strings.Contains(w[0], `tool "broken" is not offered`) {
		t.Errorf("warnings = %q, want one about the tool whose schema does not compile", w)
	}
	reg := registry(t, c)
	byName := map[string]tools.Tool{}
	for _, tl := range c.Tools() {
		byName[tl.Info().Name] = tl
	}
	echo := byName["mcp__fake__echo"].Info()
	if echo.Description != "Echoes its text." || echo.Effect != tools.Depends {
		t.Errorf("echo info = %+v", echo)
	}
	if req, _ := echo.Schema["required"].([]any); len(req) != 1 || req[0] != "text" {
		t.Errorf("echo schema = %v, want the server's schema", echo.Schema)
	}
	if d := byName["mcp__fake__notes_search"].Info().Description; d != "Search notes" {
		t.Errorf("a tool without description is described by its title; got %q", d)
	}
	effects := map[string]tools.Effect{"mcp__fake__echo": tools.Read, "mcp__fake__env": tools.Read, "mcp__fake__add": tools.Write, "mcp__fake__notes_search": tools.Write}
	for n, want := range effects {
		if got := byName[n].(tools.EffectResolver).EffectOf(nil); got != want {
			t.Errorf("effect of %s = %s, want %s (read only with readOnlyHint)", n, got, want)
		}
	}
	// Agents may call the read-only tool, not the others; a tool node may.
	ctx := context.Background()
	if _, err := reg.Call(ctx, tools.FromAgent, "mcp__fake__echo", json.RawMessage(`{"text":"hi"}`)); err != nil {
		t.Errorf("agent call of a readOnlyHint tool: %v", err)
	}
	_, err := reg.Call(ctx, tools.FromAgent, "mcp__fake__add", json.RawMessage(`{"a":1,"b":2}`))
	var rf *tools.Refusal
	if !errors.As(err, &rf) || rf.Code != tools.CodeEffect {
		t.Errorf("agent call of an unannotated tool = %v, want %s", err, tools.CodeEffect)
	}
	if _, err := reg.Call(ctx, tools.FromToolNode, "mcp__fake__add", json.RawMessage(`{"a":1,"b":2}`)); err != nil {
		t.Errorf("tool-node call: %v", err)
	}
	// The registry validates arguments against the server's schema.
	_, err = reg.Call(ctx, tools.FromAgent, "mcp__fake__echo", json.RawMessage(`{"text":3}`))
	if !errors.As(err, &rf) || rf.Code != tools.CodeArgs {
		t.Errorf("bad arguments = %v, want %s", err, tools.CodeArgs)
	}
}

func TestToolFilter(t *testing.T) {
	spec := fakeSpec(t, "fake", "tools")
	spec.Tools = []string{"echo", "notes.search"}
	c := startFake(t, spec)
	var names []string
	for _, tl := range c.Tools() {
		names = append(names, tl.Info().Name)
	}
	if want := []string{"mcp__fake__echo", "mcp__fake__notes_search"}; !reflect.DeepEqual(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}

	spec.Tools = []string{"echo", "serch"}
	_, err := Start(context.Background(), spec)
	e := mcpErr(t, err, CodeStart)
	if !strings.Contains(e.Msg, `"serch"`) || !strings.Contains(e.Fix, "echo") {
		t.Errorf("unknown tool in tools: %v", err)
	}
}

func TestCallResults(t *testing.T) {
	c := startFake(t, fakeSpec(t, "fake", "tools"))
	reg := registry(t, c)
	ctx := context.Background()
	tests := []struct {
		tool, args string
		text       string
		value      any
	}{
		{"mcp__fake__echo", `{"text":"hi"}`, "echo: hi\n\n[image image/png, 4 bytes, not shown]", nil},
		{"mcp__fake__add", `{"a":2,"b":3.5}`, `{"sum":5.5}`, map[string]any{"sum": 5.5}},
		{"mcp__fake__notes_search", `{"q":"x"}`, `{"hits":["a","b"]}`, map[string]any{"hits": []any{"a", "b"}}},
	}
	for _, tt := range tests {
		res, err := reg.Call(ctx, tools.FromToolNode, tt.tool, json.RawMessage(tt.args))
		if err != nil {
			t.Errorf("%s: %v", tt.tool, err)
			continue
		}
		if res.Text != tt.text || !reflect.DeepEqual(res.Value, tt.value) {
			t.Errorf("%s = text %q value %#v\nwant text %q value %#v", tt.tool, res.Text, res.Value, tt.text, tt.value)
		}
		if res.Meta["mcp_server"] != "fake" {
			t.Errorf("%s: meta %v does not name the server", tt.tool, res.Meta)
		}
	}
	if res, err := reg.Call(ctx, tools.FromToolNode, "mcp__fake__notes_search", nil); err != nil || res.Meta["mcp_tool"] != "notes.search" {
		t.Errorf("the server's own name is called: %v %v", res, err)
	}
}

func TestErrorResult(t *testing.T) {
	c := startFake(t, fakeSpec(t, "fake", "tools"))
	reg := registry(t, c)
	_, err := reg.Call(context.Background(), tools.FromToolNode, "mcp__fake__fail", nil)
	e := mcpErr(t, err, CodeToolErr)
	if e.Msg != "quota exceeded for project demo" || e.Tool != "fail" || e.Stderr != "" {
		t.Errorf("isError result = %+v", e)
	}
	want := `E-MCP-TOOL: mcp server "fake", tool "fail": quota exceeded for project demo`
	if err.Error() != want {
		t.Errorf("message\n%s\nwant\n%s", err, want)
	}
	// The server is still usable.
	if _, err := reg.Call(context.Background(), tools.FromToolNode, "mcp__fake__echo", json.RawMessage(`{"text":"x"}`)); err != nil {
		t.Errorf("after an error result: %v", err)
	}
}

func TestCrash(t *testing.T) {
	c := startFake(t, fakeSpec(t, "fake", "tools"))
	reg := registry(t, c)
	ctx := context.Background()
	_, err := reg.Call(ctx, tools.FromToolNode, "mcp__fake__crash", nil)
	e := mcpErr(t, err, CodeExited)
	if !strings.Contains(e.Msg, "exited with status 7") || !strings.Contains(e.Stderr, "panic: index out of range [3] with length 3") {
		t.Errorf("crash = %v", err)
	}
	if !strings.Contains(err.Error(), `mcp server "fake"`) || !strings.Contains(err.Error(), "| panic: index out of range") {
		t.Errorf("message does not name the server and show stderr:\n%v", err)
	}
	start := time.Now()
	_, err = reg.Call(ctx, tools.FromAgent, "mcp__fake__echo", json.RawMessage(`{"text":"x"}`))
	mcpErr(t, err, CodeExited)
	if d := time.Since(start); d > time.Second {
		t.Errorf("a call after the crash took %s; it should fail at once", d)
	}
}

func TestCallTimeout(t *testing.T) {
	spec := fakeSpec(t, "fake", "tools")
	spec.CallTimeout = 300 * time.Millisecond
	c := startFake(t, spec)
	reg := registry(t, c)
	start := time.Now()
	_, err := reg.Call(context.Background(), tools.FromToolNode, "mcp__fake__sleep", nil)
	e := mcpErr(t, err, CodeTimeout)
	if d := time.Since(start); d < 300*time.Millisecond || d > 5*time.Second {
		t.Errorf("timed out after %s, want about 300ms", d)
	}
	if !strings.Contains(e.Msg, "no answer within 300ms") {
		t.Errorf("timeout message: %v", err)
	}
	// The server still answers. On a loaded machine (the race detector,
	// other builds) an echo can itself take longer than 300ms, so a few
	// timeouts are tolerated; a server left broken fails every try.
	for try := 1; ; try++ {
		_, err := reg.Call(context.Background(), tools.FromToolNode, "mcp__fake__echo", json.RawMessage(`{"text":"x"}`))
		if err == nil {
			break
		}
		var me *Error
		if try == 5 || !errors.As(err, &me) || me.Code != CodeTimeout {
			t.Errorf("after a timeout the server still answers (try %d): %v", try, err)
			break
		}
	}
	// A cancelled run is the context's error, not a timeout.
	cctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	if _, err := reg.Call(cctx, tools.FromToolNode, "mcp__fake__sleep", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call = %v, want context.Canceled", err)
	}
}

func TestEnvNotInherited(t *testing.T) {
	t.Setenv("AGENTLAB_TEST_SECRET", "hunter2")
	t.Setenv("AGENTLAB_TEST_PASSED", "token-123")
	t.Setenv("HOME", "/root-of-secrets")
	spec := fakeSpec(t, "fake", "tools")
	spec.Env["NOTES_DIR"] = "/srv/notes"
	spec.PassEnv = []string{"AGENTLAB_TEST_PASSED"}
	c := startFake(t, spec)
	res, err := registry(t, c).Call(context.Background(), tools.FromAgent, "mcp__fake__env", nil)
	if err != nil {
		t.Fatal(err)
	}
	var env []string
	if err := json.Unmarshal([]byte(res.Text), &env); err != nil {
		t.Fatalf("env result %q: %v", res.Text, err)
	}
	// The passed token reached the server; it comes back redacted, as
	// every pass_env value does (TestLeakyServerNeverHandsBackItsSecrets).
	want := []string{"AGENTLAB_MCP_FAKE=tools", "AGENTLAB_TEST_PASSED=[REDACTED]", "NOTES_DIR=/srv/notes", "PATH=" + DefaultPath}
	if !reflect.DeepEqual(env, want) {
		t.Errorf("server environment = %q\nwant exactly %q", env, want)
	}

	spec.PassEnv = []string{"AGENTLAB_TEST_UNSET_VAR"}
	_, err = Start(context.Background(), spec)
	if e := mcpErr(t, err, CodeStart); !strings.Contains(e.Msg, "AGENTLAB_TEST_UNSET_VAR") {
		t.Errorf("unset pass_env variable: %v", err)
	}
}

func TestStartFailures(t *testing.T) {
	tests := []struct {
		name   string
		spec   func(ServerSpec) ServerSpec
		msg    string // in Msg
		stderr string // in Stderr
	}{
		{"exits", func(s ServerSpec) ServerSpec { s.Env[fakeEnv] = "exit-at-start"; return s },
			"exited with status 2 during the initialize handshake", "loading settings\nfatal: NOTES_DIR is not set"},
		{"silent", func(s ServerSpec) ServerSpec {
			s.Env[fakeEnv] = "silent"
			s.StartTimeout = 400 * time.Millisecond
			return s
		},
			"no answer to the initialize handshake within 400ms", ""},
		{"not json", func(s ServerSpec) ServerSpec { s.Env[fakeEnv] = "garbage"; s.StartTimeout = time.Second; return s },
			`its stdout began with "Listening on http://localhost:8080", which is not JSON-RPC`, ""},
		{"no program", func(s ServerSpec) ServerSpec { s.Command = []string{"agentlab-no-such-mcp-server"}; return s },
			`"agentlab-no-such-mcp-server" is not found in the server's PATH (/usr/local/bin:/usr/bin:/bin)`, ""},
		{"not executable", func(s ServerSpec) ServerSpec {
			p := s.Dir + "/server.sh"
			_ = os.WriteFile(p, []byte("#!/bin/sh\n"), 0o644)
			s.Command = []string{"./server.sh"}
			return s
		}, "./server.sh: is not executable", ""},
		{"no dir", func(s ServerSpec) ServerSpec { s.Dir += "/missing"; return s }, "/missing does not exist", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := tt.spec(fakeSpec(t, "broken", "tools"))
			start := time.Now()
			c, err := Start(context.Background(), spec)
			if c != nil {
				c.Close()
				t.Fatal("Start succeeded")
			}
			e := mcpErr(t, err, CodeStart)
			if e.Server != "broken" || !strings.Contains(e.Msg, tt.msg) || !strings.Contains(e.Stderr, tt.stderr) {
				t.Errorf("error = %#v\nwant Msg containing %q and Stderr containing %q", e, tt.msg, tt.stderr)
			}
			if d := time.Since(start); d > 8*time.Second {
				t.Errorf("took %s", d)
			}
		})
	}
}

// alive reports whether pid is a live process (a zombie is dead).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func pids(t *testing.T, c *Client) (server, child int) {
	t.Helper()
	res, err := registry(t, c).Call(context.Background(), tools.FromToolNode, "mcp__fake__pids", nil)
	if err != nil {
		t.Fatal(err)
	}
	m := res.Value.(map[string]any)
	return int(m["server"].(float64)), int(m["child"].(float64))
}

func waitDead(t *testing.T, what string, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Errorf("%s (pid %d) is still running", what, pid)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestProcessGroupKilled(t *testing.T) {
	t.Run("close", func(t *testing.T) {
		c := startFake(t, fakeSpec(t, "fake", "tools+child"))
		server, child := pids(t, c)
		if !alive(server) || !alive(child) {
			t.Fatal("server or child not running")
		}
		c.Close()
		c.Close() // idempotent
		waitDead(t, "server", server)
		waitDead(t, "the server's child", child)
	})
	t.Run("context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		c, err := Start(ctx, fakeSpec(t, "fake", "tools+child"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		server, child := pids(t, c)
		cancel()
		waitDead(t, "server", server)
		waitDead(t, "the server's child", child)
		_, err = registry(t, c).Call(context.Background(), tools.FromToolNode, "mcp__fake__echo", json.RawMessage(`{"text":"x"}`))
		if e := mcpErr(t, err, CodeExited); !strings.Contains(e.Msg, "the run is ending") {
			t.Errorf("call after the run's context ended: %v", err)
		}
	})
	t.Run("crash leaves no child", func(t *testing.T) {
		c := startFake(t, fakeSpec(t, "fake", "tools+child"))
		_, child := pids(t, c)
		_, _ = registry(t, c).Call(context.Background(), tools.FromToolNode, "mcp__fake__crash", nil)
		waitDead(t, "the crashed server's child", child)
	})
}

func TestModes(t *testing.T) {
	spec := fakeSpec(t, "fake", "tools")
	spec.Tools = []string{"echo", "add"}
	spec.Approval = permission.ModeAlways
	c := startFake(t, spec)
	got := MergeModes(map[string]permission.Mode{"mcp__fake__add": permission.ModeAsk, "http_fetch": permission.ModeGated}, c)
	want := map[string]permission.Mode{"mcp__fake__add": permission.ModeAsk, "mcp__fake__echo": permission.ModeAlways, "http_fetch": permission.ModeGated}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("modes = %v, want %v (a mode set by tool name wins)", got, want)
	}
	// Through the permission checker: "always" allows what no rule decides.
	gate := func(context.Context, string, json.RawMessage) (string, error) { return "unsure", nil }
	chk, err := permission.New(permission.Config{Modes: got}, permission.Options{Gate: gate})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := chk.Check(context.Background(), "mcp__fake__echo", json.RawMessage(`{"text":"x"}`))
	if !d.Allowed || d.Source != permission.SourceMode {
		t.Errorf("echo (always) = %+v", d)
	}
	d, _ = chk.Check(context.Background(), "mcp__fake__add", json.RawMessage(`{}`))
	if d.Allowed || d.Source != permission.SourceCIRefused {
		t.Errorf("add (ask, nobody to ask) = %+v", d)
	}
}

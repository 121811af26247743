package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeMCPName is the program name under which the test binary is an MCP
// server that starts a child of its own (the grandchild of agentlab)
// and offers one tool that never answers. It writes "<server pid>
// <grandchild pid>" to the file named by AGENTLAB_TEST_MCP_PIDS.
const fakeMCPName = "agentlab-test-mcp"

func fakeMCPWithChild() {
	gc := exec.Command("sleep", "600")
	if err := gc.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "fake server:", err)
		os.Exit(1)
	}
	pids := fmt.Sprintf("%d %d", os.Getpid(), gc.Process.Pid)
	if err := os.WriteFile(os.Getenv("AGENTLAB_TEST_MCP_PIDS"), []byte(pids), 0o644); err != nil {
		os.Exit(1)
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "slow", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "hang", Description: "Never answers.", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	_ = s.Run(context.Background(), &sdk.StdioTransport{})
	os.Exit(0)
}

// gone reports whether pid no longer runs (a zombie waiting for its
// reaper counts as gone).
func gone(pid int) bool {
	if syscall.Kill(pid, 0) == syscall.ESRCH {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] == 'Z'
	}
	return false
}

// An MCP server that starts a process of its own, under an agentlab that
// is killed with SIGKILL (no handler of agentlab's runs): the server and
// its child must both die with agentlab, not linger as orphans.
func TestSIGKILLedAgentlabTakesMCPServerAndItsChildWithIt(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep(1)")
	}
	exe := agentlabExe(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	server := filepath.Join(dir, fakeMCPName)
	if err := os.Symlink(self, server); err != nil {
		t.Skipf("cannot link the test binary: %v", err)
	}
	pidFile := filepath.Join(dir, "pids")
	files := map[string]string{
		"agentlab.toml": fmt.Sprintf("[[mcp.servers]]\nname = \"slow\"\ncommand = [%q]\nenv = { AGENTLAB_TEST_MCP_PIDS = %q }\napproval = \"always\"\n", server, pidFile),
		"flow.yml": `agentlab: 1
name: hang
nodes:
  - id: wait
    type: tool
    tool: mcp__slow__hang
    args: {}
  - id: out
    type: output
    fields: {x: "{{ nodes.wait.text }}"}
edges:
  - wait -> out
`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(exe, "run", "flow.yml", "--data-dir", filepath.Join(dir, "data"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CI=true", "NO_COLOR=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var server1, child int
	deadline := time.Now().Add(30 * time.Second)
	for {
		if b, err := os.ReadFile(pidFile); err == nil {
			f := strings.Fields(string(b))
			if len(f) == 2 {
				server1, _ = strconv.Atoi(f[0])
				child, _ = strconv.Atoi(f[1])
				break
			}
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("the MCP server never started; agentlab said:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Cleanup(func() { // a failing test leaves nothing running behind it
		for _, pid := range []int{server1, child} {
			if !gone(pid) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	time.Sleep(200 * time.Millisecond) // let the tool call reach the server
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	deadline = time.Now().Add(10 * time.Second)
	for !gone(server1) || !gone(child) {
		if time.Now().After(deadline) {
			t.Fatalf("after agentlab was killed: server %d gone %v, its child %d gone %v", server1, gone(server1), child, gone(child))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

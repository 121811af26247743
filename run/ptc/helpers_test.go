package ptc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/agentlab/agentlab/presets/ptc"
)

// needInterpreter skips the test when the language's interpreter is not
// installed where the sandbox looks for it.
func needInterpreter(t *testing.T, lang string) {
	t.Helper()
	cmd := map[string]string{LangPython: "python3", LangJavaScript: "node"}[lang]
	for _, d := range []string{"/usr/local/bin", "/usr/bin", "/bin"} {
		if _, err := os.Stat(filepath.Join(d, cmd)); err == nil {
			return
		}
	}
	t.Skipf("%s is not installed in the sandbox PATH (/usr/local/bin:/usr/bin:/bin)", cmd)
}

// workdir is a working directory below a directory every user may enter,
// so that the sandbox can run the program as nobody when tests run as root.
func workdir(t *testing.T) string {
	t.Helper()
	base, err := os.MkdirTemp("", "agentlab-ptctest-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	dir := filepath.Join(base, "work")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// fakeTools are the tools of the runtime tests:
//
//	sales(region)  → {"region": R, "gmv": 100 * len(R)} after delay
//	stock(item)    → {"item": I, "units": 7}
//	broken()       → always fails with "sales ledger is locked"
//	big()          → a result of size bytes
type fakeTools struct {
	delay    time.Duration
	size     int
	inflight atomic.Int32
	peak     atomic.Int32

	mu    sync.Mutex
	calls []string // "id tool args" in the order CallTool was entered
}

func (f *fakeTools) infos() []sdk.ToolInfo {
	return []sdk.ToolInfo{
		{Name: "sales", Description: "Sales of one region.", Args: map[string]any{"type": "object", "properties": map[string]any{"region": map[string]any{"type": "string"}}, "required": []any{"region"}}},
		{Name: "stock", Description: "Stock of one item."},
		{Name: "broken", Description: "Always fails."},
		{Name: "big", Description: "A large result."},
	}
}

func (f *fakeTools) call(ctx context.Context, id, name string, args json.RawMessage) (json.RawMessage, error) {
	n := f.inflight.Add(1)
	defer f.inflight.Add(-1)
	for {
		p := f.peak.Load()
		if n <= p || f.peak.CompareAndSwap(p, n) {
			break
		}
	}
	f.mu.Lock()
	f.calls = append(f.calls, fmt.Sprintf("%s %s %s", id, name, args))
	f.mu.Unlock()
	var a map[string]any
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, err
	}
	switch name {
	case "sales":
		if f.delay > 0 {
			select {
			case <-time.After(f.delay):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		r, _ := a["region"].(string)
		return json.Marshal(map[string]any{"region": r, "gmv": 100 * len(r)})
	case "stock":
		return json.RawMessage(fmt.Sprintf(`{"item":%q,"units":7}`, a["item"])), nil
	case "broken":
		return nil, errors.New("sales ledger is locked")
	case "big":
		return json.Marshal(map[string]string{"blob": repeat('x', f.size)})
	}
	return nil, fmt.Errorf("unexpected tool %s", name)
}

func repeat(c byte, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = c
	}
	return string(b)
}

// runProgram runs program with the fake tools; spec fields that are set
// in tweak override the test defaults.
func runProgram(t *testing.T, lang, program string, f *fakeTools, tweak func(*Spec)) *Result {
	t.Helper()
	spec := Spec{
		CallID: "c1", Language: lang, Program: program, Tools: f.infos(), CallTool: f.call,
		Timeout: 20 * time.Second, Dir: workdir(t),
	}
	if tweak != nil {
		tweak(&spec)
	}
	res, err := Run(context.Background(), spec)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

// mustOK fails the test unless the program succeeded.
func mustOK(t *testing.T, res *Result) {
	t.Helper()
	if !res.OK() {
		t.Fatalf("program failed: %+v\nlogs:\n%s", res.Failure, res.Logs)
	}
}

// mustFail fails the test unless the program failed with kind.
func mustFail(t *testing.T, res *Result, kind string) {
	t.Helper()
	if res.OK() || res.Failure.Kind != kind {
		t.Fatalf("failure = %+v, want kind %s (output %s)\nlogs:\n%s", res.Failure, kind, res.Output, res.Logs)
	}
}

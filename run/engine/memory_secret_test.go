package engine

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run/redact"
)

// TestEchoingModelNeverLeavesKeyInMemoryFile: a model that answers with
// the provider's key (as-is and base64), stored by a memory node, leaves
// no form of it in <data-dir>/memory, which lies outside the event log
// and would hand the key to every later run that reads the memory.
func TestEchoingModelNeverLeavesKeyInMemoryFile(t *testing.T) {
	key := "sk-memory-echo-key-31337"
	redact.Add(key)
	b64 := base64.StdEncoding.EncodeToString([]byte(key))
	m := newModel(func(context.Context, ModelRequest) (string, error) {
		return "my key is " + key + " or " + b64, nil
	})
	dir := t.TempDir()
	p := mkPlan([]plan.Node{
		nd("ask", "llm", "prompt", "say your key"),
		nd("save", "memory", "op", "write", "key", "k", "value", "{{ vars.said }}"),
	}, edges("ask -> save"))
	p.Nodes[0].AssignTo = "said"
	res, _ := run(t, p, nil, withModel(m), func(c *Config) { c.MemoryDir = dir })
	if res.Status != StatusSucceeded {
		t.Fatal(res.Err)
	}
	var files int
	_ = filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		files++
		b, _ := os.ReadFile(path)
		for _, form := range []string{key, b64} {
			if strings.Contains(string(b), form) {
				t.Errorf("%s holds the key as %q: %s", path, form, b)
			}
		}
		if !strings.Contains(string(b), redact.Mark) {
			t.Errorf("%s does not hold the redaction mark: %s", path, b)
		}
		return nil
	})
	if files != 1 {
		t.Errorf("%d memory files written, want 1", files)
	}
}

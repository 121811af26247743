package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/internal/lazyre"
	"github.com/agentlab/agentlab/run/redact"
)

var memoryKey = lazyre.New(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)

// execMemory reads or writes one key of file-backed memory. Files live
// under <data-dir>/memory/flow/<flow>/<key>.json (scope: flow, the default)
// or memory/actor/<actor>/<key>.json (scope: actor), written atomically so
// a crash never leaves half a value behind.
func execMemory(_ context.Context, t *task) (any, effects, error) {
	n := t.node
	env := t.sc.env()
	key, err := render(n.Str("key"), env)
	if err != nil {
		return nil, effects{}, fmt.Errorf("node %q: key: %v", t.id, err)
	}
	if !memoryKey.MatchString(key) {
		return nil, effects{}, fmt.Errorf("node %q: memory key %q must be letters, digits, '_', '.', '-' (at most 128, not starting with '.' or '-')", t.id, key)
	}
	if t.r.cfg.MemoryDir == "" {
		return nil, effects{}, fmt.Errorf("node %q: no memory directory is configured", t.id)
	}
	scopeName, owner := "flow", t.g.plan.Name
	if n.Str("scope") == "actor" {
		scopeName, owner = "actor", t.r.cfg.Actor
		if owner == "" {
			return nil, effects{}, fmt.Errorf("node %q: scope: actor needs an actor; pass --actor NAME", t.id)
		}
	}
	if !memoryKey.MatchString(owner) {
		return nil, effects{}, fmt.Errorf("node %q: %s name %q cannot name a memory directory; use letters, digits, '_', '.', '-'", t.id, scopeName, owner)
	}
	path := filepath.Join(t.r.cfg.MemoryDir, scopeName, owner, key+".json")
	switch op := n.Str("op"); op {
	case "", "read":
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return map[string]any{"key": key, "found": false, "value": nil}, effects{}, nil
		}
		if err != nil {
			return nil, effects{}, fmt.Errorf("node %q: reading memory %q: %v", t.id, key, err)
		}
		var rec struct {
			Value any `json:"value"`
		}
		if err := json.Unmarshal(b, &rec); err != nil {
			return nil, effects{}, fmt.Errorf("node %q: memory file %s is not valid JSON (%v); delete it to start afresh", t.id, path, err)
		}
		return map[string]any{"key": key, "found": true, "value": rec.Value}, effects{}, nil
	case "write":
		v := n.Spec["value"]
		if s, ok := v.(string); ok {
			if v, err = render(s, env); err != nil {
				return nil, effects{}, fmt.Errorf("node %q: value: %v", t.id, err)
			}
		}
		// The file is outside the event log, whose writes redact secrets,
		// so the value is redacted here: a model or tool that echoed a key
		// must not leave it in <data-dir>/memory for every later run.
		v = redact.Any(v)
		b, err := canon.Marshal(map[string]any{"value": v})
		if err != nil {
			return nil, effects{}, fmt.Errorf("node %q: value cannot be written as JSON: %v", t.id, err)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, effects{}, fmt.Errorf("node %q: %v", t.id, err)
		}
		if err := fsutil.WriteFileAtomic(path, b, 0o644); err != nil {
			return nil, effects{}, fmt.Errorf("node %q: writing memory %q: %v", t.id, key, err)
		}
		return map[string]any{"key": key, "value": v}, effects{}, nil
	default:
		return nil, effects{}, fmt.Errorf("node %q: op %q is not read or write", t.id, op)
	}
}

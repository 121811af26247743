package permission

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/hashid"
)

// CallKey identifies an exact call: the tool and the BLAKE3 hash of the
// canonical JSON of its arguments, so {"b":1,"a":2} and {"a":2, "b":1}
// are the same call and nothing of the arguments is stored in clear.
type CallKey struct {
	Tool string    `json:"tool"`
	Args hashid.ID `json:"args"`
}

// KeyOf computes the key of a call. Empty args count as {}.
func KeyOf(tool string, args json.RawMessage) (CallKey, error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	c, err := canon.Canonicalize(args)
	if err != nil {
		return CallKey{}, fmt.Errorf("arguments of %s are not valid JSON: %w", tool, err)
	}
	return CallKey{Tool: tool, Args: hashid.Sum(c)}, nil
}

// Memory holds the remembered exact-call decisions ("always" and "deny
// always" answers). It is safe for concurrent use.
type Memory struct {
	saveMu sync.Mutex // orders Saves, so the last one written is the newest
	mu     sync.Mutex
	deny   map[CallKey]bool
	allow  map[CallKey]bool
}

// NewMemory returns an empty memory.
func NewMemory() *Memory {
	return &Memory{deny: map[CallKey]bool{}, allow: map[CallKey]bool{}}
}

// Lookup returns the remembered verdict of k: Deny when it is on the
// always-deny list (whatever the allow list says), Allow when it is on
// the always-allow list, "" otherwise.
func (m *Memory) Lookup(k CallKey) Verdict {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.deny[k]:
		return Deny
	case m.allow[k]:
		return Allow
	}
	return ""
}

// AlwaysDeny remembers k as refused.
func (m *Memory) AlwaysDeny(k CallKey) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.deny[k] = true
}

// AlwaysAllow remembers k as allowed. It does not lift an always-deny.
func (m *Memory) AlwaysAllow(k CallKey) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.allow[k] = true
}

// memoryFile is the stored form: two sorted lists.
type memoryFile struct {
	AlwaysDeny  []CallKey `json:"always_deny"`
	AlwaysAllow []CallKey `json:"always_allow"`
}

func sortedKeys(m map[CallKey]bool) []CallKey {
	out := make([]CallKey, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Tool != out[j].Tool {
			return out[i].Tool < out[j].Tool
		}
		return out[i].Args.Hex() < out[j].Args.Hex()
	})
	return out
}

// MarshalJSON writes both lists sorted, so the file is stable.
func (m *Memory) MarshalJSON() ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return json.Marshal(memoryFile{AlwaysDeny: sortedKeys(m.deny), AlwaysAllow: sortedKeys(m.allow)})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (m *Memory) UnmarshalJSON(b []byte) error {
	var f memoryFile
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.deny, m.allow = map[CallKey]bool{}, map[CallKey]bool{}
	for _, k := range f.AlwaysDeny {
		m.deny[k] = true
	}
	for _, k := range f.AlwaysAllow {
		m.allow[k] = true
	}
	return nil
}

// LoadMemory reads a memory file; a missing file is an empty memory.
func LoadMemory(path string) (*Memory, error) {
	m := NewMemory()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("%s: %w (delete the file to forget every remembered decision)", path, err)
	}
	return m, nil
}

// Save writes the memory to path atomically, creating its directory.
// Concurrent Saves are serialised so that an older snapshot never
// replaces a newer one.
func (m *Memory) Save(path string) error {
	m.saveMu.Lock()
	defer m.saveMu.Unlock()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, append(b, '\n'), 0o600)
}

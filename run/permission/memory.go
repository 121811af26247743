package permission

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/zeebo/blake3"

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
// always" answers) of one project. It is safe for concurrent use.
type Memory struct {
	saveMu sync.Mutex // orders Saves, so the last one written is the newest
	mu     sync.Mutex
	deny   map[CallKey]bool
	allow  map[CallKey]bool

	scope  Scope
	others map[string]memoryLists // the other projects' decisions, kept as read
}

// Scope says whose decisions a memory file holds for this run: the
// project (its root directory, absolute), so that an answer given in one
// project is never used in another sharing the data directory, and the
// key file that signs the file, so that an entry written by hand (or by
// anyone without the key) is never used.
type Scope struct {
	Project string
	KeyFile string
}

// NewMemory returns an empty memory.
func NewMemory() *Memory {
	return &Memory{deny: map[CallKey]bool{}, allow: map[CallKey]bool{}, others: map[string]memoryLists{}}
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

// memoryLists are one project's decisions: two sorted lists.
type memoryLists struct {
	AlwaysDeny  []CallKey `json:"always_deny"`
	AlwaysAllow []CallKey `json:"always_allow"`
}

// memoryFile is the stored form: every project's lists, keyed by the
// project's root, and the keyed BLAKE3 hash of their canonical JSON.
type memoryFile struct {
	Version  int                    `json:"version"`
	Projects map[string]memoryLists `json:"projects"`
	MAC      string                 `json:"mac"`
}

// memoryVersion is the version of memoryFile.
const memoryVersion = 2

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

// lists returns this project's decisions, sorted.
func (m *Memory) lists() memoryLists {
	m.mu.Lock()
	defer m.mu.Unlock()
	return memoryLists{AlwaysDeny: sortedKeys(m.deny), AlwaysAllow: sortedKeys(m.allow)}
}

// MarshalJSON writes this project's two lists sorted, so the text is
// stable.
func (m *Memory) MarshalJSON() ([]byte, error) { return json.Marshal(m.lists()) }

// mac is the keyed BLAKE3 hash of the canonical JSON of projects.
func mac(key []byte, projects map[string]memoryLists) (string, error) {
	b, err := canon.Marshal(projects)
	if err != nil {
		return "", err
	}
	h, err := blake3.NewKeyed(key)
	if err != nil {
		return "", err
	}
	_, _ = h.Write(b)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// LoadMemory reads the decisions of scope.Project from a memory file; a
// missing file is an empty memory. A file whose hash does not match
// under the key (edited by hand, written by someone without the key, or
// in an older form) is not used: the memory is empty and warning says
// why. An unreadable file or key is an error.
func LoadMemory(path string, scope Scope) (m *Memory, warning string, err error) {
	m = NewMemory()
	m.scope = scope
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	ignored := func(why string) (*Memory, string, error) {
		return m, fmt.Sprintf("%s: %s; its remembered decisions are ignored (answer again at the prompt; the file is rewritten then)", path, why), nil
	}
	var f memoryFile
	if err := json.Unmarshal(b, &f); err != nil {
		return ignored("not a permissions file (" + err.Error() + ")")
	}
	if f.Version != memoryVersion {
		return ignored(fmt.Sprintf("written in an older form (version %d)", f.Version))
	}
	key, err := readKey(scope.KeyFile, false)
	if err != nil {
		return nil, "", err
	}
	if key == nil {
		return ignored("the key that signs it (" + scope.KeyFile + ") is missing")
	}
	want, err := mac(key, f.Projects)
	if err != nil || subtle.ConstantTimeCompare([]byte(want), []byte(f.MAC)) != 1 {
		return ignored("its signature does not match (it was edited by hand or not written by agentlab)")
	}
	for p, l := range f.Projects {
		if p == scope.Project {
			for _, k := range l.AlwaysDeny {
				m.deny[k] = true
			}
			for _, k := range l.AlwaysAllow {
				m.allow[k] = true
			}
			continue
		}
		m.others[p] = l
	}
	return m, "", nil
}

// Save writes the memory to path atomically, creating its directory, with
// the decisions of the other projects read from it, signed with the key
// (created, mode 0600, when there is none yet). Concurrent Saves are
// serialised so that an older snapshot never replaces a newer one.
func (m *Memory) Save(path string) error {
	m.saveMu.Lock()
	defer m.saveMu.Unlock()
	if m.scope.KeyFile == "" {
		return errors.New("there is no key file to sign the remembered decisions with (no user configuration directory)")
	}
	key, err := readKey(m.scope.KeyFile, true)
	if err != nil {
		return err
	}
	f := memoryFile{Version: memoryVersion, Projects: map[string]memoryLists{}}
	m.mu.Lock()
	for p, l := range m.others {
		f.Projects[p] = l
	}
	m.mu.Unlock()
	f.Projects[m.scope.Project] = m.lists()
	if f.MAC, err = mac(key, f.Projects); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, append(b, '\n'), 0o600)
}

// readKey reads the 32-byte key (hex) from file; with create, a missing
// key is made. A missing key without create is nil, nil.
func readKey(file string, create bool) ([]byte, error) {
	if file == "" {
		return nil, nil
	}
	b, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		if !create {
			return nil, nil
		}
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
			return nil, err
		}
		if err := fsutil.WriteFileAtomic(file, []byte(hex.EncodeToString(key)+"\n"), 0o600); err != nil {
			return nil, err
		}
		return key, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the key of the remembered permission decisions: %w", err)
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(key) != 32 {
		return nil, fmt.Errorf("%s is not a key of 64 hex digits; delete it (the remembered permission decisions are then forgotten)", file)
	}
	return key, nil
}

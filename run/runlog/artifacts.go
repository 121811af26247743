package runlog

import (
	"encoding/json"
	"path/filepath"
	"sort"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/run/store"
)

// Artifacts are every blob the run needs, sorted and unique: those its
// events reference and its seal lists, plus OwnArtifacts. doctor counts a
// blob no run needs as an orphan; publishing a run copies exactly these.
func (s *Snapshot) Artifacts(st store.Store) []string {
	refs := chain.ReferencedArtifacts(s.Events)
	if sd := s.Record.SealData; sd != nil {
		refs = append(refs, sd.Artifacts...)
	}
	refs = append(refs, s.OwnArtifacts(st)...)
	sort.Strings(refs)
	out := refs[:0]
	for i, r := range refs {
		if i == 0 || r != refs[i-1] {
			out = append(out, r)
		}
	}
	return out
}

// OwnArtifacts are the blobs a run needs besides those its events
// reference: the plan and inputs that checkpoint.json names (resume reads
// them; the plan is also what verify checks), and the plans and inputs
// that run.json and the run.started and run.resumed events name, when
// they are in the store. Without them every run's plan would look like an
// orphan that is "safe to delete".
func (s *Snapshot) OwnArtifacts(st store.Store) []string {
	var refs []string
	if b, err := fsutil.ReadFileCapped(filepath.Join(s.Dir, CheckpointFile), MaxCheckpointBytes, ""); err == nil {
		var cp map[string]any
		if json.Unmarshal(b, &cp) == nil {
			for k, v := range cp {
				if str, ok := v.(string); ok && chain.IsArtifactKey(k) {
					refs = append(refs, str)
				}
			}
		}
	}
	named := []string{s.Record.Plan, s.Record.InputsHash}
	for _, e := range s.Events {
		if e.Type != chain.TypeRunStarted && e.Type != "run.resumed" {
			continue
		}
		var d struct {
			Plan   string `json:"plan"`
			Inputs string `json:"inputs_hash"`
		}
		if json.Unmarshal(e.Data, &d) == nil {
			named = append(named, d.Plan, d.Inputs)
		}
	}
	for _, n := range named {
		id, err := hashid.Parse(n)
		if err != nil {
			continue
		}
		if ok, err := st.Has(id); err == nil && ok {
			refs = append(refs, n)
		}
	}
	return refs
}

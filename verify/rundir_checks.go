package verify

import (
	"bytes"
	"encoding/json"
	"path/filepath"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/hashid"
)

// checkRunDirFile fails what the files of a run directory say besides its
// events, when it contradicts them: a directory renamed to another run's
// id, and bytes after the last whole event of a sealed log (agentlab seals
// only a log that ends with a whole line; anything after it was added).
func (v *verifier) checkRunDirFile(dir string, rd *runDir) {
	if name := filepath.Base(filepath.Clean(dir)); name != rd.rec.ID {
		v.fail(CheckBundle, "the run directory is named %s, but run.json and the events are for run %s; a run directory is named after its run", name, rd.rec.ID)
	}
	if rd.torn != nil && chain.SealedPrefix(rd.events) >= 0 {
		v.fail(CheckBundle, "events.jsonl ends in %d bytes that are not an event, after the sealed events; a sealed log ends with a whole line, so they were added", rd.torn.Bytes)
	}
}

// checkRunDirPlan fails a run.json whose plan is not the plan the seal is
// over, naming both, before anything is rendered from it.
func (v *verifier) checkRunDirPlan(rd *runDir, claimed *chain.Seal) {
	if claimed != nil && claimed.Plan != "" && rd.rec.Plan != claimed.Plan {
		v.fail(CheckPlan, "run.json names plan %s, but the seal is over plan %s: run.json was changed", short(rd.rec.Plan), short(claimed.Plan))
	}
}

// checkRunDirInputs checks the stored inputs of a run: the artifact that
// run.started names by inputs_hash must be in the store, re-hash to its
// id, and hold exactly the inputs run.started records.
func (v *verifier) checkRunDirInputs(evs []chain.Event, get func(hashid.ID) ([]byte, error)) {
	if end := chain.SealedPrefix(evs); end >= 0 {
		evs = evs[:end+1]
	}
	for _, e := range evs {
		if e.Type != chain.TypeRunStarted {
			continue
		}
		var d struct {
			Inputs     json.RawMessage `json:"inputs"`
			InputsHash string          `json:"inputs_hash"`
		}
		if json.Unmarshal(e.Data, &d) != nil || d.InputsHash == "" {
			return
		}
		id, err := hashid.Parse(d.InputsHash)
		if err != nil {
			v.fail(CheckArtifacts, "run.started names inputs %q, which is not a hash id", d.InputsHash)
			return
		}
		b, err := get(id)
		if err != nil {
			v.fail(CheckArtifacts, "the stored inputs: %v", err)
			return
		}
		if len(d.Inputs) > 0 {
			var in any
			dec := json.NewDecoder(bytes.NewReader(d.Inputs))
			dec.UseNumber()
			if dec.Decode(&in) == nil {
				if c, err := canon.Marshal(in); err == nil && !bytes.Equal(c, b) {
					v.fail(CheckArtifacts, "the stored inputs (artifact %s) differ from the inputs run.started records", id.Short())
				}
			}
		}
		return
	}
}

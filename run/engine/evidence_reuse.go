package engine

import (
	"encoding/json"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/run/redact"
)

// Unfinished is the evidence an earlier attempt of a run registered for
// nodes that never finished in it (the process was killed, or the node
// failed, between its evidence.added and its node.finished). The entries
// stay in the ledger — they are in the sealed chain and keep their numbers
// — and the node, executed again, claims them in order when it produces
// exactly the same evidence, instead of numbering it anew. A resumed run
// therefore cites Q1 where an uninterrupted one does, and the report lists
// each piece of evidence once. Keys are full node ids.
type Unfinished map[string][]evidence.Entry

// UnfinishedEvidence reads the evidence.added events of earlier attempts
// and keeps those whose node has no node.finished event.
func UnfinishedEvidence(events []RecordedEvent) (Unfinished, error) {
	finished := map[string]bool{}
	for _, e := range events {
		if e.Type == EvNodeFinished {
			finished[e.Node] = true
		}
	}
	out := Unfinished{}
	for _, e := range events {
		if e.Type != EvEvidenceAdded || finished[e.Node] {
			continue
		}
		var ent evidence.Entry
		if err := json.Unmarshal(e.Data, &ent); err != nil {
			return nil, err
		}
		out[e.Node] = append(out[e.Node], ent)
	}
	return out, nil
}

// claim returns the next unfinished entry of node when it is of kind and
// its artifact holds exactly canonical; the entry is then used up. On any
// difference the node's remaining entries are dropped: the node is not
// repeating its earlier attempt, so its new evidence is numbered anew and
// the earlier entries stay in the ledger as they were recorded.
func (ev *evState) claim(node, kind string, canonical func(id string) ([]byte, error)) (evidence.Entry, bool) {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	q := ev.unfinished[node]
	if len(q) == 0 {
		return evidence.Entry{}, false
	}
	e := q[0]
	if e.Kind == kind {
		if b, err := canonical(e.ID); err == nil && storedID(b) == e.Artifact {
			ev.unfinished[node] = q[1:]
			return e, true
		}
	}
	delete(ev.unfinished, node)
	return evidence.Entry{}, false
}

// storedID is the id the store gives canonical evidence: its hash once
// secret values are redacted from it (run/runlog redacts every artifact
// before storing it).
func storedID(canonical []byte) string {
	if b, err := redact.JSON(canonical, canon.Marshal); err == nil {
		canonical = b
	}
	return hashid.Sum(canonical).String()
}

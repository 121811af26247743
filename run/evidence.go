package run

import (
	"bytes"
	"encoding/json"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/run/engine"
	"github.com/agentlab/agentlab/run/provider"
	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/run/sources"
)

// runEvidence is what the engine needs to gather evidence: the loaded
// sources, the ledger, and a way to read earlier artifacts back.
type runEvidence struct {
	sources engine.SourceDB
	ledger  *evidence.Ledger
	// unfinished is the evidence of nodes an earlier attempt did not finish.
	unfinished engine.Unfinished
	get        func(hashid.ID) ([]byte, error)
}

// loadEvidence takes the flow's data sources, loaded by prepare before the
// run was created (db is nil when the flow declares none), and rebuilds
// the ledger from the evidence.added events an earlier attempt of the run
// wrote, so that a resumed run continues the numbering (Q3 after Q2)
// instead of restarting it. The evidence of nodes that did not finish is
// kept apart for them to reclaim (engine.Unfinished).
func loadEvidence(rl *runlog.Run, db *sources.DB) (*runEvidence, error) {
	ev := &runEvidence{}
	if db != nil {
		ev.sources = db
	}
	var entries []evidence.Entry
	var recorded []engine.RecordedEvent
	for _, e := range rl.Events() {
		if e.Type == engine.EvEvidenceAdded || e.Type == engine.EvNodeFinished {
			recorded = append(recorded, engine.RecordedEvent{Type: e.Type, Node: e.Node, Data: e.Data})
		}
		if e.Type != engine.EvEvidenceAdded {
			continue
		}
		var ent evidence.Entry
		if err := json.Unmarshal(e.Data, &ent); err != nil {
			return nil, err
		}
		entries = append(entries, ent)
	}
	l, err := evidence.RestoreLedger(entries)
	if err != nil {
		return nil, err
	}
	ev.ledger = l
	if ev.unfinished, err = engine.UnfinishedEvidence(recorded); err != nil {
		return nil, err
	}
	st, err := rl.Store()
	if err != nil {
		return nil, err
	}
	ev.get = func(id hashid.ID) ([]byte, error) { return st.Get(id) }
	return ev, nil
}

// tierRank orders issuance tiers, best first.
var tierRank = map[string]int{"formal": 0, "degraded": 1, "withheld": 2}

// tierOf is the run's issuance tier: the worst verdict among the
// contracted output nodes in the events (of every attempt, up to and
// including the first run.finished), or "" when no output has a contract.
func tierOf(events []chain.Event) string {
	tier, _ := issuanceOf(events)
	return tier
}

// issuanceOf is the run's tier (see tierOf) and why it is not formal: the
// reasons of every contracted output whose verdict is not formal, each
// prefixed with the output node when several outputs carry a contract
// (docs/evidence.md: a degraded run declares what was untraced, missing or
// unchecked). The reasons are nil for a formal run.
func issuanceOf(events []chain.Event) (string, []string) {
	tier := ""
	end := len(events)
	if i := chain.SealedPrefix(events); i >= 0 {
		end = i + 1
	}
	type verdict struct {
		node    string
		reasons []string
	}
	var bad []verdict
	seen := map[string]bool{}
	contracts := 0
	for _, e := range events[:end] {
		if e.Type != engine.EvNodeFinished || !bytes.Contains(e.Data, []byte(`"contract"`)) {
			continue // only a contracted output has a verdict (canonical JSON never escapes a key's letters)
		}
		var d struct {
			Contract *struct {
				Tier     string `json:"tier"`
				Issuance struct {
					Reasons []string `json:"reasons"`
				} `json:"issuance"`
			} `json:"contract"`
		}
		if json.Unmarshal(e.Data, &d) != nil || d.Contract == nil || d.Contract.Tier == "" {
			continue
		}
		if !seen[e.Node] {
			seen[e.Node] = true
			contracts++
		}
		if tier == "" || tierRank[d.Contract.Tier] > tierRank[tier] {
			tier = d.Contract.Tier
		}
		if d.Contract.Tier != "formal" {
			bad = append(bad, verdict{e.Node, d.Contract.Issuance.Reasons})
		}
	}
	var reasons []string
	if tier != "" {
		// Not a reason the tier drops (the contract judged the evidence),
		// but one whoever takes the outputs must be told.
		if r := unisolatedReason(events[:end]); r != "" {
			reasons = append(reasons, r)
		}
	}
	if tier == "formal" {
		return tier, reasons
	}
	dup := map[string]bool{}
	for _, v := range bad {
		for _, r := range v.reasons {
			if contracts > 1 {
				r = "output " + v.node + ": " + r
			}
			if !dup[r] {
				dup[r] = true
				reasons = append(reasons, r)
			}
		}
	}
	return tier, reasons
}

// tierValue is the tier as run.finished records it: null without a contract.
func tierValue(t string) any {
	if t == "" {
		return nil
	}
	return t
}

// providerEvidence passes what a report node may cite on to the provider.
func providerEvidence(e *engine.Evidence) *provider.Evidence {
	if e == nil {
		return nil
	}
	out := &provider.Evidence{Inputs: append([]string(nil), e.Inputs...)}
	for _, m := range e.Metrics {
		out.Metrics = append(out.Metrics, provider.EvidenceMetric{Name: m.Name, Value: m.Value, Unit: m.Unit})
	}
	for _, s := range e.Snapshots {
		out.Snapshots = append(out.Snapshots, provider.EvidenceSnapshot{ID: s.ID, Node: s.Node, Columns: append([]string(nil), s.Columns...), Rows: s.Rows})
	}
	for _, h := range e.Knowledge {
		out.Knowledge = append(out.Knowledge, provider.EvidenceHit{ID: h.ID, Text: h.Text})
	}
	return out
}

package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run/engine"
	"github.com/agentlab/agentlab/run/provider"
	"github.com/agentlab/agentlab/run/runlog"
)

// ResumeOptions describe a resume.
type ResumeOptions struct {
	DataDir string
	RunID   string
	// Plan, when set, replaces the run's plan (exploratory runs only, and
	// only when the topology, nodes and edges, is unchanged).
	Plan     *plan.Plan
	PlanHash hashid.ID
	Parallel int
	Epoch    *time.Time
	Observe  func(engine.Update)
	// Interaction is how the run may involve the person at the terminal.
	Interaction Interaction
	// Warn, when set, receives the warnings found before any node runs
	// again (see Options.Warn).
	Warn func(diag.List)
}

// Resume continues a failed, cancelled or interrupted run. Nodes the
// earlier attempts finished are restored from their recorded payloads and
// never executed again. A run that already finished is reported as it is
// and nothing is written.
func Resume(ctx context.Context, o ResumeOptions) (*Outcome, error) {
	snap, err := runlog.OpenReadOnly(o.DataDir, o.RunID)
	if err != nil {
		return nil, err
	}
	if snap.Record.Status == engine.StatusSucceeded && snap.Record.Seal != "" {
		out, err := finishedOutcome(snap.Record, snap.Events, o.DataDir)
		if out != nil {
			out.Tier, out.TierReasons = issuanceOf(snap.Events)
			// Where outputs.json was written, read without the lock: a
			// finished run's checkpoint no longer changes.
			var cp checkpoint
			if b, rerr := os.ReadFile(filepath.Join(snap.Dir, runlog.CheckpointFile)); rerr == nil && json.Unmarshal(b, &cp) == nil {
				out.OutDir = cp.OutDir
			}
		}
		return out, err
	}
	if err := CheckMachine(); err != nil {
		return nil, err
	}
	rl, err := runlog.Open(o.DataDir, o.RunID)
	if err != nil {
		return nil, err
	}
	defer rl.Close()
	rl.PinClock(o.Epoch)
	var cp checkpoint
	if err := rl.ReadCheckpoint(&cp); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, usage("run %s was interrupted before it started (it has no checkpoint); start it again with agentlab run", o.RunID)
		}
		return nil, err
	}
	st, err := rl.Store()
	if err != nil {
		return nil, err
	}
	get := func(s string) ([]byte, error) {
		id, err := hashid.Parse(s)
		if err != nil {
			return nil, err
		}
		return st.Get(id)
	}
	pb, err := get(cp.PlanBlob)
	if err != nil {
		return nil, fmt.Errorf("run %s: its plan cannot be read from the store (%v); the run cannot be resumed", o.RunID, err)
	}
	p, ph, err := plan.Decode(pb)
	if err != nil {
		return nil, err
	}
	if ph.String() != cp.Plan {
		return nil, fmt.Errorf("run %s: the stored plan hashes to %s, not %s; the store is damaged", o.RunID, ph, cp.Plan)
	}
	ib, err := get(cp.Inputs)
	if err != nil {
		return nil, fmt.Errorf("run %s: its inputs cannot be read from the store (%v)", o.RunID, err)
	}
	var inputs map[string]any
	if err := json.Unmarshal(ib, &inputs); err != nil {
		return nil, err
	}
	// Everything --plan, the provider and the configuration could refuse
	// is checked before anything is written: a refused resume leaves the
	// run as it was.
	replace := o.Plan != nil && o.PlanHash.String() != cp.Plan
	if replace {
		if cp.Kind == KindFormal {
			return nil, usage("run %s is formal: it can only be resumed with the plan it started with (%s); drop --plan", o.RunID, cp.Plan)
		}
		if err := sameTopology(p, o.Plan); err != nil {
			return nil, usage("--plan cannot replace the plan of run %s: %v; start a new run instead", o.RunID, err)
		}
		if err := engine.CheckSupported(o.Plan); err != nil {
			return nil, &UsageError{err}
		}
		p = o.Plan
	}
	events := rl.Events()
	sealedAt := chain.SealedPrefix(events)
	var prov provider.Provider
	var pre *setup
	if sealedAt < 0 {
		if err := CheckConfigTrust(cp.BaseDir); err != nil {
			return nil, err
		}
		if prov, err = provider.New(cp.Provider, provider.Options{Seed: cp.Seed, Model: cp.Model, BaseDir: cp.BaseDir}); err != nil {
			return nil, &UsageError{err}
		}
		if pre, err = prepare(ctx, dataDirOf(rl), cp, p, o.Interaction, nil); err != nil {
			return nil, err
		}
		defer pre.close()
		if len(pre.warnings) > 0 && o.Warn != nil {
			o.Warn(pre.warnings)
		}
	}
	if replace {
		cp.Plan = o.PlanHash.String()
		blob, err := p.Canonical()
		if err != nil {
			return nil, err
		}
		id, err := rl.PutArtifact(blob)
		if err != nil {
			return nil, err
		}
		cp.PlanBlob = id.String()
		if err := rl.WriteCheckpoint(cp); err != nil {
			return nil, err
		}
		rec := rl.Record()
		rec.Plan = cp.Plan
		if err := rl.WriteRecord(rec); err != nil {
			return nil, err
		}
	}
	if o.Parallel > 0 {
		cp.Parallel = o.Parallel
	}
	out := &Outcome{RunID: rl.ID(), DataDir: dataDirOf(rl), Kind: cp.Kind, Plan: cp.Plan, OutDir: cp.OutDir, Resumed: true, Repaired: rl.Repaired()}
	// Killed after run.finished but before the seal: finish the paperwork.
	if sealedAt >= 0 {
		var fin struct {
			Outputs map[string]any `json:"outputs"`
		}
		_ = json.Unmarshal(events[sealedAt].Data, &fin)
		out.Status, out.Outputs = engine.StatusSucceeded, fin.Outputs
		return finishSealed(rl, cp, out)
	}
	if l := scriptWarnings(p, prov); len(l) > 0 && o.Warn != nil {
		o.Warn(l)
	}
	rec := rl.Record()
	rec.Status = runlog.StatusRunning
	rec.Error = ""
	rec.ResumedAt = append(rec.ResumedAt, rl.Now())
	if rec.Created == "" {
		rec.Created = rl.Now()
	}
	if err := rl.WriteRecord(rec); err != nil {
		return nil, err
	}
	started := false
	recorded := make([]engine.RecordedEvent, 0, len(events))
	for _, e := range events {
		if e.Type == "run.started" {
			started = true
		}
		recorded = append(recorded, engine.RecordedEvent{Type: e.Type, Node: e.Node, Data: e.Data})
	}
	prior, err := engine.NewPrior(recorded, func(id hashid.ID) ([]byte, error) { return st.Get(id) })
	if err != nil {
		return nil, fmt.Errorf("run %s: %v", o.RunID, err)
	}
	if !started {
		if _, err := rl.Append("run.started", "", startedData(p, cp, inputs, hashid.Sum(ib).String(), pre.sourceHashes())); err != nil {
			return nil, err
		}
	} else if _, err := rl.Append(EvRunResumed, "", map[string]any{"plan": cp.Plan, "restored": prior.Finished()}); err != nil {
		return nil, err
	}
	return execute(ctx, rl, cp, p, inputs, prov, prior, o.Observe, true, o.Interaction, pre)
}

// finishedOutcome reports a finished run without touching it. Its
// outputs are read from the sealed run.finished event, not from run.json
// (which the seal does not cover), so that what resume prints is what
// verify checks.
func finishedOutcome(rec runlog.Record, events []chain.Event, dataDir string) (*Outcome, error) {
	out := &Outcome{RunID: rec.ID, DataDir: dataDir, Status: rec.Status, Kind: rec.Kind, Plan: rec.Plan, Seal: rec.Seal, Finished: true, Error: rec.Error}
	// The report and bundle the finishing attempt wrote, when they are
	// still where run.json says.
	if rec.Report != "" && rec.Bundle != "" {
		if _, err := os.Stat(rec.Report); err == nil {
			if _, err := os.Stat(rec.Bundle); err == nil {
				out.Report, out.Bundle = rec.Report, rec.Bundle
			}
		}
	}
	outputs, err := SealedOutputs(events)
	if err != nil {
		return nil, fmt.Errorf("run %s: %v", rec.ID, err)
	}
	out.Outputs = outputs
	return out, nil
}

// SealedOutputs returns the outputs the sealed run.finished event records:
// the outputs of a finished run as the seal covers them.
func SealedOutputs(events []chain.Event) (map[string]any, error) {
	end := chain.SealedPrefix(events)
	if end < 0 {
		return nil, errors.New("its event log has no run.finished event")
	}
	var fin struct {
		Outputs map[string]any `json:"outputs"`
	}
	if err := json.Unmarshal(events[end].Data, &fin); err != nil {
		return nil, fmt.Errorf("its run.finished event cannot be read: %v", err)
	}
	return fin.Outputs, nil
}

// sameTopology allows a changed node configuration but not a changed
// graph: the same node ids with the same types, the same edges, and the
// same loop bodies, recursively.
func sameTopology(a, b *plan.Plan) error {
	ta, err := canon.Marshal(topology(a.Nodes, a.Edges))
	if err != nil {
		return err
	}
	tb, err := canon.Marshal(topology(b.Nodes, b.Edges))
	if err != nil {
		return err
	}
	if string(ta) != string(tb) {
		return fmt.Errorf("its nodes, types or edges differ")
	}
	return nil
}

func topology(nodes []plan.Node, edges []plan.Edge) map[string]any {
	ns := map[string]any{}
	for _, n := range nodes {
		t := map[string]any{"type": n.Type}
		if n.Body != nil {
			t["body"] = topology(n.Body.Nodes, n.Body.Edges)
		}
		ns[n.ID] = t
	}
	es := make([]string, 0, len(edges))
	for _, e := range edges {
		es = append(es, e.From+"."+e.Port+"->"+e.To)
	}
	sort.Strings(es)
	return map[string]any{"nodes": ns, "edges": es}
}

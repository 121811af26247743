package bench

import (
	"fmt"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/run/store"
)

// RunSpec describes a generated, sealed run for the verify benchmark.
type RunSpec struct {
	ID       string // run id
	Events   int    // events in the log, run.started and run.finished included (at least 4)
	Blobs    int    // artifacts referenced under the seal
	BlobSize int    // bytes of each artifact
}

// GeneratedRun is what WriteRun made.
type GeneratedRun struct {
	Dir       string // the run directory (<data-dir>/runs/<id>)
	Artifacts string // its artifact store
	Seal      string // b3:… of the seal
	LogBytes  int64  // bytes of events.jsonl
	BlobBytes int64  // bytes of all artifacts, the plan included
}

// WriteRun writes a finished, sealed run under dataDir through run/runlog
// and run/store, as the engine would: run.started naming the plan, then
// node.started/node.finished pairs, every few node.finished referencing
// one of the blobs (Blob) as an artifact, then run.finished and the seal in
// run.json. Events are appended in groups of 1,000 (one fsync each) and
// artifacts are written without fsync: the input is regenerated on every
// run of the benchmark, so its durability does not matter, and writing it
// quickly keeps the benchmark short.
func WriteRun(dataDir string, s RunSpec) (*GeneratedRun, error) {
	if s.Events < 4 {
		return nil, fmt.Errorf("a run needs at least 4 events, not %d", s.Events)
	}
	rl, err := runlog.Create(dataDir, s.ID)
	if err != nil {
		return nil, err
	}
	defer rl.Close()
	// The generated run's blobs go straight to the file store of its data
	// dir, without fsync: a benchmark fixture, not a run to keep.
	st, err := store.OpenFileStore(runlog.ArtifactsDir(dataDir))
	if err != nil {
		return nil, err
	}
	st.SetSync(false)
	planJSON, err := canon.Marshal(map[string]any{"format": 1, "name": "bench", "nodes": []any{}})
	if err != nil {
		return nil, err
	}
	planID, err := st.Put(planJSON)
	if err != nil {
		return nil, err
	}
	g := &GeneratedRun{Dir: rl.Dir(), Artifacts: st.Dir(), BlobBytes: int64(len(planJSON))}
	ps := []runlog.Pending{{Type: chain.TypeRunStarted, Data: map[string]any{
		"plan": planID.String(), "flow": "bench", "kind": "exploratory", "provider": "mock", "seed": 0}}}
	flush := func(force bool) error {
		if len(ps) < 1000 && !force {
			return nil
		}
		if _, err := rl.AppendBatch(ps); err != nil {
			return err
		}
		ps = ps[:0]
		return nil
	}
	nodes := (s.Events - 2) / 2
	buf := make([]byte, s.BlobSize)
	blob := 0
	for i := 0; i < nodes; i++ {
		id := fmt.Sprintf("n%06d", i)
		ps = append(ps, runlog.Pending{Type: chain.TypeNodeStarted, Node: id, Data: map[string]any{"type": "transform"}})
		data := map[string]any{"output": i, "vars": map[string]any{"x": i}, "elapsed_ms": i % 17}
		// spread the blobs evenly over the nodes
		var refs []string
		for upto := (i + 1) * s.Blobs / nodes; blob < upto; blob++ {
			Blob(blob, buf)
			a, err := st.Put(buf)
			if err != nil {
				return nil, err
			}
			refs = append(refs, a.String())
			g.BlobBytes += int64(len(buf))
		}
		if len(refs) > 0 {
			data["artifacts"] = refs
		}
		ps = append(ps, runlog.Pending{Type: chain.TypeNodeFinished, Node: id, Data: data})
		if err := flush(false); err != nil {
			return nil, err
		}
	}
	// an odd event count gets one extra progress event
	for n := 2 + 2*nodes; n < s.Events; n++ {
		ps = append(ps, runlog.Pending{Type: chain.TypeNodeStarted, Node: "extra", Data: map[string]any{"type": "transform"}})
	}
	ps = append(ps, runlog.Pending{Type: chain.TypeRunFinished, Data: map[string]any{"status": runlog.StatusSucceeded}})
	if err := flush(true); err != nil {
		return nil, err
	}
	_, h, err := rl.Seal(planID.String())
	if err != nil {
		return nil, err
	}
	rec := rl.Record()
	rec.Status = runlog.StatusSucceeded
	rec.Created, rec.Finished = rl.Now(), rl.Now()
	if err := rl.WriteRecord(rec); err != nil {
		return nil, err
	}
	g.Seal = h.String()
	if n, err := fileSize(g.Dir, "events.jsonl"); err == nil {
		g.LogBytes = n
	}
	return g, nil
}

// blobID is the id Blob(i) gets in a store, for tests.
func blobID(i, size int) hashid.ID {
	b := make([]byte, size)
	Blob(i, b)
	return hashid.Sum(b)
}

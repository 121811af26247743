package evfixture

import (
	"encoding/binary"
	"fmt"
	"io"
	"time"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/run/runlog"
)

// Large describes a generated run for verification benchmarks.
type Large struct {
	Events        int   // events in the sealed chain
	Artifacts     int   // number of blobs
	ArtifactBytes int64 // bytes of each blob
}

// BuildLarge writes a sealed run with l.Events events whose tool.result
// events reference l.Artifacts pseudo-random blobs of l.ArtifactBytes each,
// and returns it. Blobs are streamed into the store, never held whole.
func BuildLarge(dataDir string, l Large) (*Run, error) {
	const id = "large-run"
	rl, err := runlog.Create(dataDir, id)
	if err != nil {
		return nil, err
	}
	defer rl.Close()
	t0 := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	rl.SetClock(func() time.Time { return t0 })
	plan, _ := canon.Marshal(map[string]any{"agentlab": 1, "name": "large"})
	ph, err := rl.PutArtifact(plan)
	if err != nil {
		return nil, err
	}
	ids := make([]string, l.Artifacts)
	for i := range ids {
		h, _, err := rl.PutArtifactReader(&prng{seed: uint64(i) + 1, left: l.ArtifactBytes})
		if err != nil {
			return nil, err
		}
		ids[i] = h.String()
	}
	if _, err := rl.Append("run.started", "", map[string]any{"plan": ph.String(), "kind": "exploratory", "flow": "large"}); err != nil {
		return nil, err
	}
	var batch []runlog.Pending
	for i := 0; i < l.Events-2; i++ {
		d := map[string]any{"tool": "db_query__t", "call_id": fmt.Sprintf("n%d:1", i), "rows": i}
		if len(ids) > 0 && i < len(ids) {
			d["result_artifact"] = ids[i]
		}
		batch = append(batch, runlog.Pending{Type: "tool.result", Node: fmt.Sprintf("n%d", i%100), Data: d})
		if len(batch) == 1000 {
			if _, err := rl.AppendBatch(batch); err != nil {
				return nil, err
			}
			batch = batch[:0]
		}
	}
	if len(batch) > 0 {
		if _, err := rl.AppendBatch(batch); err != nil {
			return nil, err
		}
	}
	if _, err := rl.Append("run.finished", "", map[string]any{"status": "succeeded"}); err != nil {
		return nil, err
	}
	rec := rl.Record()
	rec.ID, rec.Plan, rec.Status, rec.Created = id, ph.String(), runlog.StatusSucceeded, chainTime(t0)
	if err := rl.WriteRecord(rec); err != nil {
		return nil, err
	}
	_, h, err := rl.Seal(ph.String())
	if err != nil {
		return nil, err
	}
	return &Run{DataDir: dataDir, ID: id, Dir: rl.Dir(), Seal: h.String(), Plan: ph.String()}, nil
}

// prng streams left pseudo-random bytes (xorshift), so large blobs cost
// no memory and do not compress.
type prng struct {
	seed uint64
	left int64
}

func (p *prng) Read(b []byte) (int, error) {
	if p.left <= 0 {
		return 0, io.EOF
	}
	n := int64(len(b)) &^ 7
	if n == 0 {
		n = int64(len(b))
	}
	if n > p.left {
		n = p.left
	}
	var w [8]byte
	for i := int64(0); i < n; i += 8 {
		p.seed ^= p.seed << 13
		p.seed ^= p.seed >> 7
		p.seed ^= p.seed << 17
		binary.LittleEndian.PutUint64(w[:], p.seed)
		copy(b[i:n], w[:])
	}
	p.left -= n
	return int(n), nil
}

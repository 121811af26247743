package runlog

import (
	"testing"

	"github.com/agentlab/agentlab/chain"
)

// BenchmarkAppend measures one event append: canonical JSON, BLAKE3, one
// write. "durable" fsyncs every event (node.finished); "progress" writes
// node.started events, which SyncBoundaries does not fsync; "batch8" is a
// group commit of eight node.finished events with one fsync.
func BenchmarkAppend(b *testing.B) {
	data := map[string]any{"output": map[string]any{"text": "a short model answer of about a hundred bytes, typical for a transform node"}, "ms": 12}
	for _, bc := range []struct {
		name  string
		typ   string
		batch int
	}{
		{"durable", chain.TypeNodeFinished, 1},
		{"progress", chain.TypeNodeStarted, 1},
		{"batch8", chain.TypeNodeFinished, 8},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r, err := Create(b.TempDir(), "bench")
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			ps := make([]Pending, bc.batch)
			for i := range ps {
				ps[i] = Pending{Type: bc.typ, Node: "n", Data: data}
			}
			for b.Loop() {
				if _, err := r.AppendBatch(ps); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*bc.batch), "ns/event")
		})
	}
}

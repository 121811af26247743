package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run/runlog"
)

// runlogRecorder writes through a real run directory, as `agentlab run` does.
type runlogRecorder struct{ rl *runlog.Run }

func (r runlogRecorder) Append(typ, node string, data any) error {
	_, err := r.rl.Append(typ, node, data)
	return err
}
func (r runlogRecorder) AppendBatch(evs []Event) error {
	ps := make([]runlog.Pending, len(evs))
	for i, e := range evs {
		ps[i] = runlog.Pending{Type: e.Type, Node: e.Node, Data: e.Data}
	}
	_, err := r.rl.AppendBatch(ps)
	return err
}

func (r runlogRecorder) PutArtifact(b []byte) (hashid.ID, error) { return r.rl.PutArtifact(b) }

func chainPlan(n int) *plan.Plan {
	nodes := []plan.Node{nd("n0000", "transform", "expr", "1")}
	nodes[0].AssignTo = "x"
	var es []string
	for i := 1; i < n; i++ {
		id := fmt.Sprintf("n%04d", i)
		nodes = append(nodes, nd(id, "transform", "expr", "vars.x + 1"))
		nodes[i].AssignTo = "x"
		es = append(es, fmt.Sprintf("n%04d -> %s", i-1, id))
	}
	p := mkPlan(nodes, edges(es...))
	p.Settings.MaxGraphSteps = 0
	return p
}

func fanPlan(n int) *plan.Plan {
	nodes := []plan.Node{nd("src", "transform", "expr", "1"), nd("sink", "transform", "expr", "len(nodes)")}
	var es []string
	for i := 0; i < n-2; i++ {
		id := fmt.Sprintf("w%04d", i)
		nodes = append(nodes, nd(id, "transform", "expr", fmt.Sprintf("%d * 2", i)))
		es = append(es, "src -> "+id, id+" -> sink")
	}
	p := mkPlan(nodes, edges(es...))
	p.Settings.MaxGraphSteps = 0
	return p
}

func benchEngine(b *testing.B, p *plan.Plan) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		rl, err := runlog.Create(b.TempDir(), "bench")
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err := Run(context.Background(), Config{Plan: p, Recorder: runlogRecorder{rl}, Parallel: 2})
		if err != nil || res.Status != StatusSucceeded {
			b.Fatalf("%v %v", err, res.Err)
		}
		b.StopTimer()
		rl.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(p.Nodes)), "ns/node")
}

// BenchmarkEngineChain1000 is 1,000 transform nodes in a line.
func BenchmarkEngineChain1000(b *testing.B) { benchEngine(b, chainPlan(1000)) }

// BenchmarkEngineFan1000 is one source, 998 parallel transforms, one join.
func BenchmarkEngineFan1000(b *testing.B) { benchEngine(b, fanPlan(1000)) }

// BenchmarkRunlogAppend2000 is the floor: the two events per node of the
// benchmarks above (node.started, node.finished), appended bare.
func BenchmarkRunlogAppend2000(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		rl, err := runlog.Create(b.TempDir(), "bench")
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		for j := 0; j < 1000; j++ {
			id := fmt.Sprintf("n%04d", j)
			if _, err := rl.Append(EvNodeStarted, id, map[string]any{"type": "transform"}); err != nil {
				b.Fatal(err)
			}
			if _, err := rl.Append(EvNodeFinished, id, map[string]any{"output": j, "vars": map[string]any{"x": j}}); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		rl.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1000), "ns/node")
}

// BenchmarkEngineChain1000Mem is the chain without disk writes: the
// scheduler and executors alone.
func BenchmarkEngineChain1000Mem(b *testing.B) {
	p := chainPlan(1000)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		res, err := Run(context.Background(), Config{Plan: p, Recorder: newRecorder(), Parallel: 2})
		if err != nil || res.Status != StatusSucceeded {
			b.Fatalf("%v %v", err, res.Err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1000), "ns/node")
}

// BenchmarkEngineFan1000Mem is the fan-out/fan-in without disk writes.
func BenchmarkEngineFan1000Mem(b *testing.B) {
	p := fanPlan(1000)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		res, err := Run(context.Background(), Config{Plan: p, Recorder: newRecorder(), Parallel: 2})
		if err != nil || res.Status != StatusSucceeded {
			b.Fatalf("%v %v", err, res.Err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1000), "ns/node")
}

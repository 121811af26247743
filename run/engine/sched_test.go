package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentlab/agentlab/plan"
)

func TestDiamond(t *testing.T) {
	p := mkPlan([]plan.Node{
		nd("a", "transform", "expr", "input.x"),
		nd("b", "transform", "expr", "vars.a + 1"),
		nd("c", "transform", "expr", "vars.a * 10"),
		nd("d", "transform", "expr", "vars.b + vars.c"),
		nd("out", "output", "fields", map[string]any{"sum": "{{ nodes.d }}"}),
	}, edges("a -> b", "a -> c", "b -> d", "c -> d", "d -> out"))
	for i := 0; i < 4; i++ {
		p.Nodes[i].AssignTo = p.Nodes[i].ID
	}
	p.Inputs = map[string]plan.Input{"x": {Type: "number", Required: true}}
	res, rec := run(t, p, map[string]any{"x": "2"}, withParallel(4))
	if res.Status != StatusSucceeded {
		t.Fatalf("status %s: %v", res.Status, res.Err)
	}
	if got := res.Outputs["sum"]; got != "23" {
		t.Errorf("sum = %v, want 23", got)
	}
	if got := rec.ofType(EvNodeFinished); !slices.Equal(got, []string{"a", "b", "c", "d", "out"}) {
		t.Errorf("finished order %v", got)
	}
	if n := len(rec.ofType(EvNodeStarted)); n != 5 {
		t.Errorf("%d node.started events, want 5 (the join runs once)", n)
	}
}

func branchPlan() *plan.Plan {
	p := mkPlan([]plan.Node{
		nd("in", "input"),
		nd("br", "branch", "cases", []any{map[string]any{"when": "input.x > 0", "port": "pos"}}, "default", "neg"),
		nd("p", "transform", "expr", "'positive'"),
		nd("q", "transform", "expr", "'negative'"),
		nd("q2", "transform", "expr", "vars.q + '!'"),
		nd("join", "transform", "expr", "'joined'"),
		nd("out", "output", "fields", map[string]any{"j": "{{ nodes.join }}"}),
	}, edges("in -> br", "br.pos -> p", "br.neg -> q", "q -> q2", "p -> join", "q2 -> join", "join -> out"))
	p.Inputs = map[string]plan.Input{"x": {Type: "integer", Required: true}}
	p.Nodes[3].AssignTo = "q"
	return p
}

func TestBranchThenJoin(t *testing.T) {
	for _, tc := range []struct {
		x       string
		skipped []string
	}{
		{"1", []string{"q", "q2"}},
		{"-1", []string{"p"}},
	} {
		t.Run(tc.x, func(t *testing.T) {
			res, rec := run(t, branchPlan(), map[string]any{"x": tc.x})
			if res.Status != StatusSucceeded {
				t.Fatalf("status %s: %v", res.Status, res.Err)
			}
			if got := rec.ofType(EvNodeSkipped); !slices.Equal(got, tc.skipped) {
				t.Errorf("skipped %v, want %v", got, tc.skipped)
			}
			if res.Outputs["j"] != "joined" {
				t.Errorf("outputs %v", res.Outputs)
			}
			if n := strings.Count(strings.Join(rec.ofType(EvNodeFinished), " "), "join"); n != 1 {
				t.Errorf("join finished %d times", n)
			}
		})
	}
}

func TestSkipReasonNamesThePort(t *testing.T) {
	_, rec := run(t, branchPlan(), map[string]any{"x": "5"})
	for _, l := range rec.lines() {
		if strings.HasPrefix(l, "node.skipped q ") && !strings.Contains(l, `br took port \"pos\", not \"neg\"`) {
			t.Errorf("skip reason: %s", l)
		}
	}
}

func TestWhenSkips(t *testing.T) {
	p := mkPlan([]plan.Node{
		nd("a", "transform", "expr", "{'n': 1}"),
		nd("b", "transform", "expr", "2"),
		nd("c", "transform", "expr", "3"),
	}, edges("a -> b", "b -> c"))
	p.Nodes[1].When = "nodes.a.n > 5"
	res, rec := run(t, p, nil)
	if res.Status != StatusSucceeded {
		t.Fatal(res.Err)
	}
	if got := rec.ofType(EvNodeSkipped); !slices.Equal(got, []string{"b", "c"}) {
		t.Errorf("skipped %v, want b and c (skips propagate)", got)
	}
}

func TestNestedLoopsWithWhile(t *testing.T) {
	inner := &plan.Graph{
		Nodes: []plan.Node{nd("step", "transform", "expr", "item * 100 + index")},
	}
	innerLoop := nd("inner", "loop", "over", "[1, 2, 3, 4]", "max_iterations", 4, "collect", "got")
	innerLoop.Body = inner
	outerLoop := nd("outer", "loop", "while", "index < 2", "max_iterations", 5, "collect", "all")
	outerLoop.Body = &plan.Graph{
		Nodes: []plan.Node{innerLoop, nd("last", "transform", "expr", "len(vars.got)")},
		Edges: edges("inner -> last"),
	}
	p := mkPlan([]plan.Node{outerLoop, nd("out", "output", "fields", map[string]any{"all": "{{ vars.all | compact }}"})}, edges("outer -> out"))
	res, rec := run(t, p, nil, withParallel(3))
	if res.Status != StatusSucceeded {
		t.Fatalf("%s: %v", res.Status, res.Err)
	}
	if got := res.Outputs["all"]; got != "[4,4]" {
		t.Errorf("all = %v, want [4,4]", got)
	}
	fin := rec.ofType(EvNodeFinished)
	for _, want := range []string{"outer[0].inner[3].step", "outer[1].inner", "outer[1].last", "outer"} {
		if !slices.Contains(fin, want) {
			t.Errorf("no node.finished for %s in %v", want, fin)
		}
	}
	if slices.Contains(fin, "outer[2].inner") {
		t.Errorf("while should have stopped after two iterations")
	}
}

func TestLoopMaxIterations(t *testing.T) {
	l := nd("spin", "loop", "while", "true", "max_iterations", 3)
	l.Body = &plan.Graph{Nodes: []plan.Node{nd("x", "transform", "expr", "1")}}
	res, _ := run(t, mkPlan([]plan.Node{l}, nil), nil)
	if res.Status != StatusFailed || !strings.Contains(res.Err.Error(), `loop "spin" reached max_iterations (3)`) {
		t.Fatalf("got %s: %v", res.Status, res.Err)
	}
}

func TestMaxGraphSteps(t *testing.T) {
	l := nd("spin", "loop", "over", "[1,2,3,4,5,6,7,8,9,10]", "max_iterations", 10)
	l.Body = &plan.Graph{Nodes: []plan.Node{nd("x", "transform", "expr", "1"), nd("y", "transform", "expr", "2")}, Edges: edges("x -> y")}
	p := mkPlan([]plan.Node{l}, nil)
	p.Settings.MaxGraphSteps = 9
	res, _ := run(t, p, nil)
	if res.Status != StatusFailed || !strings.Contains(res.Err.Error(), `loop "spin"`) || !strings.Contains(res.Err.Error(), "max_graph_steps (9)") {
		t.Fatalf("got %s: %v", res.Status, res.Err)
	}
}

func subPlan() *plan.Plan {
	sub := mkPlan([]plan.Node{
		nd("in", "input"),
		nd("up", "transform", "expr", "upper(input.word)"),
		nd("out", "output", "fields", map[string]any{"shout": "{{ nodes.up }}!"}),
	}, edges("in -> up", "up -> out"))
	sub.Name = "shout"
	sub.Inputs = map[string]plan.Input{"word": {Type: "string", Required: true}}
	return sub
}

func TestSubgraphInLoop(t *testing.T) {
	sg := nd("sh", "subgraph", "pin", "b3:sub", "inputs", map[string]any{"word": "{{ item }}"})
	l := nd("each", "loop", "over", "['a', 'b']", "max_iterations", 2, "collect", "words")
	l.Body = &plan.Graph{Nodes: []plan.Node{sg}}
	p := mkPlan([]plan.Node{l, nd("out", "output", "fields", map[string]any{"w": "{{ vars.words | compact }}"})}, edges("each -> out"))
	p.Subflows = map[string]*plan.Plan{"b3:sub": subPlan()}
	res, rec := run(t, p, nil)
	if res.Status != StatusSucceeded {
		t.Fatalf("%s: %v", res.Status, res.Err)
	}
	if got := res.Outputs["w"]; got != `[{"shout":"A!"},{"shout":"B!"}]` {
		t.Errorf("w = %v", got)
	}
	if fin := rec.ofType(EvNodeFinished); !slices.Contains(fin, "each[1].sh.up") {
		t.Errorf("nested ids missing: %v", fin)
	}
}

func TestOnErrorContinue(t *testing.T) {
	p := mkPlan([]plan.Node{
		nd("bad", "transform", "expr", "int('x')"),
		nd("after", "transform", "expr", "nodes.bad.error != ''"),
		nd("out", "output", "fields", map[string]any{"saw": "{{ nodes.after }}"}),
	}, edges("bad -> after", "after -> out"))
	p.Nodes[0].OnError = "continue"
	res, rec := run(t, p, nil)
	if res.Status != StatusSucceeded {
		t.Fatalf("%s: %v", res.Status, res.Err)
	}
	if res.Outputs["saw"] != "true" {
		t.Errorf("outputs %v", res.Outputs)
	}
	if got := rec.ofType(EvNodeFailed); !slices.Equal(got, []string{"bad"}) {
		t.Errorf("failed %v", got)
	}
	// Without continue the run fails and nothing downstream starts.
	p.Nodes[0].OnError = "fail"
	res, rec = run(t, p, nil)
	if res.Status != StatusFailed || len(rec.ofType(EvNodeStarted)) != 1 {
		t.Errorf("status %s, started %v", res.Status, rec.ofType(EvNodeStarted))
	}
}

func TestRetryThenSuccess(t *testing.T) {
	m := newModel(func(_ context.Context, req ModelRequest) (string, error) {
		if req.Call < 2 {
			return "", errors.New("rate limited")
		}
		return "fine", nil
	})
	p := mkPlan([]plan.Node{nd("ask", "llm", "prompt", "hello")}, nil)
	p.Nodes[0].Retry = plan.Retry{Max: 2, BackoffS: 0.001}
	res, rec := run(t, p, nil, withModel(m))
	if res.Status != StatusSucceeded {
		t.Fatalf("%s: %v", res.Status, res.Err)
	}
	if m.count("ask") != 3 || len(rec.ofType(EvNodeRetrying)) != 2 {
		t.Errorf("calls %d, retrying events %v", m.count("ask"), rec.ofType(EvNodeRetrying))
	}
	p.Nodes[0].Retry.Max = 1
	res, _ = run(t, p, nil, withModel(newModel(m.answer)))
	if res.Status != StatusFailed || !strings.Contains(res.Err.Error(), "rate limited") {
		t.Errorf("with one retry: %s %v", res.Status, res.Err)
	}
}

func TestNodeTimeout(t *testing.T) {
	m := newModel(func(ctx context.Context, _ ModelRequest) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	})
	p := mkPlan([]plan.Node{nd("slow", "llm", "prompt", "x")}, nil)
	p.Nodes[0].TimeoutS = 0.05
	start := time.Now()
	res, _ := run(t, p, nil, withModel(m))
	if res.Status != StatusFailed || !strings.Contains(res.Err.Error(), `node "slow" timed out after 0.05s`) {
		t.Fatalf("%s: %v", res.Status, res.Err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("timeout took %v", time.Since(start))
	}
}

func TestRunTimeout(t *testing.T) {
	m := newModel(func(ctx context.Context, _ ModelRequest) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	})
	p := mkPlan([]plan.Node{nd("slow", "llm", "prompt", "x")}, nil)
	p.Nodes[0].OnError = "continue"
	p.Settings.RunTimeoutS = 0.05
	res, _ := run(t, p, nil, withModel(m))
	if res.Status != StatusFailed || !strings.Contains(res.Err.Error(), "run_timeout_s") {
		t.Fatalf("%s: %v", res.Status, res.Err)
	}
}

func TestCancel(t *testing.T) {
	started := make(chan struct{})
	m := newModel(func(ctx context.Context, _ ModelRequest) (string, error) {
		close(started)
		<-ctx.Done()
		return "", ctx.Err()
	})
	p := mkPlan([]plan.Node{nd("slow", "llm", "prompt", "x"), nd("after", "transform", "expr", "1")}, edges("slow -> after"))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	rec := newRecorder()
	res, err := Run(ctx, Config{Plan: p, Recorder: rec, Model: m})
	if err != nil || res.Status != StatusCancelled {
		t.Fatalf("%v %v", res, err)
	}
	// The node that was working is recorded as interrupted, in words, and
	// shown as cancelled rather than failed.
	if got := rec.lines(); len(got) == 0 || !strings.Contains(got[len(got)-1], `"error":"interrupted before it finished; it runs again on resume"`) {
		t.Errorf("log %q", got)
	}
	if len(res.Nodes) != 1 || res.Nodes[0].Status != StateCancelled {
		t.Errorf("summary %+v", res.Nodes)
	}
}

func TestUnsupportedTypeRefusedUpFront(t *testing.T) {
	l := nd("l", "loop", "over", "[1]", "max_iterations", 1)
	l.Body = &plan.Graph{Nodes: []plan.Node{nd("a", "teleport")}}
	p := mkPlan([]plan.Node{nd("x", "transform", "expr", "1"), l}, nil)
	rec := newRecorder()
	_, err := Run(context.Background(), Config{Plan: p, Recorder: rec})
	if err == nil || !strings.Contains(err.Error(), `node "l[].a" has type "teleport", which is not supported by this version yet`) {
		t.Fatalf("err = %v", err)
	}
	if len(rec.events) != 0 {
		t.Errorf("events were written: %v", rec.lines())
	}
}

// TestEventOrderDeterministic runs a wide fan-out whose nodes finish in a
// random order and checks the log is the same every time.
func TestEventOrderDeterministic(t *testing.T) {
	nodes := []plan.Node{nd("src", "transform", "expr", "1")}
	var es []string
	for i := 0; i < 40; i++ {
		id := fmt.Sprintf("w%02d", i)
		nodes = append(nodes, nd(id, "llm", "prompt", "{{ nodes.src }} "+id))
		es = append(es, "src -> "+id, id+" -> sink")
	}
	nodes = append(nodes, nd("sink", "transform", "expr", "len(nodes)"))
	p := mkPlan(nodes, edges(es...))
	slow := func(_ context.Context, req ModelRequest) (string, error) {
		time.Sleep(time.Duration(rand.Intn(3000)) * time.Microsecond)
		return "answer for " + req.Node, nil
	}
	var first []string
	for i := 0; i < 5; i++ {
		res, rec := run(t, p, nil, withModel(newModel(slow)), withParallel(8))
		if res.Status != StatusSucceeded {
			t.Fatal(res.Err)
		}
		if i == 0 {
			first = rec.lines()
			continue
		}
		if got := rec.lines(); !reflect.DeepEqual(got, first) {
			t.Fatalf("run %d wrote a different log", i)
		}
	}
}

func TestParallelBound(t *testing.T) {
	var cur, peak atomic.Int32
	m := newModel(func(_ context.Context, _ ModelRequest) (string, error) {
		n := cur.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(2 * time.Millisecond)
		cur.Add(-1)
		return "ok", nil
	})
	var nodes []plan.Node
	for i := 0; i < 20; i++ {
		nodes = append(nodes, nd(fmt.Sprintf("n%02d", i), "llm", "prompt", "x"))
	}
	res, _ := run(t, mkPlan(nodes, nil), nil, withModel(m), withParallel(3))
	if res.Status != StatusSucceeded {
		t.Fatal(res.Err)
	}
	if peak.Load() > 3 || peak.Load() < 2 {
		t.Errorf("peak concurrency %d with --parallel 3", peak.Load())
	}
}

func TestResumeSkipsFinishedNodes(t *testing.T) {
	var broken atomic.Bool
	broken.Store(true)
	m := newModel(func(_ context.Context, req ModelRequest) (string, error) {
		if req.Node == "c" && broken.Load() {
			return "", errors.New("service down")
		}
		return "text of " + req.Node, nil
	})
	l := nd("l", "loop", "over", "[1, 2]", "max_iterations", 2, "collect", "cs")
	l.Body = &plan.Graph{Nodes: []plan.Node{nd("in", "llm", "prompt", "{{ item }}")}}
	p := mkPlan([]plan.Node{
		nd("a", "llm", "prompt", "a"),
		nd("b", "llm", "prompt", "{{ nodes.a.text }}"),
		l,
		nd("c", "llm", "prompt", "{{ nodes.b.text }}"),
		nd("out", "output", "fields", map[string]any{"c": "{{ nodes.c.text }}", "n": "{{ vars.cs | length }}"}),
	}, edges("a -> b", "b -> l", "l -> c", "c -> out"))
	p.Nodes[1].AssignTo = "bee"
	res, rec := run(t, p, nil, withModel(m))
	if res.Status != StatusFailed {
		t.Fatalf("first attempt: %s", res.Status)
	}
	prior, err := NewPrior(rec.events, rec.get)
	if err != nil {
		t.Fatal(err)
	}
	broken.Store(false)
	m2 := newModel(m.answer)
	res, _ = run(t, p, nil, withModel(m2), withPrior(prior))
	if res.Status != StatusSucceeded {
		t.Fatalf("resume: %s %v", res.Status, res.Err)
	}
	for _, n := range []string{"a", "b", "l[0].in", "l[1].in"} {
		if m2.count(n) != 0 {
			t.Errorf("%s was executed again on resume", n)
		}
	}
	if m2.count("c") != 1 || res.Outputs["c"] != "text of c" || res.Outputs["n"] != "2" {
		t.Errorf("calls of c %d, outputs %v", m2.count("c"), res.Outputs)
	}
}

func TestLargeOutputBecomesArtifact(t *testing.T) {
	p := mkPlan([]plan.Node{nd("big", "llm", "prompt", "x")}, nil)
	m := newModel(func(context.Context, ModelRequest) (string, error) { return strings.Repeat("0123456789", 600), nil })
	res, rec := run(t, p, nil, withModel(m))
	if res.Status != StatusSucceeded {
		t.Fatal(res.Err)
	}
	var fin string
	for _, l := range rec.lines() {
		if strings.HasPrefix(l, "node.finished big ") {
			fin = l
		}
	}
	if !strings.Contains(fin, `"output_artifact":"b3:`) {
		t.Fatalf("finished event %s", fin)
	}
	prior, err := NewPrior(rec.events, rec.get)
	if err != nil {
		t.Fatal(err)
	}
	if pn, _ := prior.lookup("big"); len(pn.payload.Output.(map[string]any)["text"].(string)) != 6000 {
		t.Errorf("artifact payload not restored")
	}
}

// TestNestedEventOrderDeterministic puts a fan-out inside a loop body, so
// buffered body events flush into the loop's slot in batches.
func TestNestedEventOrderDeterministic(t *testing.T) {
	body := &plan.Graph{Nodes: []plan.Node{nd("head", "transform", "expr", "item")}}
	var es []string
	for i := 0; i < 8; i++ {
		id := fmt.Sprintf("b%d", i)
		body.Nodes = append(body.Nodes, nd(id, "llm", "prompt", "{{ item }} "+id))
		es = append(es, "head -> "+id, id+" -> tail")
	}
	body.Nodes = append(body.Nodes, nd("tail", "transform", "expr", "index"))
	body.Edges = edges(es...)
	l := nd("l", "loop", "over", "['x', 'y', 'z']", "max_iterations", 3, "collect", "c")
	l.Body = body
	side := nd("side", "llm", "prompt", "beside the loop")
	side.AssignTo = "s"
	p := mkPlan([]plan.Node{l, side}, nil)
	slow := func(_ context.Context, req ModelRequest) (string, error) {
		time.Sleep(time.Duration(rand.Intn(2000)) * time.Microsecond)
		return "answer for " + req.Node, nil
	}
	var first []string
	for i := 0; i < 4; i++ {
		res, rec := run(t, p, nil, withModel(newModel(slow)), withParallel(4))
		if res.Status != StatusSucceeded {
			t.Fatal(res.Err)
		}
		if i == 0 {
			first = rec.lines()
			continue
		}
		if got := rec.lines(); !reflect.DeepEqual(got, first) {
			t.Fatalf("run %d wrote a different log:\n%s\n---\n%s", i, strings.Join(got, "\n"), strings.Join(first, "\n"))
		}
	}
	// The loop's payload carries only what its body assigned, never the
	// variable the node beside it set.
	for _, l := range first {
		if strings.HasPrefix(l, "node.finished l ") && strings.Contains(l, `"s":`) {
			t.Errorf("loop payload picked up a sibling's variable: %s", l)
		}
	}
}

// TestSummaryFollowsCommitOrder checks that the end-of-run table lists
// nodes as the event log records them (rank, then id; a loop's body right
// after the loop, iteration by iteration; skipped nodes in their place),
// not alphabetically and not in the order goroutines happened to finish.
func TestSummaryFollowsCommitOrder(t *testing.T) {
	body := &plan.Graph{
		Nodes: []plan.Node{nd("zz", "llm", "prompt", "{{ item }}"), nd("aa", "transform", "expr", "index")},
		Edges: edges("zz -> aa"),
	}
	l := nd("loop", "loop", "over", "['x', 'y']", "max_iterations", 2)
	l.Body = body
	p := mkPlan([]plan.Node{
		nd("zeta", "llm", "prompt", "first rank, last by id"),
		nd("alpha", "llm", "prompt", "first rank, first by id"),
		l,
		nd("gate", "branch", "cases", []any{map[string]any{"when": "false", "port": "never"}}, "default", "always"),
		nd("b_untaken", "transform", "expr", "1"),
		nd("a_taken", "transform", "expr", "2"),
	}, edges("zeta -> loop", "alpha -> loop", "loop -> gate", "gate.never -> b_untaken", "gate.always -> a_taken"))
	slow := func(_ context.Context, req ModelRequest) (string, error) {
		time.Sleep(time.Duration(rand.Intn(2000)) * time.Microsecond)
		return "answer for " + req.Node, nil
	}
	for i := 0; i < 3; i++ {
		res, rec := run(t, p, nil, withModel(newModel(slow)), withParallel(4))
		if res.Status != StatusSucceeded {
			t.Fatal(res.Err)
		}
		var logged []string
		seen := map[string]bool{}
		for _, e := range rec.events {
			if e.Node != "" && !seen[e.Node] {
				seen[e.Node] = true
				logged = append(logged, e.Node)
			}
		}
		var table []string
		for _, n := range res.Nodes {
			table = append(table, n.Node)
		}
		want := []string{"alpha", "zeta", "loop", "loop[0].zz", "loop[0].aa", "loop[1].zz", "loop[1].aa", "gate", "a_taken", "b_untaken"}
		if !slices.Equal(table, want) {
			t.Errorf("summary order %v, want %v", table, want)
		}
		if !slices.Equal(table, logged) {
			t.Errorf("summary order %v differs from the log's %v", table, logged)
		}
	}
}

// TestElapsedExcludesQueueing checks that a node's time in the summary is
// its own: waiting for a pool slot behind another node does not count.
func TestElapsedExcludesQueueing(t *testing.T) {
	const nap = 200 * time.Millisecond
	p := mkPlan([]plan.Node{nd("a", "llm", "prompt", "one"), nd("b", "llm", "prompt", "two")}, nil)
	var mu sync.Mutex
	took := map[string]time.Duration{} // each model call's own duration, by node
	sleepy := func(_ context.Context, req ModelRequest) (string, error) {
		start := time.Now()
		time.Sleep(nap)
		mu.Lock()
		took[req.Node] = time.Since(start)
		mu.Unlock()
		return "ok", nil
	}
	res, _ := run(t, p, nil, withModel(newModel(sleepy)), withParallel(1))
	if res.Status != StatusSucceeded {
		t.Fatal(res.Err)
	}
	own := took
	other := map[string]time.Duration{"a": took["b"], "b": took["a"]}
	for _, n := range res.Nodes {
		// With one node at a time, the node that queued waited for the
		// whole of the other's call; counting that wait would add it.
		// Timings are relative to what the calls really took, so a loaded
		// machine that stretches the sleeps does not fail the test.
		if n.Elapsed < own[n.Node] || n.Elapsed >= own[n.Node]+other[n.Node] {
			t.Errorf("%s: elapsed %v, want its own call (%v) and less than the other's added (%v)", n.Node, n.Elapsed, own[n.Node], other[n.Node])
		}
	}
}

package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentlab/agentlab/plan"
)

// Resolution of a node inside one graphRun.
type nodeStatus uint8

const (
	stPending nodeStatus = iota
	stDone               // finished, or failed with on_error: continue (its edges are live)
	stSkipped
	stFailed // failed and stops the graph
	// stWaiting: the node waits for people (a human node, or a container
	// with one inside). Its successors stay undecided; the rest of the
	// graph goes on, and the graph ends waiting.
	stWaiting
)

// graphRun schedules one graph: the top level, one loop iteration, or a subflow.
type graphRun struct {
	r      *runner
	plan   *plan.Plan // the plan (or subflow plan) the graph belongs to
	ix     *gindex
	prefix string // prepended to node ids in events: "", "loop[3].", "sub."
	sc     *scope
	seq    *sequencer
	// parent is the enclosing graph (a loop body's or subflow's outer
	// graph), so that validate can find a rework node defined outside.
	parent *graphRun

	status []nodeStatus
	ports  []string
	// stopped is set once the graph starts no more nodes (a failure, a
	// cancellation): nodes waiting for their evidence turn then give up.
	stopped atomic.Bool
	// assigned, when set, collects every variable this graph's nodes set
	// (a loop reports them in its payload).
	assigned *varLog
	// key is where this graph's events sit in the run's commit order: nil
	// at the top level, the enclosing node's key plus the iteration number
	// (0 for a subflow) in a nested graph.
	key []int
}

// varLog collects variable assignments from concurrent nodes.
type varLog struct {
	mu sync.Mutex
	m  map[string]any
}

func (v *varLog) add(vs map[string]any) {
	if v == nil || len(vs) == 0 {
		return
	}
	v.mu.Lock()
	for k, x := range vs {
		v.m[k] = x
	}
	v.mu.Unlock()
}

// completion is what a node goroutine reports back to the scheduler loop.
type completion struct {
	gn      *gnode
	status  nodeStatus
	port    string
	err     error
	waiting []Waiting
}

func (r *runner) newGraphRun(p *plan.Plan, ix *gindex, prefix string, sc *scope, out sink, parent *graphRun) *graphRun {
	return &graphRun{
		r: r, plan: p, ix: ix, prefix: prefix, sc: sc, parent: parent,
		seq:    newSequencer(out, len(ix.nodes)),
		status: make([]nodeStatus, len(ix.nodes)),
		ports:  make([]string, len(ix.nodes)),
	}
}

// run executes the graph and returns the first error that stops it. Once
// a node fails, no new node is started; nodes already running finish.
func (g *graphRun) run(ctx context.Context) error {
	nodes := g.ix.nodes
	waiting := make([]int, len(nodes)) // unresolved predecessors
	for _, gn := range nodes {
		for _, s := range gn.out {
			waiting[s.pos]++
		}
	}
	done := make(chan completion)
	inflight := 0
	var firstErr error
	stopping := false

	// decided holds nodes whose predecessors are all resolved.
	var decided []*gnode
	for _, gn := range nodes {
		if waiting[gn.pos] == 0 {
			decided = append(decided, gn)
		}
	}
	var waitingFor []Waiting
	resolve := func(c completion) {
		g.status[c.gn.pos] = c.status
		g.ports[c.gn.pos] = c.port
		if c.status == stFailed && firstErr == nil {
			firstErr = c.err
			stopping = true
			g.stopped.Store(true)
		}
		if c.status == stWaiting {
			waitingFor = append(waitingFor, c.waiting...)
			// Successors stay undecided until a decision is recorded;
			// evidence numbering does not wait for them (evidence.go).
			g.holdAfter(c.gn)
			return
		}
		for _, s := range c.gn.out {
			waiting[s.pos]--
			if waiting[s.pos] == 0 {
				decided = append(decided, s)
			}
		}
	}
	for {
		for len(decided) > 0 && !stopping {
			gn := decided[0]
			decided = decided[1:]
			if err := ctx.Err(); err != nil {
				firstErr, stopping = g.r.ctxError(ctx, err), true
				g.stopped.Store(true)
				break
			}
			if reason, skip := g.skipReason(gn); skip {
				err := g.skip(gn, reason)
				if err != nil {
					resolve(completion{gn: gn, status: stFailed, err: err})
				} else {
					resolve(completion{gn: gn, status: stSkipped})
				}
				continue
			}
			if inflight == 0 && len(decided) == 0 {
				// The only node that can run: run it here rather than on
				// a new goroutine, whose stack would grow (and be copied)
				// on the way through the node while this one only waited.
				resolve(g.runNode(ctx, gn))
				continue
			}
			inflight++
			go func(gn *gnode) { done <- g.runNode(ctx, gn) }(gn)
		}
		if inflight == 0 {
			break
		}
		c := <-done
		inflight--
		resolve(c)
	}
	if err := g.seq.drain(); err != nil && firstErr == nil {
		firstErr = err
	}
	if firstErr == nil && len(waitingFor) > 0 {
		sort.Slice(waitingFor, func(i, j int) bool { return waitingFor[i].Node < waitingFor[j].Node })
		return &waitError{nodes: waitingFor}
	}
	return firstErr
}

// skipReason decides whether gn is skipped because none of its in-edges is
// live, and says why in a sentence.
func (g *graphRun) skipReason(gn *gnode) (string, bool) {
	if len(gn.in) == 0 {
		return "", false
	}
	var why []string
	for _, e := range gn.in {
		from := g.ix.byID[e.From]
		switch g.status[from.pos] {
		case stDone:
			port := e.Port
			if port == "" && from.n.Type == "human" {
				// A human gate's plain edge is its approve edge: a
				// rejection must never flow on as if approved.
				port = VerdictApproved
			}
			if port == "" || port == g.ports[from.pos] {
				return "", false
			}
			why = append(why, fmt.Sprintf("%s took port %q, not %q", e.From, g.ports[from.pos], port))
		case stSkipped:
			why = append(why, e.From+" was skipped")
		default:
			why = append(why, e.From+" did not finish")
		}
	}
	sort.Strings(why)
	why = dedupe(why)
	return "no incoming edge was taken: " + strings.Join(why, "; "), true
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// keyOf is the commit-order key of the node at pos, or of a nested graph
// under it when more is appended.
func (g *graphRun) keyOf(pos int, more ...int) []int {
	k := make([]int, 0, len(g.key)+1+len(more))
	k = append(append(k, g.key...), pos)
	return append(k, more...)
}

// skip records a skipped node and closes its slot.
func (g *graphRun) skip(gn *gnode, reason string) error {
	id := g.prefix + gn.n.ID
	g.r.place(id, g.keyOf(gn.pos))
	if p, ok := g.r.prior.lookup(id); !ok || p.Status != StateSkipped {
		if err := g.seq.emit(gn.pos, pendingEvent{EvNodeSkipped, id, map[string]any{"reason": reason}}); err != nil {
			return err
		}
	}
	g.r.note(Update{Node: id, Type: gn.n.Type, State: StateSkipped, Detail: reason})
	return g.seq.close(gn.pos)
}

// runNode runs one node to a resolution: restored from a previous attempt,
// skipped by its `when`, finished, or failed.
func (g *graphRun) runNode(ctx context.Context, gn *gnode) completion {
	n := gn.n
	id := g.prefix + n.ID
	g.r.place(id, g.keyOf(gn.pos))
	fail := func(err error) completion {
		g.seq.close(gn.pos)
		return completion{gn: gn, status: stFailed, err: err}
	}
	if p, ok := g.r.prior.lookup(id); ok && p.Status == StateFinished {
		if err := g.r.countStep(); err != nil {
			return fail(err)
		}
		g.apply(n, p.payload)
		if p.metrics != nil {
			ev := g.r.evidence()
			ev.mu.Lock()
			ev.metrics[id] = p.metrics
			ev.mu.Unlock()
		}
		g.r.note(Update{Node: id, Type: n.Type, State: StateFinished, Cached: true, Usage: usageOf(p.payload.Output)})
		if err := g.seq.close(gn.pos); err != nil {
			return completion{gn: gn, status: stFailed, err: err}
		}
		return completion{gn: gn, status: stDone, port: p.payload.Port}
	}
	if n.When != "" {
		ok, err := g.r.evalBool(n.When, g.sc)
		if err != nil {
			return g.finishFailed(ctx, gn, id, fmt.Errorf("node %q: its when condition %q could not be evaluated: %v", id, n.When, err), 1)
		}
		if !ok {
			if err := g.skip(gn, fmt.Sprintf("when condition %q is false", n.When)); err != nil {
				return completion{gn: gn, status: stFailed, err: err}
			}
			return completion{gn: gn, status: stSkipped}
		}
	}
	if err := g.r.countStep(); err != nil {
		return fail(err)
	}
	emit := func(ev pendingEvent) error { return g.seq.emit(gn.pos, ev) }
	res, err := g.r.execute(ctx, &task{r: g.r, g: g, gn: gn, node: n, id: id, sc: g.sc, emit: emit})
	var we *waitError
	if errors.As(err, &we) {
		g.r.note(Update{Node: id, Type: n.Type, State: StateWaiting, Detail: we.Error()})
		if cerr := g.seq.close(gn.pos); cerr != nil {
			return completion{gn: gn, status: stFailed, err: cerr}
		}
		return completion{gn: gn, status: stWaiting, waiting: we.nodes}
	}
	var rj *rejectedError
	if errors.As(err, &rj) {
		// Not a failure: people said no. The run ends cancelled.
		werr := emit(pendingEvent{EvNodeCancelled, id, map[string]any{"reason": rj.Error()}})
		g.r.note(Update{Node: id, Type: n.Type, State: StateCancelled, Detail: rj.Error()})
		g.seq.close(gn.pos)
		if werr != nil {
			err = werr
		}
		return completion{gn: gn, status: stFailed, err: err}
	}
	if err != nil {
		return g.finishFailed(ctx, gn, id, err, res.attempts)
	}
	if err := emit(pendingEvent{EvNodeFinished, id, res.record}); err != nil {
		return fail(err)
	}
	g.apply(n, res.payload)
	g.r.note(Update{Node: id, Type: n.Type, State: StateFinished, Elapsed: res.elapsed, Usage: usageOf(res.payload.Output)})
	if err := g.seq.close(gn.pos); err != nil {
		return completion{gn: gn, status: stFailed, err: err}
	}
	return completion{gn: gn, status: stDone, port: res.payload.Port}
}

// finishFailed records a node's final failure. With on_error: continue the
// node resolves as done with the output {"error": sentence}, so that
// downstream nodes run and can test nodes.<id>.error; limits, run timeouts
// and cancellation are never continued past.
func (g *graphRun) finishFailed(ctx context.Context, gn *gnode, id string, err error, attempts int) completion {
	n := gn.n
	cont := n.OnError == "continue" && !isFatal(err) && ctx.Err() == nil
	state, msg := StateFailed, err.Error()
	if errors.Is(err, context.Canceled) {
		// Not the node's fault: the run was stopped while it worked.
		state, msg = StateCancelled, "interrupted before it finished; it runs again on resume"
	}
	data := map[string]any{"error": msg, "attempts": attempts}
	if cont {
		data["continued"] = true
	}
	spent, _ := spentUsage(err)
	if spent != (Usage{}) {
		data["usage"] = spent
	}
	werr := g.seq.emit(gn.pos, pendingEvent{EvNodeFailed, id, data})
	g.r.note(Update{Node: id, Type: n.Type, State: state, Detail: msg, Usage: spent})
	if cont && werr == nil {
		out := map[string]any{"error": err.Error()}
		g.sc.setNode(n.ID, out)
		if cerr := g.seq.close(gn.pos); cerr != nil {
			return completion{gn: gn, status: stFailed, err: cerr}
		}
		return completion{gn: gn, status: stDone}
	}
	g.seq.close(gn.pos)
	if werr != nil {
		err = werr
	}
	return completion{gn: gn, status: stFailed, err: err}
}

// apply makes a finished node's payload visible: its output, the
// variables it assigned and the outputs it replaced (validate's rework).
func (g *graphRun) apply(n *plan.Node, p payload) {
	g.sc.setNode(n.ID, p.Output)
	g.sc.setVars(p.Vars)
	g.assigned.add(p.Vars)
	for id, out := range p.Nodes {
		g.sc.setNodeWhereDefined(id, out)
	}
}

// isFatal reports errors that end the run whatever on_error says.
func isFatal(err error) bool {
	var le *limitError
	return errors.As(err, &le) || errors.Is(err, context.Canceled) || isWaitOrReject(err)
}

package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/plan"
)

// runner is the state one execution shares across all its graphs.
type runner struct {
	cfg      Config
	sem      chan struct{}
	mu       sync.RWMutex // guards every scope
	prior    *Prior
	steps    atomic.Int64
	maxSteps int64
	inline   int

	loopMu    sync.Mutex
	loopIters map[string]int // loop full id → iterations run

	cache sync.Map // compiled expressions, schemas, loop body indexes

	callMu sync.Mutex
	calls  map[string]int // model calls made so far, per node id

	sumMu   sync.Mutex
	summary map[string]*NodeSummary
	sumKeys []string
	// sumPos is each node's place in the commit order (see graphRun.keyOf),
	// so that the summary lists nodes as the log records them.
	sumPos map[string][]int

	evOnce sync.Once
	ev     *evState // evidence gathered so far (evidence.go)
}

// limitError is a budget the run ran out of (max_graph_steps, run_timeout_s);
// on_error: continue never applies to it.
type limitError struct{ msg string }

func (e *limitError) Error() string { return e.msg }

// countStep counts one node execution against settings.max_graph_steps.
func (r *runner) countStep() error {
	n := r.steps.Add(1)
	if r.maxSteps <= 0 || n <= r.maxSteps {
		return nil
	}
	r.loopMu.Lock()
	defer r.loopMu.Unlock()
	var worst string
	for id, it := range r.loopIters {
		if worst == "" || it > r.loopIters[worst] || (it == r.loopIters[worst] && id < worst) {
			worst = id
		}
	}
	if worst == "" {
		return &limitError{fmt.Sprintf("the run needed more than settings.max_graph_steps (%d) node executions; raise max_graph_steps in the flow's settings", r.maxSteps)}
	}
	return &limitError{fmt.Sprintf("the run needed more than settings.max_graph_steps (%d) node executions; loop %q ran %d iterations: lower its max_iterations (or make its condition end sooner), or raise max_graph_steps", r.maxSteps, worst, r.loopIters[worst])}
}

func (r *runner) countIteration(loopID string) {
	r.loopMu.Lock()
	r.loopIters[loopID]++
	r.loopMu.Unlock()
}

// ctxError turns a context error at run level into a sentence.
func (r *runner) ctxError(ctx context.Context, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &limitError{fmt.Sprintf("the run took longer than settings.run_timeout_s (%gs); raise run_timeout_s in the flow's settings or make the slow nodes faster", r.cfg.Plan.Settings.RunTimeoutS)}
	}
	return context.Canceled
}

// note records a state change for the summary and passes it on.
func (r *runner) note(u Update) {
	if u.Token == "" {
		r.sumMu.Lock()
		s, ok := r.summary[u.Node]
		if !ok {
			s = &NodeSummary{Node: u.Node, Type: u.Type}
			r.summary[u.Node] = s
			r.sumKeys = append(r.sumKeys, u.Node)
		}
		s.Status = u.State
		if u.Elapsed > 0 {
			s.Elapsed = u.Elapsed
		}
		s.Usage = u.Usage
		s.Cached = u.Cached
		r.sumMu.Unlock()
	}
	if r.cfg.Observe != nil {
		r.cfg.Observe(u)
	}
}

// payload is what node.finished records and what resume restores.
type payload struct {
	Output any            `json:"output"`
	Vars   map[string]any `json:"vars,omitempty"`
	Nodes  map[string]any `json:"nodes,omitempty"`
	Port   string         `json:"port,omitempty"`
}

// canonical is canon.Marshal(p), written from a map of the fields that
// are set (their omitempty), which canon writes directly.
func (p payload) canonical() ([]byte, error) {
	m := map[string]any{"output": p.Output}
	if len(p.Vars) > 0 {
		m["vars"] = p.Vars
	}
	if len(p.Nodes) > 0 {
		m["nodes"] = p.Nodes
	}
	if p.Port != "" {
		m["port"] = p.Port
	}
	return canon.Marshal(m)
}

// readPayload reads p.canonical()'s bytes back as json.Unmarshal into a
// payload would, without reflection; ok is false when the canonical
// reader does not take them (the caller then uses json.Unmarshal). A
// fresh run and a resumed one read their payloads through it alike.
func readPayload(b []byte) (p payload, ok bool) {
	v, ok := canon.DecodeCanonical(b)
	m, isMap := v.(map[string]any)
	if !ok || !isMap {
		return payload{}, false
	}
	for k, x := range m {
		switch k {
		case "output":
			p.Output = x
		case "vars":
			if p.Vars, ok = x.(map[string]any); !ok && x != nil {
				return payload{}, false
			}
		case "nodes":
			if p.Nodes, ok = x.(map[string]any); !ok && x != nil {
				return payload{}, false
			}
		case "port":
			if p.Port, ok = x.(string); !ok {
				return payload{}, false
			}
		default:
			return payload{}, false
		}
	}
	return p, true
}

// effects are what an executor changes besides its output.
type effects struct {
	vars  map[string]any
	nodes map[string]any
	port  string
	// record holds extra keys of the node.finished event besides the
	// payload (snapshot, metrics_artifact, contract…); they are sealed with
	// it but are not part of what resume restores.
	record map[string]any
}

// task is one execution of one node.
type task struct {
	r       *runner
	g       *graphRun
	gn      *gnode
	node    *plan.Node
	id      string // full id, with loop/subflow prefix
	sc      *scope
	attempt int
	extra   string // appended to a model prompt by validate's rework
	// model is the node id given to the provider ("" means id): a rework
	// calls the model as the reworked node.
	model string
	emit  func(pendingEvent) error
	// waited is the time spent waiting for a pool slot, which is not the
	// node's own time.
	waited time.Duration
}

// execResult is a successful execution.
type execResult struct {
	payload  payload
	record   any // event data: the payload inline, or {"output_artifact": id}
	elapsed  time.Duration
	attempts int
}

// execute runs a node with retries and its timeout, and prepares the
// node.finished record. It writes node.started and node.retrying.
func (r *runner) execute(ctx context.Context, t *task) (execResult, error) {
	n := t.node
	ex, ok := executors[n.Type]
	if !ok {
		return execResult{attempts: 1}, unsupported(t.id, n.Type)
	}
	if err := t.emit(pendingEvent{EvNodeStarted, t.id, map[string]any{"type": n.Type}}); err != nil {
		return execResult{attempts: 1}, err
	}
	if !ex.leaf {
		r.note(Update{Node: t.id, Type: n.Type, State: StateRunning})
	}
	start := time.Now()
	var spent Usage // what failed attempts cost
	for attempt := 1; ; attempt++ {
		t.attempt = attempt
		out, eff, err := r.attempt(ctx, t, ex)
		paid, _ := spentUsage(err)
		spent = addUsage(spent, paid)
		if err == nil {
			// The node's usage is what all its attempts cost, not only the
			// one that succeeded.
			out = withEarlierUsage(out, spent)
			res, perr := r.finish(t, out, eff)
			res.elapsed = time.Since(start) - t.waited
			res.attempts = attempt
			return res, perr
		}
		if attempt > n.Retry.Max || isFatal(err) || isPermanent(err) || ctx.Err() != nil {
			if ctx.Err() != nil && !isFatal(err) {
				err = r.ctxError(ctx, ctx.Err())
			}
			if spent != (Usage{}) {
				// The outermost usage is the total over every attempt.
				err = &spentError{err: err, usage: spent}
			}
			return execResult{attempts: attempt, elapsed: time.Since(start) - t.waited}, err
		}
		delay := time.Duration(n.Retry.BackoffS * math.Pow(2, float64(attempt-1)) * float64(time.Second))
		retrying := map[string]any{"attempt": attempt, "error": err.Error(), "backoff_s": delay.Seconds()}
		if paid != (Usage{}) {
			retrying["usage"] = paid // what the failed attempt cost
		}
		if err := t.emit(pendingEvent{EvNodeRetrying, t.id, retrying}); err != nil {
			return execResult{attempts: attempt}, err
		}
		r.note(Update{Node: t.id, Type: n.Type, State: StateRetrying, Detail: err.Error()})
		if delay > 0 {
			tm := time.NewTimer(delay)
			select {
			case <-ctx.Done():
				tm.Stop()
				return execResult{attempts: attempt}, r.ctxError(ctx, ctx.Err())
			case <-tm.C:
			}
		}
	}
}

// attempt runs the executor once, holding a pool slot if it is a leaf.
func (r *runner) attempt(ctx context.Context, t *task, ex executor) (any, effects, error) {
	if t.node.TimeoutS > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(t.node.TimeoutS*float64(time.Second)))
		defer cancel()
	}
	if ex.leaf {
		queued := time.Now()
		select {
		case r.sem <- struct{}{}:
			t.waited += time.Since(queued)
		case <-ctx.Done():
			return nil, effects{}, r.nodeCtxError(ctx, t)
		}
		defer func() { <-r.sem }()
		// A leaf counts as running once it holds a slot, not while it waits.
		r.note(Update{Node: t.id, Type: t.node.Type, State: StateRunning})
	}
	out, eff, err := ex.run(t.withRetryHook(ctx), t)
	if err != nil && ctx.Err() != nil && !isFatal(err) {
		return nil, eff, r.nodeCtxError(ctx, t)
	}
	return out, eff, err
}

// nodeCtxError says whether a node ran out of its own time or the run ended.
func (r *runner) nodeCtxError(ctx context.Context, t *task) error {
	if t.node.TimeoutS > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("node %q timed out after %gs (timeout_s); raise timeout_s or add retry", t.id, t.node.TimeoutS)
	}
	return ctx.Err()
}

// finish normalises the output through canonical JSON (so that a fresh
// run and a resumed one see identical values), adds the node's assign_to
// and builds the node.finished record.
func (r *runner) finish(t *task, out any, eff effects) (execResult, error) {
	p := payload{Output: out, Vars: eff.vars, Nodes: eff.nodes, Port: eff.port}
	if v := t.node.AssignTo; v != "" {
		if p.Vars == nil {
			p.Vars = map[string]any{}
		}
		p.Vars[v] = assignValue(t.node, out)
	}
	b, err := p.canonical()
	if err != nil {
		return execResult{}, fmt.Errorf("node %q: its output cannot be written as JSON: %v", t.id, err)
	}
	norm, ok := readPayload(b)
	if !ok {
		if err := json.Unmarshal(b, &norm); err != nil {
			return execResult{}, fmt.Errorf("node %q: its output cannot be read back: %v", t.id, err)
		}
	}
	res := execResult{payload: norm}
	if len(b) > r.inline {
		id, err := r.cfg.Recorder.PutArtifact(b)
		if err != nil {
			return execResult{}, fmt.Errorf("node %q: storing its output: %v", t.id, err)
		}
		res.record = map[string]any{"output_artifact": id.String()}
	} else {
		res.record = json.RawMessage(b)
	}
	if len(eff.record) > 0 {
		rec := map[string]any{}
		for k, v := range eff.record {
			rec[k] = v
		}
		if raw, ok := res.record.(json.RawMessage); ok {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(raw, &m); err != nil {
				return execResult{}, fmt.Errorf("node %q: its output cannot be read back: %v", t.id, err)
			}
			for k, v := range m {
				rec[k] = v
			}
		} else {
			for k, v := range res.record.(map[string]any) {
				rec[k] = v
			}
		}
		res.record = rec
	}
	return res, nil
}

// assignValue is what assign_to stores: a model node's parsed JSON when it
// has an output_schema, else its text; a memory read's value; otherwise
// the whole output.
func assignValue(n *plan.Node, out any) any {
	m, _ := out.(map[string]any)
	switch n.Type {
	case "llm", "agent", "report":
		if m == nil {
			return out
		}
		if j, ok := m["json"]; ok {
			return j
		}
		return m["text"]
	case "memory":
		if m != nil && n.Str("op") != "write" {
			return m["value"]
		}
	case "code":
		if m == nil {
			return out
		}
		if j, ok := m["json"]; ok {
			return j
		}
		return m["stdout"]
	}
	return out
}

func usageOf(out any) Usage {
	m, _ := out.(map[string]any)
	u, _ := m["usage"].(map[string]any)
	if u == nil {
		return Usage{}
	}
	f := func(k string) float64 { x, _ := u[k].(float64); return x }
	unknown, _ := u["cost_unknown"].(bool)
	return Usage{InputTokens: int(f("input_tokens")), OutputTokens: int(f("output_tokens")), CostUSD: f("cost_usd"), CostUnknown: unknown}
}

// place records where node id sits in the commit order.
func (r *runner) place(id string, key []int) {
	r.sumMu.Lock()
	if _, ok := r.sumPos[id]; !ok {
		r.sumPos[id] = key
	}
	r.sumMu.Unlock()
}

// summaries returns the node rows in commit order, the order of the event
// log: by rank and id within a graph, a loop's or subflow's body nodes
// right after it, iteration by iteration. That order does not depend on
// timing, so the table is stable. A node without a place (none is
// expected) comes last, in the order it first changed state.
func (r *runner) summaries() []NodeSummary {
	r.sumMu.Lock()
	defer r.sumMu.Unlock()
	keys := append([]string(nil), r.sumKeys...)
	sort.SliceStable(keys, func(i, j int) bool {
		a, aok := r.sumPos[keys[i]]
		b, bok := r.sumPos[keys[j]]
		if aok != bok {
			return aok
		}
		return aok && slices.Compare(a, b) < 0
	})
	out := make([]NodeSummary, 0, len(keys))
	for _, k := range keys {
		out = append(out, *r.summary[k])
	}
	return out
}

func (t *task) modelID() string {
	if t.model != "" {
		return t.model
	}
	return t.id
}

// nextCall numbers the model calls of one node: retries and reworks of a
// node get calls 1, 2, … so that a scripted or mock answer can differ.
func (r *runner) nextCall(node string) int {
	r.callMu.Lock()
	defer r.callMu.Unlock()
	n := r.calls[node]
	r.calls[node] = n + 1
	return n
}

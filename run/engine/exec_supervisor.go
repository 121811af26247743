package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/presets"
)

func init() { registerExecutor("supervisor", executor{leaf: true, run: execSupervisor}) }

// Supervisor events.
const (
	EvSupervisorAssigned = "supervisor.assigned" // {round, worker, task, call_id}
	EvSupervisorReported = "supervisor.reported" // {round, worker, call_id, reason, answer}
)

// assignPrefix names the coordinator's tool for each worker.
const assignPrefix = "assign__"

// maxWorkerSteps bounds each worker's loop within a supervisor: workers
// do one task each, the coordinator does the planning.
const maxWorkerSteps = 12

type worker struct {
	id, role string
	tools    []string
}

func workersOf(n *plan.Node) []worker {
	l, _ := n.Spec["workers"].([]any)
	var out []worker
	for _, x := range l {
		m, _ := x.(map[string]any)
		w := worker{}
		w.id, _ = m["id"].(string)
		w.role, _ = m["role"].(string)
		w.tools = strList(m["tools"])
		if w.id != "" {
			out = append(out, w)
		}
	}
	return out
}

// job is one task the coordinator gave one worker.
type job struct {
	worker *worker
	task   string
	callID string
	res    loopResult
	err    error
	events []pendingEvent
}

// execSupervisor runs a coordinator (the model, Kind "supervisor") that
// assigns tasks to the declared workers in rounds, through one tool per
// worker (assign__<id>, argument task). The tasks of a round run in
// parallel — each worker does its tasks in order, different workers at
// once — each as a small agent loop with the worker's tools. Their events
// are written after the round, worker by worker in the order the
// coordinator first named them, and their query snapshots are numbered in
// that order too, so a run is deterministic on the mock. After max_rounds
// the coordinator must answer. Output: {text, model, usage, rounds,
// assignments: [{round, worker, task, answer}]}.
func execSupervisor(ctx context.Context, t *task) (any, effects, error) {
	n := t.node
	if t.r.cfg.Model == nil {
		return nil, effects{}, fmt.Errorf("node %q: no model provider is configured; pass --provider mock", t.id)
	}
	a := presets.Effective(t.presetRows())
	prompt, err := render(n.Str("prompt"), t.sc.env())
	if err != nil {
		return nil, effects{}, fmt.Errorf("node %q: prompt: %v", t.id, err)
	}
	workers := workersOf(n)
	if len(workers) == 0 {
		return nil, effects{}, fmt.Errorf("node %q: a supervisor needs at least one worker under workers:", t.id)
	}
	byID := map[string]*worker{}
	var decls []ToolDecl
	var roster []string
	for i := range workers {
		w := &workers[i]
		byID[w.id] = w
		decls = append(decls, ToolDecl{
			Name:        assignPrefix + w.id,
			Description: fmt.Sprintf("Give worker %q (%s) one task; it answers with what it found.", w.id, w.role),
			Schema: map[string]any{"type": "object", "properties": map[string]any{
				"task": map[string]any{"type": "string", "description": "the task, in one or two sentences"}},
				"required": []any{"task"}, "additionalProperties": false},
		})
		roster = append(roster, fmt.Sprintf("- %s: %s", w.id, w.role))
	}
	maxRounds := n.Int("max_rounds")
	if maxRounds <= 0 {
		maxRounds = 5
	}
	system := personaSystem(a, "You coordinate a team. Give each worker a task with its assign tool; tasks given in the same turn run in parallel. When you have what you need, answer without calling a tool.\nWorkers:\n"+strings.Join(roster, "\n"))
	msgs := []Message{{Role: "user", Content: prompt}}
	var usage Usage
	var assignments []any
	var snaps []string
	model := ""
	rounds := 0
	for round := 1; ; round++ {
		tools := decls
		if round > maxRounds {
			tools = nil
			msgs = append(msgs, Message{Role: "user", Content: fmt.Sprintf("[agentlab] All %d rounds are used (max_rounds). Give your final answer now from what the workers reported.", maxRounds)})
		}
		resp, err := t.r.cfg.Model.Complete(ctx, ModelRequest{
			Node: t.modelID(), Call: t.r.nextCall(t.modelID()), Kind: "supervisor", Model: modelName(t),
			System: system, Messages: append([]Message(nil), msgs...), Tools: tools, Seed: t.r.cfg.Seed,
		}, func(tok string) { t.r.note(Update{Node: t.id, Type: n.Type, State: StateRunning, Token: tok}) })
		if err != nil {
			return nil, effects{}, withUsage(fmt.Errorf("node %q: the coordinator's model call failed in round %d: %w", t.id, round, err), usage.plus(billedBy(err)))
		}
		model = resp.Model
		usage = usage.plus(resp.Usage)
		calls := resp.ToolCalls
		if tools == nil {
			calls = nil
		}
		msgs = append(msgs, Message{Role: "assistant", Content: resp.Text, ToolCalls: calls})
		if len(calls) == 0 {
			if strings.TrimSpace(resp.Text) == "" {
				return nil, effects{}, withUsage(fmt.Errorf("node %q: the coordinator ended without an answer", t.id), usage)
			}
			out := map[string]any{"text": resp.Text, "model": model, "usage": usage, "rounds": rounds, "assignments": assignments, "snapshots": nonNil(snaps)}
			if assignments == nil {
				out["assignments"] = []any{}
			}
			return out, effects{}, nil
		}
		rounds = round
		jobs, replies, err := t.assign(round, calls, byID)
		if err != nil {
			return nil, effects{}, err
		}
		if err := t.runRound(ctx, round, jobs, a); err != nil {
			return nil, effects{}, err
		}
		for _, j := range jobs {
			usage = usage.plus(j.res.usage)
			snaps = append(snaps, j.res.snapshots...)
			answer := j.res.text
			if j.res.hasJSON {
				b, _ := json.Marshal(j.res.json)
				answer = string(b)
			}
			if j.err != nil {
				answer = "error: " + j.err.Error()
			}
			replies[j.callID] = answer
			assignments = append(assignments, map[string]any{"round": round, "worker": j.worker.id, "task": j.task, "answer": answer})
		}
		for _, tc := range calls {
			id := callIDOf(tc, t.modelID(), round)
			msgs = append(msgs, Message{Role: "tool", Content: replies[id], ToolCallID: id})
		}
	}
}

func callIDOf(tc ToolCall, node string, round int) string {
	if tc.ID != "" {
		return tc.ID
	}
	return fmt.Sprintf("%s:r%d:%s", node, round, tc.Name)
}

// assign turns the coordinator's calls into jobs; malformed calls get an
// error reply instead.
func (t *task) assign(round int, calls []ToolCall, byID map[string]*worker) ([]*job, map[string]string, error) {
	replies := map[string]string{}
	var jobs []*job
	for _, tc := range calls {
		id := callIDOf(tc, t.modelID(), round)
		w := byID[strings.TrimPrefix(tc.Name, assignPrefix)]
		var args struct {
			Task string `json:"task"`
		}
		problem := ""
		switch {
		case !strings.HasPrefix(tc.Name, assignPrefix) || w == nil:
			problem = fmt.Sprintf("no worker tool named %q", tc.Name)
		case json.Unmarshal(tc.Args, &args) != nil || strings.TrimSpace(args.Task) == "":
			problem = `the arguments must be {"task": "…"}`
		}
		if problem != "" {
			replies[id] = "error: malformed assignment: " + problem
			if err := t.emit(pendingEvent{EvSupervisorAssigned, t.id, map[string]any{"round": round, "call_id": id, "tool": tc.Name, "error": problem}}); err != nil {
				return nil, nil, err
			}
			continue
		}
		jobs = append(jobs, &job{worker: w, task: args.Task, callID: id})
		if err := t.emit(pendingEvent{EvSupervisorAssigned, t.id, map[string]any{"round": round, "worker": w.id, "task": args.Task, "call_id": id}}); err != nil {
			return nil, nil, err
		}
	}
	return jobs, replies, nil
}

// runRound runs a round's jobs: one goroutine per worker, each doing its
// jobs in order. A worker's snapshots wait until every worker named
// before it has finished, so Q numbers follow the coordinator's order.
func (t *task) runRound(ctx context.Context, round int, jobs []*job, a presets.Agent) error {
	var order []string
	byWorker := map[string][]*job{}
	for _, j := range jobs {
		if _, ok := byWorker[j.worker.id]; !ok {
			order = append(order, j.worker.id)
		}
		byWorker[j.worker.id] = append(byWorker[j.worker.id], j)
	}
	done := make([]chan struct{}, len(order))
	for i := range done {
		done[i] = make(chan struct{})
	}
	var wg sync.WaitGroup
	for wi, wid := range order {
		wg.Add(1)
		go func(wi int, list []*job) {
			defer wg.Done()
			defer close(done[wi])
			before := func(ctx context.Context) error {
				for _, d := range done[:wi] {
					select {
					case <-d:
					case <-ctx.Done():
						return ctx.Err()
					}
				}
				return nil
			}
			for _, j := range list {
				j.res, j.err = t.runJob(ctx, round, j, a, before)
			}
		}(wi, byWorker[wid])
	}
	wg.Wait()
	for _, wid := range order {
		for _, j := range byWorker[wid] {
			for _, ev := range j.events {
				if err := t.emit(ev); err != nil {
					return err
				}
			}
			data := map[string]any{"round": round, "worker": wid, "call_id": j.callID, "reason": j.res.reason, "steps": j.res.steps}
			if j.err != nil {
				data["error"] = j.err.Error()
			}
			if err := t.emit(pendingEvent{EvSupervisorReported, t.id, data}); err != nil {
				return err
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return nil
}

// runJob runs one worker task as an agent loop; its events are kept in
// the job until the round ends.
func (t *task) runJob(ctx context.Context, round int, j *job, a presets.Agent, before func(context.Context) error) (loopResult, error) {
	var mu sync.Mutex
	emit := func(ev pendingEvent) error {
		mu.Lock()
		j.events = append(j.events, ev)
		mu.Unlock()
		return nil
	}
	wt := *t
	wt.emit = emit
	node := t.id + "." + j.worker.id
	ts, err := newToolset(&wt, node, j.worker.tools, true, nil)
	if err != nil {
		return loopResult{}, err
	}
	ts.before = before
	limits := resolveLimits(a, nil, &t.r.cfg.Host)
	limits.MaxSteps = min(limits.MaxSteps, maxWorkerSteps)
	return wt.runLoop(ctx, loopSpec{
		modelID: t.modelID() + "." + j.worker.id, kind: "agent", model: modelName(t),
		system: personaSystem(a, fmt.Sprintf("You are %s, a worker in a team. Do the task you are given and report what you found.", j.worker.role)),
		prompt: j.task, limits: limits, tools: ts, emit: emit,
		extra: map[string]any{"worker": j.worker.id, "round": round},
	})
}

package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/hashid"
)

// Why an agent loop stopped (agent.stopped's reason).
const (
	StopAnswer       = "answer"        // the model answered without calling a tool
	StopMaxSteps     = "max_steps"     // the step backstop
	StopBudgetTokens = "budget_tokens" // budget.tokens spent
	StopBudgetCost   = "budget_cost"   // budget.cost_usd spent
	StopContext      = "context"       // the context window is nearly full
	StopNoProgress   = "no_progress"   // steps without new information
	StopRepeat       = "repeat"        // an identical call, with repeat_call: stop
)

// loopSpec is one agent loop: an agent node, or one supervisor worker's
// task.
type loopSpec struct {
	modelID string // the id the provider sees (selects scripted answers)
	kind    string
	model   string
	system  string
	prompt  string
	schema  map[string]any // output_schema, or nil
	cite    bool           // cite_fields: every field names its snapshot cell
	limits  agentLimits
	tools   *toolset
	// emit writes the loop's events; extra is merged into each (the
	// worker a supervisor's event is about).
	emit    func(pendingEvent) error
	extra   map[string]any
	onToken func(string)
	// code is the agent's code mode (agent_ptc.go); nil: native tools only.
	code *codeMode
}

// loopResult is how a loop ended.
type loopResult struct {
	text      string
	json      any
	hasJSON   bool
	model     string
	usage     Usage
	steps     int
	calls     int
	reason    string
	sentence  string
	snapshots []string // Q… ids this loop recorded, in order
}

// loop is the state of one running agent loop.
type loop struct {
	t      *task
	s      loopSpec
	msgs   []Message
	usage  Usage
	warned map[string]bool
	// costUnknownSaid is set once the cost budget was said not to cover
	// an unpriced model (one node.warning per loop).
	costUnknownSaid bool
	// seen maps an identical call (tool + canonical args) to its earlier
	// call id and result; facts holds the hash of every result text seen,
	// to tell new information from old.
	seen  map[string][2]string
	facts map[hashid.ID]bool
	res   loopResult
}

// ev writes one loop event.
func (l *loop) ev(typ string, data map[string]any) error {
	for k, v := range l.s.extra {
		data[k] = v
	}
	return l.s.emit(pendingEvent{typ, l.t.id, data})
}

// say adds a message from the engine to the conversation.
func (l *loop) say(text string) {
	l.msgs = append(l.msgs, Message{Role: "user", Content: "[agentlab] " + text})
}

// runLoop runs the agent loop: ask the model, run the tool calls it makes
// (each checked by the permission checker first), feed the results back,
// and stop on an answer or on the first guardrail that trips. Every stop
// is an agent.stopped event with a sentence. An error is a model or store
// failure, or an answer that does not match the output schema; the result
// then still holds the usage of the calls made, which were paid for.
func (t *task) runLoop(ctx context.Context, s loopSpec) (res loopResult, err error) {
	l := &loop{t: t, s: s, warned: map[string]bool{}, seen: map[string][2]string{}, facts: map[hashid.ID]bool{}}
	defer func() { res.usage = l.usage }()
	l.msgs = []Message{{Role: "user", Content: s.prompt}}
	L := s.limits
	noProgress := 0
	wrap := false // the next call offers no tools: the model must answer
	schemaTries := 0
	for step := 1; ; step++ {
		if step > L.MaxSteps {
			// Reached only when the last step's answer was unusable.
			l.stop(StopMaxSteps, fmt.Sprintf("the agent reached its step limit (max_steps %d) without a usable answer", L.MaxSteps))
			break
		}
		if step == L.MaxSteps && !wrap {
			wrap = true
			l.stop(StopMaxSteps, fmt.Sprintf("the agent reached its step limit (max_steps %d); its last step was an answer without tools", L.MaxSteps))
			l.say(fmt.Sprintf("This is your last step (max_steps %d): tools are no longer available. Give your final answer now from what you have.", L.MaxSteps))
		}
		decls := s.tools.decls
		if wrap {
			decls = nil
		}
		est := requestTokens(s.system, l.msgs, decls)
		window := float64(L.ContextWindow)
		if L.CompressAt > 0 && float64(est) >= L.CompressAt*window {
			if n, after := l.compress(); n > 0 {
				if err := l.ev(EvAgentCompressed, map[string]any{"step": step, "results": n, "tokens_before": est, "tokens_after": after}); err != nil {
					return l.res, err
				}
				est = after
			}
		}
		if !wrap && float64(est) >= L.WrapUpAt*window {
			wrap, decls = true, nil
			l.stop(StopContext, fmt.Sprintf("the conversation filled %d of the model's %d-token context window (wrap_up_at %g%%); the agent was asked to answer with what it had", est, L.ContextWindow, L.WrapUpAt*100))
			l.say("The context window is nearly full: tools are no longer available. Give your final answer now from what you have.")
		}
		if err := l.warnings(step, est, noProgress); err != nil {
			return l.res, err
		}
		schema, check := s.schema, s.schema
		if s.cite && schema != nil {
			schema = citeSchema(s.schema, l.t.r, l.res.snapshots, false)
			check = citeSchema(s.schema, l.t.r, l.res.snapshots, true)
		}
		req := ModelRequest{
			Node: s.modelID, Call: t.r.nextCall(s.modelID), Kind: s.kind, Model: s.model,
			System: s.system, Messages: append([]Message(nil), l.msgs...), Tools: decls,
			OutputSchema: schema, Seed: t.r.cfg.Seed,
		}
		resp, err := t.r.cfg.Model.Complete(ctx, req, s.onToken)
		if err != nil {
			l.usage = l.usage.plus(billedBy(err))
			return l.res, fmt.Errorf("node %q: the model call failed at step %d: %w", t.id, step, err)
		}
		l.res.steps = step
		l.res.model = resp.Model
		l.res.text = resp.Text
		l.usage = l.usage.plus(resp.Usage)
		if resp.Usage.CostUnknown && L.CostUSD > 0 && !l.costUnknownSaid {
			l.costUnknownSaid = true
			if err := t.warn(WarnCostUnknown, "the model %q has no price in [providers.prices], so the agent's cost budget of $%.4f (budget.cost_usd) counts only priced calls; add its price to agentlab.toml", resp.Model, L.CostUSD); err != nil {
				return l.res, err
			}
		}
		calls := resp.ToolCalls
		if wrap {
			calls = nil // tools were withdrawn; a call now is ignored
		}
		if err := l.ev(EvAgentStep, map[string]any{"step": step, "tool_calls": len(calls), "usage": resp.Usage}); err != nil {
			return l.res, err
		}
		l.msgs = append(l.msgs, Message{Role: "assistant", Content: resp.Text, ToolCalls: calls})
		if len(calls) == 0 {
			l.res.text = resp.Text
			if schema != nil {
				v, problem := l.checkJSON(resp.Text, check)
				if problem != "" {
					schemaTries++
					if schemaTries <= 2 && step < L.MaxSteps {
						l.say("Your answer must be JSON matching the output schema: " + problem + ". Answer again with the JSON only.")
						continue
					}
					l.stop(l.res.reason, l.res.sentence)
					if err := l.finish(); err != nil {
						return l.res, err
					}
					early := ""
					if l.res.reason != "" && l.res.reason != StopAnswer {
						early = fmt.Sprintf(" (the agent had stopped early (%s): %s)", l.res.reason, l.res.sentence)
					}
					return l.res, fmt.Errorf("node %q: the agent's answer does not match output_schema: %s%s", t.id, problem, early)
				}
				l.res.json, l.res.hasJSON = v, true
			}
			if l.res.reason == "" {
				l.stop(StopAnswer, fmt.Sprintf("the agent answered after %d step(s) and %d tool call(s)", step, l.res.calls))
			}
			break
		}
		// A spent budget withdraws the tools: the calls just made are
		// answered as not run, and one last call without tools asks for the
		// answer, so that the node ends on what the agent found rather
		// than failing.
		if L.Tokens > 0 && l.usage.InputTokens+l.usage.OutputTokens >= L.Tokens {
			l.stop(StopBudgetTokens, fmt.Sprintf("the agent used %d tokens, reaching its token budget of %d (budget.tokens); its last %d tool call(s) were not run and it was asked to answer with what it had", l.usage.InputTokens+l.usage.OutputTokens, L.Tokens, len(calls)))
			l.withdraw(calls, "the token budget is spent")
			wrap = true
			continue
		}
		if L.CostUSD > 0 && l.usage.CostUSD >= L.CostUSD {
			l.stop(StopBudgetCost, fmt.Sprintf("the agent spent $%.4f, reaching its cost budget of $%.4f (budget.cost_usd); its last %d tool call(s) were not run and it was asked to answer with what it had", l.usage.CostUSD, L.CostUSD, len(calls)))
			l.withdraw(calls, "the cost budget is spent")
			wrap = true
			continue
		}
		fresh, repeated := false, false
		for i, tc := range calls {
			isNew, rep, err := l.runCall(ctx, step, i, tc)
			if err != nil {
				return l.res, err
			}
			fresh = fresh || isNew
			repeated = repeated || rep
		}
		if repeated && L.RepeatCall == "stop" {
			wrap = true
			l.stop(StopRepeat, "the agent repeated an identical tool call (repeat_call: stop); it was asked to answer with what it had")
			l.say("You repeated an identical call. Tools are no longer available. Give your final answer now from what you have.")
			continue
		}
		if fresh {
			noProgress = 0
		} else {
			noProgress++
		}
		if L.NoProgressSteps > 0 && noProgress >= L.NoProgressSteps && !wrap {
			wrap = true
			l.stop(StopNoProgress, fmt.Sprintf("%d steps in a row brought no new information (no_progress_steps %d); the agent was asked to answer with what it had", noProgress, L.NoProgressSteps))
			l.say(fmt.Sprintf("Your last %d steps brought no new information. Tools are no longer available. Give your final answer now from what you have.", noProgress))
		}
	}
	l.res.usage = l.usage
	return l.res, l.finish()
}

// withdraw answers calls the loop will not run (every tool call of the
// conversation needs a result) and tells the model why the tools are gone.
func (l *loop) withdraw(calls []ToolCall, why string) {
	for i, tc := range calls {
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("%s:%d:%d", l.s.modelID, l.res.steps, i)
		}
		l.msgs = append(l.msgs, Message{Role: "tool", Content: "error: not run: " + why, ToolCallID: id, IsError: true})
	}
	l.say("Your budget is spent (" + why + "): tools are no longer available. Give your final answer now from what you have.")
}

// stop records why the loop is ending; the first reason given wins.
func (l *loop) stop(reason, sentence string) {
	if l.res.reason == "" {
		l.res.reason, l.res.sentence = reason, sentence
	}
}

// finish writes agent.stopped.
func (l *loop) finish() error {
	l.res.usage = l.usage
	return l.ev(EvAgentStopped, map[string]any{"reason": l.res.reason, "sentence": l.res.sentence, "steps": l.res.steps, "tool_calls": l.res.calls})
}

// warnings tells the model once, before each limit trips, how close it
// is, so that it can finish on its own terms.
func (l *loop) warnings(step, est, noProgress int) error {
	L := l.s.limits
	var warns [][2]string
	if L.MaxSteps >= 3 && step == L.MaxSteps-1 {
		warns = append(warns, [2]string{"max_steps", fmt.Sprintf("You have 2 steps left (max_steps %d); the last one has no tools. Finish gathering facts now.", L.MaxSteps)})
	}
	if used := l.usage.InputTokens + l.usage.OutputTokens; L.Tokens > 0 && used*10 >= L.Tokens*8 {
		warns = append(warns, [2]string{"budget_tokens", fmt.Sprintf("You have used %d of your %d-token budget. Answer soon.", used, L.Tokens)})
	}
	if L.CostUSD > 0 && l.usage.CostUSD*10 >= L.CostUSD*8 {
		warns = append(warns, [2]string{"budget_cost", fmt.Sprintf("You have spent $%.4f of your $%.4f budget. Answer soon.", l.usage.CostUSD, L.CostUSD)})
	}
	if float64(est) >= (L.WrapUpAt-0.10)*float64(L.ContextWindow) {
		warns = append(warns, [2]string{"context", "The context window is nearly full. Answer soon."})
	}
	if L.NoProgressSteps > 1 && noProgress == L.NoProgressSteps-1 {
		warns = append(warns, [2]string{"no_progress", fmt.Sprintf("Your last %d step(s) brought no new information. Try something different or answer.", noProgress)})
	}
	for _, w := range warns {
		if l.warned[w[0]] {
			continue
		}
		l.warned[w[0]] = true
		l.say("Warning: " + w[1])
		if err := l.ev(EvAgentWarning, map[string]any{"step": step, "limit": w[0], "sentence": w[1]}); err != nil {
			return err
		}
	}
	return nil
}

// runCall handles one tool call: parse it, return the earlier result of
// an identical call, check permission, run it, truncate the result, and
// feed it back. It reports whether the result was new information and
// whether the call repeated an earlier one.
func (l *loop) runCall(ctx context.Context, step, i int, tc ToolCall) (fresh, repeated bool, err error) {
	callID := tc.ID
	if callID == "" {
		callID = fmt.Sprintf("%s:%d:%d", l.s.modelID, step, i)
	}
	l.res.calls++
	reply := func(text string) {
		l.msgs = append(l.msgs, Message{Role: "tool", Content: text, ToolCallID: callID, IsError: strings.HasPrefix(text, "error: ")})
	}
	args, problem := parseArgs(tc.Args)
	if problem == "" {
		if handled, fresh, err := l.codeCall(ctx, step, callID, tc, args); handled {
			return fresh, false, err
		}
	}
	if problem == "" && strings.TrimSpace(tc.Name) == "" {
		problem = "the call names no tool"
	}
	if problem == "" && !l.s.tools.offers(tc.Name) {
		problem = fmt.Sprintf("no tool named %q is offered; call one of: %s", tc.Name, l.s.tools.names())
	}
	calledArgs := any(args)
	if args == nil {
		calledArgs = string(tc.Args)
	}
	if err := l.ev(EvToolCalled, map[string]any{"tool": tc.Name, "args": calledArgs, "call_id": callID, "step": step}); err != nil {
		return false, false, err
	}
	if problem != "" {
		// A malformed call never ends the loop: the model reads why and
		// can correct itself.
		reply("error: malformed tool call: " + problem)
		return false, false, l.ev(EvToolResult, map[string]any{"tool": tc.Name, "call_id": callID, "error": problem, "malformed": true})
	}
	key := tc.Name + "\x00" + string(args)
	if prev, ok := l.seen[key]; ok {
		reply(fmt.Sprintf("[agentlab] You already made this exact call (%s); its result is repeated here instead of running it again.\n%s", prev[0], prev[1]))
		return false, true, l.ev(EvToolResult, map[string]any{"tool": tc.Name, "call_id": callID, "repeat_of": prev[0]})
	}
	d := l.s.tools.permit(ctx, tc.Name, args)
	pd := map[string]any{"tool": tc.Name, "call_id": callID, "allowed": d.Allowed, "by": d.By, "sentence": d.Sentence}
	if d.Rule != "" {
		pd["rule"] = d.Rule
	}
	if err := l.ev(EvPermission, pd); err != nil {
		return false, false, err
	}
	if !d.Allowed {
		reply("error: permission refused: " + d.Sentence)
		return false, false, l.ev(EvToolResult, map[string]any{"tool": tc.Name, "call_id": callID, "refused": true, "error": d.Sentence})
	}
	out, err := l.s.tools.call(ctx, tc.Name, args)
	if err != nil {
		return false, false, err
	}
	text, cut := truncateResult(out.text, l.s.limits.ResultChars)
	data := map[string]any{"tool": tc.Name, "call_id": callID}
	for k, v := range out.data {
		data[k] = v
	}
	if cut {
		data["cut_chars"] = len([]rune(out.text)) - l.s.limits.ResultChars
	}
	if id, ok := out.data["snapshot"].(string); ok {
		l.res.snapshots = append(l.res.snapshots, id)
	}
	l.msgs = append(l.msgs, Message{Role: "tool", Content: text, ToolCallID: callID, IsError: out.refused})
	if !out.refused {
		l.seen[key] = [2]string{callID, text}
		h := hashid.Sum([]byte(tc.Name + "\x00" + stripSnapshotID(out.text)))
		fresh = !l.facts[h]
		l.facts[h] = true
	}
	return fresh, false, l.ev(EvToolResult, data)
}

// stripSnapshotID removes the snapshot number from a query result so that
// the same rows under a new number do not count as new information.
func stripSnapshotID(s string) string {
	var m map[string]any
	if json.Unmarshal([]byte(s), &m) != nil || m["snapshot"] == nil {
		return s
	}
	delete(m, "snapshot")
	delete(m, "cite_as")
	b, _ := canon.Marshal(m)
	return string(b)
}

// parseArgs checks that a call's arguments are one JSON object and
// returns them in canonical form (so that identical calls compare equal
// however the model spaced them). Empty arguments are {}.
func parseArgs(raw json.RawMessage) (json.RawMessage, string) {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 {
		return json.RawMessage("{}"), ""
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Sprintf("the arguments are not valid JSON (%v); send one JSON object", err)
	}
	if dec.More() {
		return nil, "the arguments hold more than one JSON value; send one JSON object"
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, "the arguments must be a JSON object, not " + jsonKind(v)
	}
	c, err := canon.Canonicalize(b)
	if err != nil {
		return nil, fmt.Sprintf("the arguments cannot be read (%v); send one JSON object", err)
	}
	return c, ""
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case nil:
		return "null"
	case bool:
		return "a boolean"
	}
	return "a number"
}

func (ts *toolset) offers(name string) bool { return ts.db[name] || ts.reg[name] }

// compress replaces the content of old tool results (all but the
// keep_recent latest) with a one-line note, and returns how many it
// replaced and the estimate after.
func (l *loop) compress() (int, int) {
	var idx []int
	for i, m := range l.msgs {
		if m.Role == "tool" && !strings.HasPrefix(m.Content, "[agentlab: compressed") {
			idx = append(idx, i)
		}
	}
	keep := max(l.s.limits.KeepRecent, 1)
	n := 0
	for _, i := range idx[:max(len(idx)-keep, 0)] {
		c := l.msgs[i].Content
		l.msgs[i].Content = fmt.Sprintf("[agentlab: compressed — %d tokens of an earlier tool result were removed to save context; call the tool again if you need it]", estimateTokens(c))
		n++
	}
	return n, requestTokens(l.s.system, l.msgs, l.s.tools.decls)
}

// checkJSON parses and validates a final answer against schema.
func (l *loop) checkJSON(text string, schema map[string]any) (any, string) {
	v, err := parseModelJSON(text)
	if err != nil {
		return nil, fmt.Sprintf("it is not JSON (%v)", err)
	}
	viol, err := l.t.r.validate(schema, v)
	if err != nil {
		return nil, err.Error()
	}
	if viol != "" {
		return nil, strings.ReplaceAll(strings.TrimSpace(viol), "\n", "; ")
	}
	return v, ""
}

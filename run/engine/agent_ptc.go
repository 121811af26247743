package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/presets"
	sdk "github.com/agentlab/agentlab/presets/ptc"
	"github.com/agentlab/agentlab/run/ptc"
	"github.com/agentlab/agentlab/run/sandbox"
)

// EvAgentPresentation records how an agent node presents its tools, and
// why: {requested, mode, reason, run_code?, sdk_language?, sdk?}. Every
// agent node writes one, so the log answers "why (not) code mode?" for
// each; a native node's reason names its presentation, as the PTC chain
// is consulted only for nodes that ask for code mode.
const EvAgentPresentation = "agent.presentation"

// codeMode is an agent's code mode: the tools folded into run_code, the
// SDK the model sees, and what running a program needs.
type codeMode struct {
	only  bool // presentation ptc: run_code is the only tool; both: native tools too
	lang  string
	infos []sdk.ToolInfo
	a     presets.Agent
	env   map[string]string

	// mu makes the engine's part of sub-calls (events, permission prompts,
	// snapshot numbering) run one at a time; a program may still have up
	// to MaxParallel calls in flight.
	mu sync.Mutex
}

// presentation is the node's own presentation when it names one, else the
// preset's: a node may opt out of a ptc preset by saying native.
func presentation(nodePresentation string, a presets.Agent) string {
	if nodePresentation != "" {
		return nodePresentation
	}
	return a.Presentation
}

// setupCodeMode decides whether the agent runs in code mode. When the
// presentation asks for it, the host's PTC chain decides (no chain: off);
// the decision is an agent.presentation event, written for native nodes
// too (without consulting the chain, so the PTC_* settings of the host
// never change the log of a flow that does not ask for code mode). In
// code mode the toolset's
// declarations become run_code alone (ptc) or the native ones plus
// run_code (both).
func (t *task) setupCodeMode(nodePresentation string, a presets.Agent, ts *toolset) (*codeMode, error) {
	p := presentation(nodePresentation, a)
	if p != presets.PresentPTC && p != presets.PresentBoth {
		if p == "" {
			p = presets.PresentNative
		}
		why := "the preset presents the tools natively; the PTC chain is consulted only for presentation ptc or both"
		if nodePresentation != "" {
			why = "the node asks for presentation " + nodePresentation + "; the PTC chain is consulted only for presentation ptc or both"
		}
		return nil, t.emit(pendingEvent{EvAgentPresentation, t.id, map[string]any{"requested": p, "mode": presets.PresentNative, "reason": why}})
	}
	toolsets := make([]string, len(ts.decls))
	for i, d := range ts.decls {
		toolsets[i] = d.Name
	}
	d := sdk.Decision{Reason: "this host has no code-mode configuration, so code mode is off"}
	if h := t.r.cfg.Host.PTC; h != nil {
		d = h(t.node.Title, toolsets)
	}
	for _, w := range d.Warnings {
		if err := t.warn(CodeAgentPresentation, "%s", w); err != nil {
			return nil, err
		}
	}
	data := map[string]any{"requested": p, "mode": presets.PresentNative, "reason": d.Reason}
	if !d.Enabled || len(ts.decls) == 0 {
		if d.Enabled {
			data["reason"] = "the agent has no tools to fold into run_code"
		}
		return nil, t.emit(pendingEvent{EvAgentPresentation, t.id, data})
	}
	cm := &codeMode{only: p == presets.PresentPTC, lang: a.SDKLanguage, a: a, env: d.SandboxEnv}
	for _, decl := range ts.decls {
		cm.infos = append(cm.infos, sdk.ToolInfo{Name: decl.Name, Description: decl.Description, Args: decl.Schema, Output: decl.Output})
	}
	decl, text := ptc.Tool(cm.infos, cm.lang)
	rc := ToolDecl{Name: decl.Name, Description: decl.Description, Schema: decl.Schema}
	if cm.only {
		ts.decls = []ToolDecl{rc}
	} else {
		ts.decls = append(ts.decls, rc)
		sort.Slice(ts.decls, func(i, j int) bool { return ts.decls[i].Name < ts.decls[j].Name })
	}
	data["mode"], data["run_code"], data["sdk_language"] = p, ptc.ToolName, cm.lang
	data["sdk"] = hashid.Sum([]byte(text)).String()
	return cm, t.emit(pendingEvent{EvAgentPresentation, t.id, data})
}

// codeCall routes a call in code mode: run_code runs a program; in ptc
// mode a native tool is not offered. handled is false for calls the
// native path takes.
func (l *loop) codeCall(ctx context.Context, step int, callID string, tc ToolCall, args json.RawMessage) (handled, fresh bool, err error) {
	cm := l.s.code
	if cm == nil || (tc.Name != ptc.ToolName && !cm.only) {
		return false, false, nil
	}
	reply := func(text string) {
		l.msgs = append(l.msgs, Message{Role: "tool", Content: text, ToolCallID: callID, IsError: strings.HasPrefix(text, "error: ")})
	}
	if err := l.ev(EvToolCalled, map[string]any{"tool": tc.Name, "args": args, "call_id": callID, "step": step}); err != nil {
		return true, false, err
	}
	if tc.Name != ptc.ToolName {
		problem := fmt.Sprintf("%s is not offered directly in code mode; call it from a run_code program", tc.Name)
		reply("error: malformed tool call: " + problem)
		return true, false, l.ev(EvToolResult, map[string]any{"tool": tc.Name, "call_id": callID, "error": problem, "malformed": true})
	}
	code, perr := ptc.ParseArgs(args)
	if perr != nil {
		reply("error: malformed tool call: " + perr.Error())
		return true, false, l.ev(EvToolResult, map[string]any{"tool": tc.Name, "call_id": callID, "error": perr.Error(), "malformed": true})
	}
	if ok, err := l.permitted(ctx, tc.Name, callID, "", args, reply); !ok || err != nil {
		return true, false, err
	}
	dir, cleanup, err := l.t.codeDir()
	if err != nil {
		return true, false, err
	}
	defer cleanup()
	a := cm.a
	timeout := max(ptc.DefaultTimeout, time.Duration(a.SandboxTimeoutS*float64(time.Second)))
	spec := ptc.Spec{
		CallID: callID, Language: cm.lang, Program: code, Tools: cm.infos,
		CallTool: func(ctx context.Context, id, name string, args json.RawMessage) (json.RawMessage, error) {
			return l.subCall(ctx, step, callID, id, name, args)
		},
		MaxParallel: a.MaxParallel, Timeout: timeout, OutputCap: a.SandboxOutput, MemoryMB: a.SandboxMemoryMB,
		SandboxEnv: cm.env, Dir: dir, Backend: l.t.r.cfg.Host.Sandbox,
	}
	spec.Backend = sandbox.ForPreset(spec.Backend, a.Sandbox) // a preset may only tighten
	res, err := ptc.Run(ctx, spec)
	if err != nil {
		if ctx.Err() != nil {
			return true, false, ctx.Err()
		}
		return true, false, fmt.Errorf("node %q: run_code: %v", l.t.id, err)
	}
	text, cut := truncateResult(res.ForModel(), l.s.limits.ResultChars)
	ids := make([]string, len(res.SubCalls))
	for i, c := range res.SubCalls {
		ids[i] = c.ID
	}
	data := map[string]any{"tool": tc.Name, "call_id": callID, "ok": res.OK(), "sub_calls": ids,
		"backend": res.Sandbox.Backend, "exit_code": res.ExitCode}
	if res.OK() {
		data["output"] = res.Output
	} else {
		data["error"], data["failure"] = res.Failure.Message, res.Failure.Kind
	}
	if cut {
		data["cut_chars"] = len([]rune(res.ForModel())) - l.s.limits.ResultChars
	}
	l.msgs = append(l.msgs, Message{Role: "tool", Content: text, ToolCallID: callID, IsError: !res.OK()})
	h := hashid.Sum([]byte(tc.Name + "\x00" + string(res.Output)))
	fresh = res.OK() && !l.facts[h]
	l.facts[h] = true
	return true, fresh, l.ev(EvToolResult, data)
}

// permitted runs the permission check of one call and records it; a
// refusal is replied to the model.
func (l *loop) permitted(ctx context.Context, tool, callID, parent string, args json.RawMessage, reply func(string)) (bool, error) {
	d := l.s.tools.permit(ctx, tool, args)
	pd := map[string]any{"tool": tool, "call_id": callID, "allowed": d.Allowed, "by": d.By, "sentence": d.Sentence}
	if d.Rule != "" {
		pd["rule"] = d.Rule
	}
	if err := l.ev(EvPermission, pd); err != nil {
		return false, err
	}
	if !d.Allowed {
		if reply != nil {
			reply("error: permission refused: " + d.Sentence)
		}
		data := map[string]any{"tool": tool, "call_id": callID, "refused": true, "error": d.Sentence}
		if parent != "" {
			data["parent"] = parent
		}
		return false, l.ev(EvToolResult, data)
	}
	return true, nil
}

// subCall runs one tool call of a program like a native call — the
// tool.called event (with the run_code call as parent), the permission
// check, the call, the tool.result event — and returns its result as
// JSON. A refusal or failure is an error: the program sees a
// ToolCallError with its sentence.
func (l *loop) subCall(ctx context.Context, step int, parent, id, name string, args json.RawMessage) (json.RawMessage, error) {
	cm := l.s.code
	cm.mu.Lock()
	defer cm.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if canon, problem := parseArgs(args); problem == "" {
		args = canon
	}
	if err := l.ev(EvToolCalled, map[string]any{"tool": name, "args": args, "call_id": id, "parent": parent, "step": step}); err != nil {
		return nil, err
	}
	var sentence string
	ok, err := l.permitted(ctx, name, id, parent, args, func(s string) { sentence = strings.TrimPrefix(s, "error: ") })
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%s", sentence)
	}
	out, err := l.s.tools.call(ctx, name, args)
	if err != nil {
		return nil, err
	}
	data := map[string]any{"tool": name, "call_id": id, "parent": parent}
	for k, v := range out.data {
		data[k] = v
	}
	if sid, ok := out.data["snapshot"].(string); ok {
		l.res.snapshots = append(l.res.snapshots, sid)
	}
	if err := l.ev(EvToolResult, data); err != nil {
		return nil, err
	}
	if out.refused {
		return nil, errors.New(strings.TrimPrefix(out.text, "error: "))
	}
	if json.Valid([]byte(out.text)) {
		return json.RawMessage(out.text), nil
	}
	b, _ := json.Marshal(out.text)
	return b, nil
}

package provider

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/internal/lazyre"
)

// ErrNoScriptedResponse is returned (wrapped) when a script file has no
// response for a node and no default.
var ErrNoScriptedResponse = errors.New("no scripted response")

// Script replays canned responses: per node id a list indexed by the call
// number (the last entry repeats), else the default. It lets users test a
// flow's wiring — branches, retries, validation, tool handling — with
// answers they choose.
type Script struct {
	File    string
	Nodes   map[string][]ScriptResponse
	NodePos map[string]diag.Pos
	Default *ScriptResponse
	// Questions holds, per eval question id, responses per node id that
	// win over Nodes when the run answers that question (Options.Question).
	Questions map[string]*Script
	opts      Options
}

// ScriptError is a script file that cannot be used; Diagnostics says where
// and why.
type ScriptError struct {
	File        string
	Diagnostics diag.List
}

func (e *ScriptError) Error() string {
	lines := make([]string, 0, len(e.Diagnostics))
	for _, d := range e.Diagnostics {
		s := d.String()
		if d.Fix != "" {
			s += " (" + d.Fix + ")"
		}
		lines = append(lines, s)
	}
	return strings.Join(lines, "\n")
}

// LoadScript reads and checks a script file.
func LoadScript(path string, opts Options) (*Script, error) {
	data, err := fsutil.FlowCap.ReadFile(path)
	if err != nil {
		var l diag.List
		l.Errorf(path, diag.Pos{}, CodeScriptRead, "check the path after script: and that the file is readable",
			"cannot read script file: %v", err)
		return nil, &ScriptError{File: path, Diagnostics: l}
	}
	s, diags := ParseScript(path, data)
	if s == nil {
		return nil, &ScriptError{File: path, Diagnostics: diags}
	}
	s.opts = opts
	return s, nil
}

// Name implements Provider.
func (s *Script) Name() string { return "script" }

// Lookup returns the response scripted for a node's call: entry call of
// the node's list, the last entry once the list is used up, else the
// default.
func (s *Script) Lookup(node string, call int) (ScriptResponse, bool) {
	if q, ok := s.Questions[s.opts.Question]; ok && s.opts.Question != "" {
		if r, ok := q.lookupNode(node, call); ok {
			return r, true
		}
	}
	if r, ok := s.lookupNode(node, call); ok {
		return r, true
	}
	if s.Default != nil {
		return *s.Default, true
	}
	return ScriptResponse{}, false
}

// lookupNode answers from Nodes alone.
func (s *Script) lookupNode(node string, call int) (ScriptResponse, bool) {
	if list, ok := s.Nodes[node]; ok && len(list) > 0 {
		return list[min(max(call, 0), len(list)-1)], true
	}
	// A key that writes an iteration as "[]" answers every iteration
	// ("each[].draft" for "each[3].draft"); an exact key wins over it.
	if general, iters := generalize(node); len(iters) > 0 {
		if list, ok := s.Nodes[general]; ok && len(list) > 0 {
			return list[min(max(call, 0), len(list)-1)], true
		}
	}
	return ScriptResponse{}, false
}

// Complete implements Provider.
func (s *Script) Complete(ctx context.Context, req Request, onToken func(string)) (Response, error) {
	if err := ctx.Err(); err != nil {
		return Response{}, err
	}
	sr, ok := s.Lookup(req.Node, req.Call)
	if !ok {
		return Response{}, fmt.Errorf("%w for node %q (call %d) in %s: add %q under nodes:, or a default: response",
			ErrNoScriptedResponse, req.Node, req.Call, s.File, req.Node)
	}
	if sr.Error != "" {
		return Response{}, &CallError{
			Provider: s.Name(), Node: req.Node, Call: req.Call, Retryable: sr.Retryable,
			Message: fmt.Sprintf("%s (scripted at %s:%d:%d)", sr.Error, s.File, sr.Pos.Line, sr.Pos.Col),
		}
	}
	resp := Response{Text: sr.Text, Model: req.Model, StopReason: sr.StopReason}
	if resp.Model == "" {
		resp.Model = s.opts.Model
	}
	if resp.Model == "" {
		resp.Model = "script"
	}
	for i, tc := range sr.ToolCalls {
		if tc.ID == "" {
			tc.ID = fmt.Sprintf("call_%s_%d_%d", req.Node, req.Call, i)
		}
		resp.ToolCalls = append(resp.ToolCalls, tc)
	}
	if resp.StopReason == "" {
		resp.StopReason = StopEnd
		if len(resp.ToolCalls) > 0 {
			resp.StopReason = StopToolCalls
		}
	}
	if err := stream(ctx, resp.Text, onToken); err != nil {
		return Response{}, err
	}
	if sr.Usage != nil {
		resp.Usage = *sr.Usage
	} else {
		resp.Usage = Usage{InputTokens: InputTokens(req), OutputTokens: OutputTokens(resp)}
	}
	return resp, nil
}

// Check compares the scripted node ids with the ids the flow's model calls
// use, warning (W-SCRIPT-NODE, at the entry's line and column) about each
// scripted node the flow does not have — usually a typo, which would
// otherwise silently fall through to the default.
//
// Lookup answers a call whose node id equals the key, and the engine
// gives the nodes of a loop's body the id <loop>[<i>].<node>: ids may
// therefore write an iteration as "[]" (as engine.ModelNodeIDs does), and
// a key then matches with any iteration number written the way the engine
// writes it ("review[0].draft", "review[12].draft"; not "review[01].draft"
// nor "review[].draft", which no call ever uses).
func (s *Script) Check(ids []string) diag.List {
	var l diag.List
	known := map[string]bool{}
	for _, id := range ids {
		known[id] = true
	}
	qids := make([]string, 0, len(s.Questions))
	for q := range s.Questions {
		qids = append(qids, q)
	}
	sort.Strings(qids)
	for _, q := range qids {
		l = append(l, s.Questions[q].Check(ids)...)
	}
	keys := make([]string, 0, len(s.Nodes))
	for id := range s.Nodes {
		keys = append(keys, id)
	}
	sort.Strings(keys)
	for _, key := range keys {
		if known[key] {
			continue // an exact id, or one with "[]" for every iteration
		}
		general, iters := generalize(key)
		if len(iters) > 0 && known[general] {
			continue
		}
		fix := "remove the entry or rename it to a node id of the flow"
		if c := closest(general, ids); c != "" {
			fix = fmt.Sprintf("did you mean %q?", specialize(c, iters))
		} else if c := nestedAs(general, ids); c != "" {
			fix = fmt.Sprintf("did you mean %q? a node inside a loop or a subflow is called by its full id, <loop>[<iteration>].<node> or <subgraph>.<node>", specialize(c, iters))
		}
		l.Warnf(s.File, s.NodePos[key], CodeScriptNode, fix, "script has responses for node %q, which the flow does not have", key)
	}
	return l
}

// nestedAs returns the first id (in sorted order) that names key inside a
// loop or a subflow ("review[].draft" for "draft"), or "".
func nestedAs(key string, ids []string) string {
	sorted := append([]string(nil), ids...)
	sort.Strings(sorted)
	for _, id := range sorted {
		if strings.HasSuffix(id, "."+key) {
			return id
		}
	}
	return ""
}

// iterationIndex stands for any loop iteration in the ids Check is given.
const iterationIndex = "[]"

// iterationRe is a loop iteration as the engine writes it in a node id.
var iterationRe = lazyre.New(`\[(0|[1-9][0-9]*)\]`)

// generalize writes every iteration number of key as "[]" and returns the
// numbers, in order.
func generalize(key string) (string, []string) {
	var iters []string
	general := iterationRe.ReplaceAllStringFunc(key, func(m string) string {
		iters = append(iters, m)
		return iterationIndex
	})
	return general, iters
}

// specialize writes a suggested id with the key's own iteration numbers
// ([0] where the key has fewer).
func specialize(id string, iters []string) string {
	parts := strings.Split(id, iterationIndex)
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			if i-1 < len(iters) {
				b.WriteString(iters[i-1])
			} else {
				b.WriteString("[0]")
			}
		}
		b.WriteString(p)
	}
	return b.String()
}

package provider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/agentlab/agentlab/diag"
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
	opts    Options
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
	data, err := os.ReadFile(path)
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
	if list, ok := s.Nodes[node]; ok && len(list) > 0 {
		return list[min(max(call, 0), len(list)-1)], true
	}
	if s.Default != nil {
		return *s.Default, true
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

// Check compares the scripted node ids with the ids a flow has, warning
// about each scripted node the flow does not have (usually a typo, which
// would otherwise silently fall through to the default).
func (s *Script) Check(nodeIDs []string) diag.List {
	var l diag.List
	known := map[string]bool{}
	for _, id := range nodeIDs {
		known[id] = true
	}
	ids := make([]string, 0, len(s.Nodes))
	for id := range s.Nodes {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if known[id] {
			continue
		}
		fix := "remove the entry or rename it to a node id of the flow"
		if c := closest(id, nodeIDs); c != "" {
			fix = fmt.Sprintf("did you mean %q?", c)
		}
		l.Warnf(s.File, s.NodePos[id], CodeScriptNode, fix, "script has responses for node %q, which the flow does not have", id)
	}
	return l
}

package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/agentlab/agentlab/run/tools"
)

// dbQueryPrefix names the query tool of each data source.
const dbQueryPrefix = "db_query__"

func init() {
	registerExecutor("tool", executor{leaf: true, run: execTool})
}

// execTool runs one tool with `args` rendered from their templates. A
// db_query__<source> tool runs its guarded query on the source (named
// parameters bound, never pasted; rows capped by settings.row_cap and the
// source's own row_cap), stores the result as a snapshot numbered in the
// run's ledger (Q1, Q2… in commit order), and outputs the snapshot object
// {node, snapshot, columns, rows, truncated}. The node's evidence_role
// (source|compute) is recorded with its node.finished event. Any other
// tool comes from the run's tool registry (registryTool).
func execTool(ctx context.Context, t *task) (any, effects, error) {
	n := t.node
	name := n.Str("tool")
	args, err := renderValue(n.Spec["args"], t.sc.env())
	if err != nil {
		return nil, effects{}, fmt.Errorf("node %q: args: %v", t.id, err)
	}
	argMap, _ := args.(map[string]any)
	if args != nil && argMap == nil {
		return nil, effects{}, fmt.Errorf("node %q: args must be an object, not %T", t.id, args)
	}
	if argMap == nil {
		argMap = map[string]any{}
	}
	role := n.Str("evidence_role")
	if role == "" {
		role = "source"
	}
	callID := t.id + ":" + fmt.Sprint(t.attempt)
	if err := t.emit(pendingEvent{EvToolCalled, t.id, map[string]any{"tool": name, "args": argMap, "call_id": callID}}); err != nil {
		return nil, effects{}, err
	}
	if err := t.permitToolNode(ctx, name, argMap, callID); err != nil {
		return nil, effects{}, err
	}
	if !strings.HasPrefix(name, dbQueryPrefix) {
		return t.registryTool(ctx, name, argMap, callID, role)
	}
	if t.r.cfg.Sources == nil {
		return nil, effects{}, fmt.Errorf("node %q: tool %q queries source %q, but the flow declares no sources; add it under sources:", t.id, name, strings.TrimPrefix(name, dbQueryPrefix))
	}
	rowCap := t.r.cfg.Plan.Settings.RowCap
	snap, err := t.r.cfg.Sources.Call(ctx, name, argMap, rowCap)
	if err != nil {
		return nil, effects{}, fmt.Errorf("node %q: %v", t.id, err)
	}
	snap.Node = t.id
	id, art, err := t.recordSnapshot(ctx, snap)
	if err != nil {
		return nil, effects{}, err
	}
	if err := t.emit(pendingEvent{EvToolResult, t.id, map[string]any{
		"tool": name, "call_id": callID, "snapshot": id, "snapshot_artifact": art,
		"rows": len(snap.Rows), "truncated": snap.Truncated,
	}}); err != nil {
		return nil, effects{}, err
	}
	return snap.Object(), effects{record: map[string]any{"snapshot": id, "snapshot_artifact": art, "evidence_role": role}}, nil
}

// permitToolNode checks a tool node's call like any other and records the
// permission.decided event; a refusal fails the node. The node is the
// flow's own fixed call, so it counts as a flow rule allowing this tool:
// that holds for a flow-scoped tool (FlowScopedTool), and for any other
// only where the operator allows it — an operator deny always wins.
func (t *task) permitToolNode(ctx context.Context, name string, args map[string]any, callID string) error {
	raw, err := json.Marshal(args)
	if err != nil {
		return fmt.Errorf("node %q: args: %v", t.id, err)
	}
	d := permit(ctx, &t.r.cfg.Host, PermissionQuery{Node: t.id, Tool: name, Args: raw,
		Rules: []PermissionRule{{Tool: name, Action: "allow"}}})
	pd := map[string]any{"tool": name, "call_id": callID, "allowed": d.Allowed, "by": d.By, "sentence": d.Sentence}
	if d.Rule != "" {
		pd["rule"] = d.Rule
	}
	if err := t.emit(pendingEvent{EvPermission, t.id, pd}); err != nil {
		return err
	}
	if !d.Allowed {
		return fmt.Errorf("node %q: permission refused: %s", t.id, d.Sentence)
	}
	return nil
}

// registryTool runs a tool of the run's registry (file, HTTP and custom
// tools; Config.Host.Tools) as a flow step, which may use tools of any
// effect. Its structured value (else its text) is the output; the result
// is stored as an artifact referenced by tool.result.
func (t *task) registryTool(ctx context.Context, name string, args map[string]any, callID, role string) (any, effects, error) {
	reg := t.r.cfg.Host.Tools
	if reg == nil {
		return nil, effects{}, fmt.Errorf("node %q: there is no tool %q in this run; tool nodes run the db_query__<source> tools of the flow's sources and the tools the flow declares", t.id, name)
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, effects{}, fmt.Errorf("node %q: args: %v", t.id, err)
	}
	res, err := reg.Call(ctx, tools.FromToolNode, name, raw)
	if err != nil {
		return nil, effects{}, fmt.Errorf("node %q: %v", t.id, err)
	}
	art, err := storeJSON(t, res)
	if err != nil {
		return nil, effects{}, err
	}
	if err := t.emit(pendingEvent{EvToolResult, t.id, map[string]any{"tool": name, "call_id": callID, "result_artifact": art}}); err != nil {
		return nil, effects{}, err
	}
	var out any = res.Text
	if res.Value != nil {
		out = res.Value
	}
	return out, effects{record: map[string]any{"result_artifact": art, "evidence_role": role}}, nil
}

// renderValue renders every string inside v as a template; maps and lists
// are walked (map keys are kept as written).
func renderValue(v any, env map[string]any) (any, error) {
	switch x := v.(type) {
	case string:
		return render(x, env)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make(map[string]any, len(x))
		for _, k := range keys {
			r, err := renderValue(x[k], env)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", k, err)
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			r, err := renderValue(e, env)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %v", i, err)
			}
			out[i] = r
		}
		return out, nil
	}
	return v, nil
}

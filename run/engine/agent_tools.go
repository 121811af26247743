package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agentlab/agentlab/run/permission"
	"sort"
	"strings"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/presets"
	"github.com/agentlab/agentlab/run/sources"
	"github.com/agentlab/agentlab/run/tools"
)

// describedSources is implemented by a SourceDB that can describe its
// query tools to a model (run/sources.DB does).
type describedSources interface {
	Tools() []sources.ToolInfo
}

// toolset is the tools one agent (or supervisor worker) may call.
type toolset struct {
	t      *task
	decls  []ToolDecl // sorted by name: the same declarations every run
	db     map[string]bool
	reg    map[string]bool
	node   string // permission queries name this node
	rules  []PermissionRule
	caller tools.Caller
	// before, when set, runs before a snapshot is numbered (supervisor
	// workers take turns so that numbers are deterministic).
	before func(context.Context) error
}

// agentToolNames lists the tools an agent asks for: its own `tools`, or
// the preset's enabled tools when it lists none. "db_query" stands for
// every db_query__<source> tool.
func agentToolNames(n *plan.Node, a presets.Agent) (names []string, explicit bool) {
	if l, ok := n.Spec["tools"].([]any); ok && len(l) > 0 {
		for _, x := range l {
			if s, ok := x.(string); ok {
				names = append(names, s)
			}
		}
		return names, true
	}
	return append([]string(nil), a.Tools...), false
}

// newToolset resolves names against the run's sources and tool registry.
// Names the node lists explicitly must exist; a write tool is refused
// either way (agents only read). Preset tools the host does not offer
// (no workspace, say) are left out.
func newToolset(t *task, node string, names []string, explicit bool, rules []PermissionRule) (*toolset, error) {
	ts := &toolset{t: t, db: map[string]bool{}, reg: map[string]bool{}, node: node, rules: rules, caller: tools.FromAgent}
	var dbInfos []sources.ToolInfo
	if d, ok := t.r.cfg.Sources.(describedSources); ok && t.r.cfg.Sources != nil {
		dbInfos = d.Tools()
	}
	h := &t.r.cfg.Host
	var regNames []string
	var problems []string
	seen := map[string]bool{}
	addDB := func(info sources.ToolInfo) {
		if !seen[info.Name] {
			seen[info.Name] = true
			ts.db[info.Name] = true
			ts.decls = append(ts.decls, ToolDecl{Name: info.Name, Description: info.Description, Schema: info.Schema, Output: dbResultSchema()})
		}
	}
	for _, name := range names {
		switch {
		case name == "db_query":
			for _, info := range dbInfos {
				addDB(info)
			}
		case strings.HasPrefix(name, dbQueryPrefix):
			found := false
			for _, info := range dbInfos {
				if info.Name == name {
					addDB(info)
					found = true
				}
			}
			if !found {
				problems = append(problems, fmt.Sprintf("%q queries a source the flow does not declare (add it under sources:)", name))
			}
		default:
			if h.Tools != nil {
				if _, ok := h.Tools.Get(name); ok {
					regNames = append(regNames, name)
					continue
				}
			}
			if explicit {
				problems = append(problems, fmt.Sprintf("%q is not a tool this run offers", name))
			}
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("node %q: %s; offered tools are %s", node, strings.Join(problems, "; "), strings.Join(offered(dbInfos, h.Tools), ", "))
	}
	if len(regNames) > 0 {
		if _, err := h.Tools.ForAgent(regNames); err != nil {
			return nil, fmt.Errorf("node %q: %v", node, err)
		}
		for _, info := range h.Tools.Infos(regNames) {
			if !seen[info.Name] {
				seen[info.Name] = true
				ts.reg[info.Name] = true
				ts.decls = append(ts.decls, ToolDecl{Name: info.Name, Description: info.Description, Schema: info.Schema, Output: info.Output})
			}
		}
	}
	sort.Slice(ts.decls, func(i, j int) bool { return ts.decls[i].Name < ts.decls[j].Name })
	return ts, nil
}

func offered(db []sources.ToolInfo, reg *tools.Registry) []string {
	out := []string{"db_query"}
	for _, d := range db {
		out = append(out, d.Name)
	}
	if reg != nil {
		out = append(out, reg.Names()...)
	}
	return out
}

// toolOutcome is what one executed call gave back.
type toolOutcome struct {
	text string         // what the model is shown (before truncation)
	data map[string]any // extra keys of the tool.result event
	// refused is set when the call did not run (bad arguments, a refusal
	// by the registry or the SQL guard): the text is the reason.
	refused bool
}

// call runs one tool call that passed parsing and the permission check.
// Refusals and query errors are returned as outcomes for the model to
// read; only a cancelled context or a store failure is an error.
func (ts *toolset) call(ctx context.Context, name string, args json.RawMessage) (toolOutcome, error) {
	if ts.db[name] {
		return ts.query(ctx, name, args)
	}
	if !ts.reg[name] {
		return toolOutcome{text: fmt.Sprintf("error: no tool named %q is offered; call one of: %s", name, ts.names()), refused: true}, nil
	}
	res, err := ts.t.r.cfg.Host.Tools.Call(ctx, ts.caller, name, args)
	if err != nil {
		if ctx.Err() != nil {
			return toolOutcome{}, ctx.Err()
		}
		var rf *tools.Refusal
		if errors.As(err, &rf) {
			return toolOutcome{text: "error: " + rf.Error(), data: map[string]any{"error": rf.Reason, "code": rf.Code}, refused: true}, nil
		}
		return toolOutcome{text: "error: " + err.Error(), data: map[string]any{"error": err.Error()}, refused: true}, nil
	}
	data := map[string]any{}
	if res.Truncated {
		data["truncated"] = true
	}
	b, _ := canon.Marshal(res)
	if len(b) > 2048 {
		id, err := ts.t.r.cfg.Recorder.PutArtifact(b)
		if err != nil {
			return toolOutcome{}, fmt.Errorf("node %q: storing a tool result: %v", ts.t.id, err)
		}
		data["result_artifact"] = id.String()
	} else {
		data["result"] = json.RawMessage(b)
	}
	return toolOutcome{text: res.Text, data: data}, nil
}

// query runs a db_query call and records its snapshot in the ledger.
func (ts *toolset) query(ctx context.Context, name string, args json.RawMessage) (toolOutcome, error) {
	var m map[string]any
	if err := json.Unmarshal(args, &m); err != nil || m == nil {
		return toolOutcome{text: `error: the arguments must be a JSON object {"sql": "SELECT …", "params": {…}}`, refused: true}, nil
	}
	snap, err := ts.t.r.cfg.Sources.Call(ctx, name, m, ts.t.r.cfg.Plan.Settings.RowCap)
	if err != nil {
		if ctx.Err() != nil {
			return toolOutcome{}, ctx.Err()
		}
		return toolOutcome{text: "error: " + err.Error(), data: map[string]any{"error": err.Error()}, refused: true}, nil
	}
	snap.Node = ts.t.id
	if ts.before != nil {
		if err := ts.before(ctx); err != nil {
			return toolOutcome{}, err
		}
	}
	id, art, err := ts.t.recordSnapshot(ctx, snap)
	if err != nil {
		return toolOutcome{}, err
	}
	view := map[string]any{ // its shape is dbResultSchema
		"snapshot": id, "columns": snap.Columns, "rows": snap.Rows, "truncated": snap.Truncated,
		"cite_as": citeAs(id, snap.Columns, len(snap.Rows)),
	}
	b, err := json.Marshal(view)
	if err != nil {
		return toolOutcome{}, fmt.Errorf("node %q: a snapshot cannot be shown: %v", ts.t.id, err)
	}
	return toolOutcome{text: string(b), data: map[string]any{
		"snapshot": id, "snapshot_artifact": art, "rows": len(snap.Rows), "truncated": snap.Truncated,
	}}, nil
}

func (ts *toolset) names() string {
	out := make([]string, len(ts.decls))
	for i, d := range ts.decls {
		out[i] = d.Name
	}
	return strings.Join(out, ", ")
}

// permit asks the permission checker about one call. Without a checker
// (a Host built by hand; package run always installs the operator's, under
// which a node's rules may only narrow) the node's own rules decide, and a
// call no rule allows is refused with
// the sentence naming the rule to add (nobody can be asked here), unless
// the host says yes.
func (ts *toolset) permit(ctx context.Context, name string, args json.RawMessage) PermissionDecision {
	return permit(ctx, &ts.t.r.cfg.Host, PermissionQuery{Node: ts.node, Tool: name, Args: args, Rules: ts.rules})
}

// permit decides one call of any caller (agent, supervisor worker,
// run_code sub-call, tool node) with the host's checker, or the node's
// own rules when the host has none.
func permit(ctx context.Context, h *Host, q PermissionQuery) PermissionDecision {
	name := q.Tool
	if h.Permission != nil {
		return h.Permission.Decide(ctx, q)
	}
	for i, r := range q.Rules {
		if !matchTool(r.Tool, name) {
			continue
		}
		rule := fmt.Sprintf("node %s permissions rule %d", q.Node, i+1)
		switch r.Action {
		case "allow":
			return PermissionDecision{Allowed: true, By: "rule", Rule: rule, Sentence: fmt.Sprintf("%s allows %s", rule, name)}
		case "deny":
			return PermissionDecision{By: "rule", Rule: rule, Sentence: fmt.Sprintf("%s denies %s", rule, name)}
		}
		break
	}
	if h.Yes {
		return PermissionDecision{Allowed: true, By: "yes-flag", Sentence: name + " needs approval; approved by --yes"}
	}
	return PermissionDecision{By: "refused-no-tty", Sentence: fmt.Sprintf(
		"%s needs approval and there is no terminal to ask (CI or stdin not a terminal); to allow it, add to the node's permissions: {tool: %q, action: allow} — or run with --yes", name, name)}
}

// matchTool matches a rule's tool pattern: exact, "*", or a prefix ending in *.
func matchTool(pattern, name string) bool {
	if pattern == "*" || pattern == name {
		return true
	}
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(name, p)
	}
	return false
}

// nodeRules reads an agent node's `permissions` list.
func nodeRules(n *plan.Node) []PermissionRule {
	l, _ := n.Spec["permissions"].([]any)
	var out []PermissionRule
	for _, x := range l {
		m, _ := x.(map[string]any)
		tool, _ := m["tool"].(string)
		action, _ := m["action"].(string)
		if tool != "" {
			out = append(out, PermissionRule{Tool: tool, Action: action})
		}
	}
	return out
}

// citeAsColumns bounds the cell markers cite_as spells out.
const citeAsColumns = 8

// citeAs tells the model how to cite the cells of a query result with the
// result's real names, never a placeholder: the markers of row 0, and the
// marker of the same column in the last row.
func citeAs(id string, cols []string, rows int) string {
	if rows == 0 || len(cols) == 0 {
		return id + " has no rows: there is nothing in it to cite"
	}
	var ex []string
	for i, c := range cols {
		if i == citeAsColumns {
			ex = append(ex, "…")
			break
		}
		ex = append(ex, id+".r0."+c)
	}
	s := strings.Join(ex, ", ") + " (row 0"
	if rows > 1 {
		s += fmt.Sprintf("; row %d is %s.r%d.%s and so on", rows-1, id, rows-1, cols[0])
	}
	return s + ")"
}

// dbResultSchema is the JSON Schema of what a db_query tool returns to the
// model (the view built in the query call above), shown as the result
// type of the function in code mode.
func dbResultSchema() map[string]any {
	str := map[string]any{"type": "string"}
	return map[string]any{"type": "object", "required": []any{"snapshot", "columns", "rows", "truncated", "cite_as"},
		"properties": map[string]any{
			"snapshot":  map[string]any{"type": "string", "description": "the snapshot id (Q1, Q2, …) to cite"},
			"columns":   map[string]any{"type": "array", "items": str},
			"rows":      map[string]any{"type": "array", "description": "one array of cells per row, in column order", "items": map[string]any{"type": "array", "items": map[string]any{"type": []any{"string", "number", "boolean", "null"}}}},
			"truncated": map[string]any{"type": "boolean", "description": "the row cap cut the result off"},
			"cite_as":   map[string]any{"type": "string", "description": "how to cite a cell"},
		}}
}

// FlowScopedTool is permission.FlowScoped: whether a flow's own allow
// rule may hold for a tool where no operator rule speaks.
func FlowScopedTool(name string) bool { return permission.FlowScoped(name) }

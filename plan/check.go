package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/hashid"
)

// Diagnostic codes of a plan file that cannot run. A plan is read like a
// flow is linted: every problem is reported, with the line and column in
// the plan file, before anything is created.
const (
	CodeJSON   = "E-PLAN-JSON"   // not JSON, or a field of the wrong type
	CodeFormat = "E-PLAN-FORMAT" // a format this version does not read
	CodeNodes  = "E-PLAN-NODES"  // no nodes; a node without an id or a type; an id used twice
	CodeEdge   = "E-PLAN-EDGE"   // an edge names a node that does not exist
	CodeCycle  = "E-PLAN-CYCLE"  // edges form a cycle
	CodeRange  = "E-PLAN-RANGE"  // a setting out of its range (negative parallel, timeouts…)
)

// IsPlan reports whether b is a compiled plan rather than a flow: a JSON
// object with a "format" key and no "agentlab" key. A flow written in
// JSON syntax (YAML's subset) has "agentlab" and is a flow.
func IsPlan(b []byte) bool {
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		return false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(b, &top) != nil {
		return true // not a flow either; the plan reader says what is wrong
	}
	_, flow := top["agentlab"]
	_, plan := top["format"]
	return plan || !flow
}

// DecodeFile parses and checks the plan file at path (b is its content)
// and returns the plan and its hash, or every problem found, each with
// the line and column of the value at fault.
func DecodeFile(path string, b []byte) (*Plan, hashid.ID, diag.List) {
	var l diag.List
	at := func(off int64) diag.Pos { return offsetPos(b, off) }
	var p Plan
	if err := json.Unmarshal(b, &p); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			l.Errorf(path, at(se.Offset), CodeJSON, "fix the JSON syntax; compile the flow again with agentlab compile FLOW -o "+path,
				"the plan is not valid JSON: %s", se.Error())
		case errors.As(err, &te):
			field := te.Field
			if field == "" {
				field = "the plan"
			}
			l.Errorf(path, at(valueStartBefore(b, te.Offset)), CodeJSON, "give "+field+" a "+jsonKind(te.Type.String())+"; compile the flow again rather than editing the plan",
				"%s is a JSON %s, but it must be a %s", field, te.Value, jsonKind(te.Type.String()))
		default:
			l.Errorf(path, diag.Pos{Line: 1, Col: 1}, CodeJSON, "compile the flow again with agentlab compile FLOW -o "+path, "the plan cannot be read: %v", err)
		}
		return nil, hashid.ID{}, l
	}
	pos := jsonPositions(b)
	where := func(path_ string) diag.Pos {
		if off, ok := pos[path_]; ok {
			return at(off)
		}
		return diag.Pos{Line: 1, Col: 1}
	}
	if p.Format != FormatVersion {
		l.Errorf(path, where("format"), CodeFormat, "compile the flow again with this version: agentlab compile FLOW -o "+path,
			"plan format %d is not supported (this version reads format %d)", p.Format, FormatVersion)
		return nil, hashid.ID{}, l
	}
	if len(p.Nodes) == 0 {
		l.Errorf(path, where("nodes"), CodeNodes, "a plan is compiled from a flow with nodes; compile the flow again",
			"the plan has no nodes: there is nothing to run")
	}
	rng := func(key string, v float64, min float64, what string) {
		if v < min {
			l.Errorf(path, where(key), CodeRange, fmt.Sprintf("set %s to %s or more, or leave it out", what, strconv.FormatFloat(min, 'f', -1, 64)),
				"%s is %s; it cannot be less than %s", what, strconv.FormatFloat(v, 'f', -1, 64), strconv.FormatFloat(min, 'f', -1, 64))
		}
	}
	rng("settings.parallel", float64(p.Settings.Parallel), 0, "settings.parallel")
	rng("settings.run_timeout_s", p.Settings.RunTimeoutS, 0, "settings.run_timeout_s")
	rng("settings.max_graph_steps", float64(p.Settings.MaxGraphSteps), 0, "settings.max_graph_steps")
	rng("settings.row_cap", float64(p.Settings.RowCap), 0, "settings.row_cap")
	checkGraph(&l, path, where, "nodes", "edges", p.Nodes, p.Edges, rng)
	if l.HasErrors() {
		return nil, hashid.ID{}, l
	}
	h, err := p.Hash()
	if err != nil {
		l.Errorf(path, diag.Pos{Line: 1, Col: 1}, CodeJSON, "compile the flow again", "the plan cannot be hashed: %v", err)
		return nil, hashid.ID{}, l
	}
	return &p, h, l
}

// checkGraph checks one graph of a plan (the top level or a loop body):
// node ids and types, edges, cycles and per-node ranges.
func checkGraph(l *diag.List, file string, where func(string) diag.Pos, nodesKey, edgesKey string, nodes []Node, edges []Edge, rng func(string, float64, float64, string)) {
	ids := map[string]int{}
	for i, n := range nodes {
		k := fmt.Sprintf("%s[%d]", nodesKey, i)
		switch {
		case n.ID == "":
			l.Errorf(file, where(k), CodeNodes, "give every node an id", "node %d has no id", i+1)
		case ids[n.ID] > 0:
			l.Errorf(file, where(k+".id"), CodeNodes, "give every node its own id", "node id %q is used twice (also node %d)", n.ID, ids[n.ID])
		default:
			ids[n.ID] = i + 1
		}
		if n.Type == "" {
			l.Errorf(file, where(k), CodeNodes, "give every node a type", "node %q has no type", n.ID)
		}
		rng(k+".timeout_s", n.TimeoutS, 0, "timeout_s of node "+strconv.Quote(n.ID))
		rng(k+".retry.max", float64(n.Retry.Max), 0, "retry.max of node "+strconv.Quote(n.ID))
		rng(k+".retry.backoff_s", n.Retry.BackoffS, 0, "retry.backoff_s of node "+strconv.Quote(n.ID))
		if n.Body != nil {
			checkGraph(l, file, where, k+".body.nodes", k+".body.edges", n.Body.Nodes, n.Body.Edges, rng)
		}
	}
	out := map[string][]string{}
	for i, e := range edges {
		k := fmt.Sprintf("%s[%d]", edgesKey, i)
		for _, end := range []struct{ key, id string }{{"from", e.From}, {"to", e.To}} {
			if ids[end.id] == 0 {
				l.Errorf(file, where(k+"."+end.key), CodeEdge, "connect nodes that exist; compile the flow again",
					"edge %d: %s %q names no node of this graph", i+1, end.key, end.id)
			}
		}
		out[e.From] = append(out[e.From], e.To)
	}
	if cyc := findCycle(nodes, out); len(cyc) > 0 {
		l.Errorf(file, where(edgesKey), CodeCycle, "remove an edge of the cycle; to repeat steps, put them in the body of a loop node",
			"edges form a cycle: %s", strings.Join(cyc, " -> "))
	}
}

// findCycle returns one cycle of the graph (first node repeated at the
// end), or nil.
func findCycle(nodes []Node, out map[string][]string) []string {
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var stack []string
	var found []string
	var visit func(id string) bool
	visit = func(id string) bool {
		color[id] = grey
		stack = append(stack, id)
		for _, next := range out[id] {
			switch color[next] {
			case grey:
				for i, s := range stack {
					if s == next {
						found = append(append([]string{}, stack[i:]...), next)
						return true
					}
				}
			case white:
				if visit(next) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[id] = black
		return false
	}
	for _, n := range nodes {
		if color[n.ID] == white && visit(n.ID) {
			return found
		}
	}
	return nil
}

// jsonKind names a Go type as the JSON kind it decodes from.
func jsonKind(goType string) string {
	switch {
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "uint"):
		return "whole number"
	case strings.HasPrefix(goType, "float"):
		return "number"
	case goType == "string":
		return "string"
	case goType == "bool":
		return "boolean"
	case strings.HasPrefix(goType, "[]"):
		return "list"
	case strings.HasPrefix(goType, "map["), strings.Contains(goType, "."):
		return "object"
	}
	return goType
}

// valueStartBefore returns where the scalar JSON value that ends at off
// starts (encoding/json reports type errors at the end of the value).
func valueStartBefore(b []byte, end int64) int64 {
	if end > int64(len(b)) {
		end = int64(len(b))
	}
	i := end - 1
	if i < 0 {
		return 0
	}
	if b[i] == '"' {
		for i--; i >= 0; i-- {
			if b[i] == '"' && (i == 0 || b[i-1] != '\\') {
				return i
			}
		}
		return 0
	}
	for i >= 0 && strings.IndexByte("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.+-", b[i]) >= 0 {
		i--
	}
	return i + 1
}

// offsetPos turns a byte offset of b into a 1-based line and column
// (columns count bytes).
func offsetPos(b []byte, off int64) diag.Pos {
	if off < 0 {
		off = 0
	}
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	line := 1 + bytes.Count(b[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(b[:off], '\n')
	return diag.Pos{Line: line, Col: col}
}

// jsonPositions maps the path of every value in the JSON text b (keys
// joined with '.', list items as [i]) to the offset where the value
// starts, so that a check on the decoded plan can point into the file.
func jsonPositions(b []byte) map[string]int64 {
	pos := map[string]int64{}
	dec := json.NewDecoder(bytes.NewReader(b))
	type frame struct {
		path  string
		isObj bool
		index int
		key   string
	}
	var stack []*frame
	valueStart := func() int64 {
		off := dec.InputOffset()
		for off < int64(len(b)) && (b[off] == ' ' || b[off] == '\t' || b[off] == '\n' || b[off] == '\r' || b[off] == ':' || b[off] == ',') {
			off++
		}
		return off
	}
	childPath := func() string {
		if len(stack) == 0 {
			return ""
		}
		f := stack[len(stack)-1]
		if f.isObj {
			if f.path == "" {
				return f.key
			}
			return f.path + "." + f.key
		}
		return fmt.Sprintf("%s[%d]", f.path, f.index)
	}
	expectKey := func() bool {
		if len(stack) == 0 {
			return false
		}
		f := stack[len(stack)-1]
		return f.isObj && f.key == ""
	}
	afterValue := func() {
		if len(stack) == 0 {
			return
		}
		f := stack[len(stack)-1]
		if f.isObj {
			f.key = ""
		} else {
			f.index++
		}
	}
	for {
		start := valueStart()
		tok, err := dec.Token()
		if err != nil {
			return pos
		}
		if s, ok := tok.(string); ok && expectKey() {
			stack[len(stack)-1].key = s
			continue
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			p := childPath()
			pos[p] = start
			stack = append(stack, &frame{path: p, isObj: tok == json.Delim('{')})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			afterValue()
		default:
			pos[childPath()] = start
			afterValue()
		}
	}
}

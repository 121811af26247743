package provider

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/internal/lazyre"
	"gopkg.in/yaml.v3"
)

// Diagnostic codes of script files (documented in docs/providers.md).
const (
	CodeScriptRead     = "E-SCRIPT-READ"     // the file cannot be read
	CodeScriptYAML     = "E-SCRIPT-YAML"     // not valid YAML (or JSON)
	CodeScriptEmpty    = "E-SCRIPT-EMPTY"    // an empty file, response list or response
	CodeScriptShape    = "E-SCRIPT-SHAPE"    // a value of the wrong kind
	CodeScriptKey      = "E-SCRIPT-KEY"      // an unknown key
	CodeScriptDup      = "E-SCRIPT-DUP"      // a key given twice
	CodeScriptJSON     = "E-SCRIPT-JSON"     // json/args that are not valid JSON (args: not an object)
	CodeScriptConflict = "E-SCRIPT-CONFLICT" // keys that cannot go together in one response
	CodeScriptNode     = "W-SCRIPT-NODE"     // a scripted node the flow does not have
)

// ScriptResponse is one canned answer.
type ScriptResponse struct {
	Text      string
	ToolCalls []ToolCall
	// Error, when set, makes the call fail with a *CallError carrying this
	// message; Retryable (default true) is copied into it.
	Error      string
	Retryable  bool
	Usage      *Usage
	StopReason string
	// Pos is where the response is written, for messages.
	Pos diag.Pos
}

// scriptTopKeys, responseKeys, toolCallKeys and usageKeys are the keys each
// mapping of a script file may have.
var (
	scriptTopKeys = []string{"nodes", "questions", "default"}
	responseKeys  = []string{"text", "json", "tool_calls", "error", "retryable", "usage", "stop_reason"}
	toolCallKeys  = []string{"id", "name", "args", "raw_args"}
	usageKeys     = []string{"input_tokens", "output_tokens", "cost_usd"}
)

// scriptParser collects every mistake of one file instead of stopping at
// the first.
type scriptParser struct {
	file  string
	diags diag.List
}

func (p *scriptParser) errorf(n *yaml.Node, code, fix, format string, args ...any) {
	p.diags.Errorf(p.file, pos(n), code, fix, format, args...)
}

func pos(n *yaml.Node) diag.Pos {
	if n == nil {
		return diag.Pos{}
	}
	return diag.Pos{Line: n.Line, Col: n.Column}
}

// yamlErrLine finds the position yaml.v3 writes into its error messages.
var yamlErrLine = lazyre.New(`line (\d+)(?:: column (\d+))?`)

// ParseScript reads a script file's bytes. It returns the script, or the
// diagnostics of every mistake found (the script is then nil).
func ParseScript(file string, data []byte) (*Script, diag.List) {
	p := &scriptParser{file: file}
	s := p.parse(data)
	if p.diags.HasErrors() {
		return nil, p.diags.Sorted()
	}
	return s, p.diags.Sorted()
}

func (p *scriptParser) parse(data []byte) *Script {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			p.diags.Errorf(p.file, diag.Pos{Line: 1, Col: 1}, CodeScriptEmpty,
				"write a mapping with nodes: (responses per node id) and optionally default:",
				"script file is empty")
			return nil
		}
		p.yamlError(err)
		return nil
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		p.errorf(&extra, CodeScriptShape, "remove the second document (the line with ---) or move its entries into the first",
			"script file has more than one YAML document")
	case !errors.Is(err, io.EOF):
		p.yamlError(err)
	}
	if len(doc.Content) == 0 {
		return nil
	}
	root := resolveAlias(doc.Content[0])
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		p.errorf(root, CodeScriptEmpty, "write a mapping with nodes: (responses per node id) and optionally default:", "script file is empty")
		return nil
	}
	if root.Kind != yaml.MappingNode {
		p.errorf(root, CodeScriptShape, "the file must be a mapping with nodes: and optionally default:",
			"script file must be a mapping, found %s", kindName(root))
		return nil
	}
	s := &Script{File: p.file, Nodes: map[string][]ScriptResponse{}, NodePos: map[string]diag.Pos{}}
	p.mapping(root, scriptTopKeys, "the top level", func(key string, k, v *yaml.Node) {
		switch key {
		case "nodes":
			p.nodes(s, v)
		case "questions":
			p.questions(s, v)
		case "default":
			if v.Kind == yaml.SequenceNode {
				p.errorf(v, CodeScriptShape, "give default: one response (a string or a mapping with text:)",
					"default must be one response, found a list")
				return
			}
			if r, ok := p.response(v); ok {
				s.Default = &r
			}
		}
	})
	return s
}

func (p *scriptParser) yamlError(err error) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	at := diag.Pos{}
	if m := yamlErrLine.FindStringSubmatch(msg); m != nil {
		at.Line, _ = strconv.Atoi(m[1])
		at.Col = 1
		if m[2] != "" {
			at.Col, _ = strconv.Atoi(m[2])
		}
		msg = strings.TrimPrefix(strings.TrimPrefix(msg, m[0]), ": ")
	}
	p.diags.Errorf(p.file, at, CodeScriptYAML, "fix the YAML syntax at this line (JSON files must be valid JSON)",
		"script file is not valid YAML: %s", msg)
}

// mapping walks a mapping node, reporting duplicate and unknown keys, and
// calls visit for every allowed key. It returns how many keys were unknown.
func (p *scriptParser) mapping(n *yaml.Node, allowed []string, where string, visit func(key string, k, v *yaml.Node)) int {
	seen := map[string]*yaml.Node{}
	unknown := 0
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolveAlias(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			p.errorf(k, CodeScriptShape, "use a plain word as the key", "key in %s must be a plain word, found %s", where, kindName(k))
			continue
		}
		if first, dup := seen[k.Value]; dup {
			p.errorf(k, CodeScriptDup, "remove one of the two entries",
				"key %q in %s is given twice (first at line %d, column %d)", k.Value, where, first.Line, first.Column)
			continue
		}
		seen[k.Value] = k
		if allowed != nil && !containsStr(allowed, k.Value) {
			fix := "allowed keys are " + strings.Join(allowed, ", ")
			if s := closest(k.Value, allowed); s != "" {
				fix = fmt.Sprintf("did you mean %q? %s", s, fix)
			}
			p.errorf(k, CodeScriptKey, fix, "unknown key %q in %s", k.Value, where)
			unknown++
			continue
		}
		visit(k.Value, k, v)
	}
	return unknown
}

// questions reads questions: — per eval question id, responses per node
// id, written like nodes:.
func (p *scriptParser) questions(s *Script, n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		p.errorf(n, CodeScriptShape, "write questions: as a mapping from eval question id to node responses",
			"questions must be a mapping from question id to node responses, found %s", kindName(n))
		return
	}
	s.Questions = map[string]*Script{}
	p.mapping(n, nil, "questions", func(id string, k, v *yaml.Node) {
		sub := &Script{File: s.File, Nodes: map[string][]ScriptResponse{}, NodePos: map[string]diag.Pos{}}
		p.nodes(sub, v)
		s.Questions[id] = sub
	})
}

func (p *scriptParser) nodes(s *Script, n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			return // "nodes:" with nothing under it
		}
		p.errorf(n, CodeScriptShape, "write nodes: as a mapping from node id to its responses",
			"nodes must be a mapping from node id to responses, found %s", kindName(n))
		return
	}
	p.mapping(n, nil, "nodes", func(id string, k, v *yaml.Node) {
		if id == "" {
			p.errorf(k, CodeScriptShape, "write the node id as the key", "node id is empty")
			return
		}
		s.NodePos[id] = pos(k)
		if v.Kind != yaml.SequenceNode {
			if r, ok := p.response(v); ok {
				s.Nodes[id] = []ScriptResponse{r}
			}
			return
		}
		if len(v.Content) == 0 {
			p.errorf(v, CodeScriptEmpty, "give at least one response, or remove the node",
				"node %q has an empty response list", id)
			return
		}
		var list []ScriptResponse
		ok := true
		for _, item := range v.Content {
			item = resolveAlias(item)
			if item.Kind == yaml.SequenceNode {
				p.errorf(item, CodeScriptShape, "each list entry is one response: a string or a mapping with text:, json:, tool_calls: or error:",
					"response of node %q is a list; lists cannot be nested", id)
				ok = false
				continue
			}
			r, rok := p.response(item)
			ok = ok && rok
			list = append(list, r)
		}
		if ok {
			s.Nodes[id] = list
		}
	})
}

// response reads one response: a string (its text) or a mapping.
func (p *scriptParser) response(n *yaml.Node) (ScriptResponse, bool) {
	r := ScriptResponse{Pos: pos(n), Retryable: true}
	before := len(p.diags)
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			p.errorf(n, CodeScriptEmpty, `write text: "" for an empty answer`, "response is empty")
			return r, false
		}
		r.Text = n.Value
		return r, true
	case yaml.MappingNode:
	default:
		p.errorf(n, CodeScriptShape, "write a string, or a mapping with text:, json:, tool_calls: or error:",
			"response must be a string or a mapping, found %s", kindName(n))
		return r, false
	}
	has := map[string]*yaml.Node{}
	unknown := p.mapping(n, responseKeys, "a response", func(key string, k, v *yaml.Node) {
		has[key] = k
		switch key {
		case "text":
			if s, ok := p.scalar(v, "text"); ok {
				r.Text = s
			}
		case "json":
			b, err := yamlToJSON(v)
			if err != nil {
				p.errorf(v, CodeScriptJSON, "write a value JSON can hold: string keys, finite numbers", "json value cannot be written as JSON: %v", err)
				return
			}
			r.Text = string(b)
		case "tool_calls":
			p.toolCalls(&r, v)
		case "error":
			if s, ok := p.scalar(v, "error"); ok {
				r.Error = s
				if s == "" {
					p.errorf(v, CodeScriptEmpty, "write the failure message, as in error: \"rate limited\"", "error message is empty")
				}
			}
		case "retryable":
			var b bool
			if v.Kind != yaml.ScalarNode || v.Decode(&b) != nil {
				p.errorf(v, CodeScriptShape, "write retryable: true or retryable: false", "retryable must be true or false, found %s", describe(v))
				return
			}
			r.Retryable = b
		case "usage":
			p.usage(&r, v)
		case "stop_reason":
			if s, ok := p.scalar(v, "stop_reason"); ok {
				r.StopReason = s
			}
		}
	})
	switch {
	case has["text"] != nil && has["json"] != nil:
		p.errorf(has["json"], CodeScriptConflict, "keep either text: or json:", "a response cannot have both text: and json:")
	case has["error"] != nil:
		for _, other := range []string{"text", "json", "tool_calls", "usage", "stop_reason"} {
			if k := has[other]; k != nil {
				p.errorf(k, CodeScriptConflict, "a failing call returns nothing: remove "+other+": or error:",
					"a response with error: cannot also have %s:", other)
			}
		}
	case has["retryable"] != nil:
		p.errorf(has["retryable"], CodeScriptConflict, "add error: \"…\" or remove retryable:", "retryable: only applies to a response with error:")
	case has["text"] == nil && has["json"] == nil && has["tool_calls"] == nil && unknown == 0:
		p.errorf(n, CodeScriptEmpty, "add text:, json:, tool_calls: or error:", "response has no text:, json:, tool_calls: or error:")
	}
	return r, len(p.diags) == before
}

func (p *scriptParser) toolCalls(r *ScriptResponse, n *yaml.Node) {
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, CodeScriptShape, "write tool_calls: as a list, as in [{name: db_query__sales, args: {sql: \"SELECT 1\"}}]",
			"tool_calls must be a list, found %s", kindName(n))
		return
	}
	if len(n.Content) == 0 {
		p.errorf(n, CodeScriptEmpty, "list at least one call, or remove tool_calls:", "tool_calls is empty")
		return
	}
	for _, item := range n.Content {
		item = resolveAlias(item)
		if item.Kind != yaml.MappingNode {
			p.errorf(item, CodeScriptShape, "write each call as a mapping with name: and args:", "tool call must be a mapping, found %s", kindName(item))
			continue
		}
		tc := ToolCall{Args: json.RawMessage("{}")}
		var nameKey, argsKey bool
		var rawArgs *yaml.Node
		p.mapping(item, toolCallKeys, "a tool call", func(key string, k, v *yaml.Node) {
			switch key {
			case "id":
				if s, ok := p.scalar(v, "id"); ok {
					tc.ID = s
				}
			case "name":
				nameKey = true
				if s, ok := p.scalar(v, "name"); ok {
					tc.Name = s
					if s == "" {
						p.errorf(v, CodeScriptEmpty, "write the tool's name", "tool name is empty")
					}
				}
			case "args":
				argsKey = true
				if a, ok := p.args(v); ok {
					tc.Args = a
				}
			case "raw_args":
				// Sent exactly as written, valid JSON or not: a model's
				// malformed call, to test how a flow copes with one.
				if s, ok := p.scalar(v, "raw_args"); ok {
					tc.Args = json.RawMessage(s)
					rawArgs = v
				}
			}
		})
		if rawArgs != nil && argsKey {
			p.errorf(rawArgs, CodeScriptConflict, "keep args: or raw_args:", "a tool call has both args: and raw_args:")
		}
		if !nameKey {
			p.errorf(item, CodeScriptShape, "add name: with the tool to call", "tool call has no name:")
		}
		r.ToolCalls = append(r.ToolCalls, tc)
	}
}

// args reads a tool call's arguments: a mapping, or a string holding a JSON
// object.
func (p *scriptParser) args(n *yaml.Node) (json.RawMessage, bool) {
	fix := "write args: as a mapping, as in {sql: \"SELECT 1\"}, or a string holding a JSON object"
	var b []byte
	var err error
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!null":
		return json.RawMessage("{}"), true
	case n.Kind == yaml.ScalarNode && n.Tag == "!!str":
		b, err = canon.Canonicalize([]byte(n.Value))
	case n.Kind == yaml.MappingNode:
		b, err = yamlToJSON(n)
	default:
		p.errorf(n, CodeScriptJSON, fix, "args must be a mapping or a JSON object string, found %s", kindName(n))
		return nil, false
	}
	if err != nil {
		p.errorf(n, CodeScriptJSON, fix, "args are not valid JSON: %v", err)
		return nil, false
	}
	if len(b) == 0 || b[0] != '{' {
		p.errorf(n, CodeScriptJSON, fix, "args must be a JSON object, found %s", b)
		return nil, false
	}
	return json.RawMessage(b), true
}

func (p *scriptParser) usage(r *ScriptResponse, n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		p.errorf(n, CodeScriptShape, "write usage: {input_tokens: 10, output_tokens: 5, cost_usd: 0.001}",
			"usage must be a mapping, found %s", kindName(n))
		return
	}
	u := Usage{}
	p.mapping(n, usageKeys, "usage", func(key string, k, v *yaml.Node) {
		var f float64
		if v.Kind != yaml.ScalarNode || v.Decode(&f) != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
			p.errorf(v, CodeScriptShape, "write a number of zero or more", "%s must be a number of zero or more, found %s", key, describe(v))
			return
		}
		switch key {
		case "input_tokens", "output_tokens":
			if f != math.Trunc(f) || f > math.MaxInt32 {
				p.errorf(v, CodeScriptShape, "write a whole number of tokens", "%s must be a whole number, found %s", key, v.Value)
				return
			}
			if key == "input_tokens" {
				u.InputTokens = int(f)
			} else {
				u.OutputTokens = int(f)
			}
		case "cost_usd":
			u.CostUSD = f
		}
	})
	r.Usage = &u
}

// scalar reads a string-like scalar (numbers and booleans are taken as
// written).
func (p *scriptParser) scalar(n *yaml.Node, key string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		p.errorf(n, CodeScriptShape, fmt.Sprintf("write %s: as a string", key), "%s must be a string, found %s", key, describe(n))
		return "", false
	}
	return n.Value, true
}

// yamlToJSON converts a YAML value to canonical JSON.
func yamlToJSON(n *yaml.Node) ([]byte, error) {
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, err
	}
	return canon.Marshal(v)
}

// resolveAlias follows alias nodes to the anchored value.
func resolveAlias(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		return "a single value"
	case yaml.AliasNode:
		return "an alias"
	case yaml.DocumentNode:
		return "a document"
	}
	return "an unknown value"
}

func describe(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		return strconv.Quote(n.Value)
	}
	return kindName(n)
}

func containsStr(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

package tools

import (
	"context"
	"encoding/json"
	"fmt"
)

// Effect is what a tool does to the world outside the run.
type Effect string

const (
	// Read tools only observe (files, HTTP GET, queries).
	Read Effect = "read"
	// Write tools change something (send a request that modifies, write a
	// file, run a command with side effects). Agents may not use them.
	Write Effect = "write"
	// Depends marks a tool whose effect depends on its arguments (an HTTP
	// tool whose method is an argument). It must implement EffectResolver;
	// each call is judged by its own effect.
	Depends Effect = "depends"
)

// Valid reports whether e is one of the three effects.
func (e Effect) Valid() bool { return e == Read || e == Write || e == Depends }

// Info is a tool's description of itself: what the model is shown and
// what the registry checks.
type Info struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Schema      map[string]any `json:"schema"` // JSON Schema of the arguments object
	Effect      Effect         `json:"effect"`
	// Output is the JSON Schema of what a call returns to a model, when
	// the tool knows it (code mode shows it as the result type).
	Output map[string]any `json:"output,omitempty"`
}

// Tool is one callable tool. Call receives arguments that have already
// been validated against Info().Schema.
type Tool interface {
	Info() Info
	Call(ctx context.Context, args json.RawMessage) (*Result, error)
}

// EffectResolver is implemented by tools declared with effect Depends.
type EffectResolver interface {
	EffectOf(args json.RawMessage) Effect
}

// Result is what a tool returns. Text is what a model is shown; Value is
// the structured result a tool node assigns (JSON-encodable).
type Result struct {
	Text      string         `json:"text"`
	Value     any            `json:"value,omitempty"`
	Truncated bool           `json:"truncated,omitempty"`
	Meta      map[string]any `json:"meta,omitempty"`
}

// Caller says who calls a tool: agents may not use write tools.
type Caller int

const (
	// FromToolNode is a `tool` node of the flow: any effect.
	FromToolNode Caller = iota
	// FromAgent is a model's tool call inside an agent loop: read only.
	FromAgent
)

func (c Caller) String() string {
	if c == FromAgent {
		return "agent"
	}
	return "tool node"
}

// Error codes of tool refusals. They are stable and listed in
// docs/security.md.
const (
	CodeUnknown = "E-TOOL-UNKNOWN" // no tool of that name
	CodeArgs    = "E-TOOL-ARGS"    // arguments do not match the schema
	CodeEffect  = "E-TOOL-EFFECT"  // a write tool used by an agent
	CodeJail    = "E-TOOL-JAIL"    // a path outside the workspace
	CodeSSRF    = "E-TOOL-SSRF"    // a refused network destination
	CodeDecl    = "E-TOOL-DECL"    // a bad tool declaration
	// CodeSecretHost is a secret a custom tool would send to a host the
	// operator did not bind it to (or a secret bound to no host).
	CodeSecretHost = "E-TOOL-SECRET-HOST"
)

// Refusal is a tool call refused before or instead of running. The engine
// records Code and Reason in the tool.result event and gives the model
// Reason and Fix so that it can correct itself.
type Refusal struct {
	Tool   string `json:"tool"`
	Code   string `json:"code"`
	Reason string `json:"reason"`
	Fix    string `json:"fix,omitempty"`
}

func (r *Refusal) Error() string {
	msg := fmt.Sprintf("%s: %s: %s", r.Code, r.Tool, r.Reason)
	if r.Fix != "" {
		msg += "; " + r.Fix
	}
	return msg
}

func refuse(tool, code, fix, format string, args ...any) *Refusal {
	return &Refusal{Tool: tool, Code: code, Reason: fmt.Sprintf(format, args...), Fix: fix}
}

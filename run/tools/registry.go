package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/internal/lazyre"
)

// toolName is the shape of a tool name: what every model provider accepts.
var toolName = lazyre.New(`^[a-zA-Z][a-zA-Z0-9_-]{0,63}$`)

// Registry holds the tools of one run. It is safe for concurrent use.
type Registry struct {
	mu    sync.RWMutex
	tools map[string]*entry
}

type entry struct {
	tool   Tool
	info   Info
	schema *argSchema
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{tools: map[string]*entry{}} }

// Clone returns a registry holding the same tools, to which more can be
// added without touching r (the built-in tools of a session's runs).
func (r *Registry) Clone() *Registry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	c := &Registry{tools: make(map[string]*entry, len(r.tools)+4)}
	for k, e := range r.tools {
		c.tools[k] = e
	}
	return c
}

// Register adds t. Its name must be unique and well formed, its effect
// declared, and its schema must compile; a Depends tool must implement
// EffectResolver.
func (r *Registry) Register(t Tool) error {
	info := t.Info()
	fail := func(format string, args ...any) error {
		return refuse(info.Name, CodeDecl, "", format, args...)
	}
	if !toolName.MatchString(info.Name) {
		return fail("tool name %q is not valid: use letters, digits, _ and -, starting with a letter, at most 64 characters", info.Name)
	}
	if !info.Effect.Valid() {
		return fail("effect %q is not one of read, write, depends", info.Effect)
	}
	if info.Effect == Depends {
		if _, ok := t.(EffectResolver); !ok {
			return fail("declares effect depends but cannot tell the effect of a call")
		}
	}
	s, err := compileSchema(info.Name, info.Schema)
	if err != nil {
		return fail("%v", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.tools[info.Name]; dup {
		return fail("a tool named %q is already registered", info.Name)
	}
	r.tools[info.Name] = &entry{tool: t, info: info, schema: s}
	return nil
}

// Get returns the tool named name.
func (r *Registry) Get(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.tools[name]
	if !ok {
		return nil, false
	}
	return e.tool, true
}

// Names lists the registered tools, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.tools))
	for n := range r.tools {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Infos describes the named tools (all when names is nil), sorted by name,
// so that the declarations given to a model are byte-identical run to run.
func (r *Registry) Infos(names []string) []Info {
	if names == nil {
		names = r.Names()
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []Info
	for _, n := range names {
		if e, ok := r.tools[n]; ok {
			out = append(out, e.info)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ForAgent returns the tools an agent node lists, refusing unknown names
// and every tool that writes: agents only read. Tools whose effect
// depends on the arguments are admitted; each of their calls is checked
// by Call.
func (r *Registry) ForAgent(names []string) ([]Tool, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []Tool
	var problems []string
	for _, n := range names {
		e, ok := r.tools[n]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%q is not a known tool%s", n, r.suggestLocked(n)))
		case e.info.Effect == Write:
			problems = append(problems, fmt.Sprintf("%q writes (effect: write) and agents may only use read tools; call it from a `type: tool` node instead", n))
		default:
			out = append(out, e.tool)
		}
	}
	if len(problems) > 0 {
		return nil, &Refusal{Tool: strings.Join(names, ","), Code: CodeEffect, Reason: "agent tools refused: " + strings.Join(problems, "; "),
			Fix: "remove these tools from the agent's tools list"}
	}
	return out, nil
}

// suggestLocked names known tools close to n, for an error message.
func (r *Registry) suggestLocked(n string) string {
	var near []string
	for k := range r.tools {
		if strings.Contains(k, n) || strings.Contains(n, k) || diag.EditDistance(strings.ToLower(k), strings.ToLower(n)) <= 2 {
			near = append(near, k)
		}
	}
	sort.Strings(near)
	if len(near) == 0 {
		return ""
	}
	return " (did you mean " + strings.Join(near, ", ") + "?)"
}

// Call runs the named tool for caller after validating args against its
// schema and checking its effect for this call. A refusal is a *Refusal.
func (r *Registry) Call(ctx context.Context, caller Caller, name string, args json.RawMessage) (*Result, error) {
	r.mu.RLock()
	e, ok := r.tools[name]
	var near string
	if !ok {
		near = r.suggestLocked(name)
	}
	r.mu.RUnlock()
	if !ok {
		return nil, refuse(name, CodeUnknown, "call one of the declared tools", "no tool named %q%s", name, near)
	}
	if err := e.schema.validate(args); err != nil {
		return nil, refuse(name, CodeArgs, "call it again with arguments that match its schema", "%v", err)
	}
	if caller == FromAgent {
		eff := e.info.Effect
		if eff == Depends {
			eff = e.tool.(EffectResolver).EffectOf(args)
		}
		if eff != Read {
			return nil, refuse(name, CodeEffect, "agents may only read; do this from a `type: tool` node",
				"this call writes (effect %s) and agents may only make read calls", eff)
		}
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	return redactResult(e.tool.Call(ctx, args))
}

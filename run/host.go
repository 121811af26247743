package run

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run/engine"
	"github.com/agentlab/agentlab/run/permission"
	"github.com/agentlab/agentlab/run/provider"
	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/run/tools"
	"github.com/agentlab/agentlab/run/tools/mcp"
)

// EnvMaxAgentSteps caps every agent's step backstop on this machine.
const EnvMaxAgentSteps = "AGENTLAB_MAX_AGENT_STEPS"

// newHost builds what agent, code and human nodes use from the setup
// prepare checked before the run was created: the workspace file tools
// over the flow's directory, http_fetch and the plan's custom tools, the
// tools of the MCP servers the plan names (started here), the permission
// checker from the nearest agentlab.toml with the remembered decisions of
// <data-dir>/permissions.json, a work directory under the run, the run
// clock and the prompts the person at the terminal allowed. The MCP
// servers live until the returned close function runs.
func newHost(ctx context.Context, rl *runlog.Run, cp checkpoint, p *plan.Plan, prov provider.Provider, ia Interaction, s *setup) (engine.Host, func(), error) {
	h := engine.Host{
		WorkDir: filepath.Join(rl.Dir(), "work"),
		Yes:     ia.Yes,
		Ask:     ia.Ask,
		Now: func() time.Time {
			t, err := time.Parse(chain.TimeLayout, rl.Now())
			if err != nil {
				return time.Now().UTC()
			}
			return t
		},
		MaxAgentSteps: s.maxSteps,
		Sandbox:       s.sandbox,
	}
	closers := []func(){}
	closeAll := func() {
		for _, c := range closers {
			c()
		}
	}
	var reg *tools.Registry
	if s.keepTools {
		// A session's runs share the built-in tools, made once per setup.
		if s.builtins == nil {
			b, closeWS, err := builtinTools(cp, s)
			if err != nil {
				return h, func() {}, err
			}
			s.builtins, s.closeBuiltins = b, closeWS
		}
		reg = s.builtins.Clone()
	} else {
		b, closeWS, err := builtinTools(cp, s)
		if err != nil {
			return h, func() {}, err
		}
		closers = append(closers, closeWS)
		reg = b
	}
	if err := registerCustomTools(reg, p, s.fetcher, h.WorkDir, s.secrets, s.sandbox); err != nil {
		closeAll()
		return h, func() {}, err
	}
	h.Tools = reg
	perm := s.perm
	if prov != nil {
		perm.gate = modelGate(prov, cp.Model, cp.Seed)
	}
	clients, err := startMCP(ctx, rl, s.mcp, reg)
	for _, c := range clients {
		closers = append(closers, func() { c.Close() })
	}
	if err != nil {
		closeAll()
		return h, func() {}, err
	}
	perm.cfg.Modes = mcp.MergeModes(perm.cfg.Modes, clients...)
	h.Permission = perm
	h.PTC = s.ptc
	return h, closeAll, nil
}

// builtinTools registers the tools every run has: the workspace file tools
// over the flow's directory (when it has one) and http_fetch. The returned
// function closes the workspace.
func builtinTools(cp checkpoint, s *setup) (*tools.Registry, func(), error) {
	reg := tools.NewRegistry()
	closeWS := func() {}
	if cp.BaseDir != "" {
		if ws, err := tools.OpenWorkspace(cp.BaseDir); err == nil {
			closeWS = func() { ws.Close() }
			s.perm.ws = ws
			for _, t := range tools.FileTools(ws, tools.FileLimits{}) {
				if err := reg.Register(t); err != nil {
					closeWS()
					return nil, func() {}, err
				}
			}
		}
	}
	if err := reg.Register(tools.HTTPFetch(s.fetcher)); err != nil {
		closeWS()
		return nil, func() {}, err
	}
	return reg, closeWS, nil
}

// GateNode names the permission gate's model calls (a script provider
// answers them under this id).
const GateNode = provider.PermissionGateNode

// gateSystem tells the gate model what to judge.
const gateSystem = "You are the permission gate of an automated agent. Judge one tool call from its tool name and arguments. " +
	"Answer with exactly one word: allow when the call is plainly within what the tool is for and harmless; " +
	"deny when it could destroy or leak data, reach private or internal systems, or act beyond the task; unsure otherwise."

// modelGate judges the calls of tools whose approval mode is gated with
// one call of the run's model, answering one of allow, deny or unsure.
// Anything but allow or deny (and an error) sends the call to a person,
// as the checker decides.
func modelGate(prov provider.Provider, model string, seed int64) permission.Gate {
	var mu sync.Mutex
	calls := 0
	return func(ctx context.Context, tool string, args json.RawMessage) (string, error) {
		mu.Lock()
		n := calls
		calls++
		mu.Unlock()
		zero := 0.0
		resp, err := prov.Complete(ctx, provider.Request{
			Node: GateNode, Call: n, Kind: provider.KindJudge, Model: model, Seed: seed,
			System:      gateSystem,
			Messages:    []provider.Message{{Role: "user", Content: "Tool: " + tool + "\nArguments (JSON): " + string(args)}},
			Labels:      []string{"allow", "deny", "unsure"},
			Temperature: &zero, MaxTokens: 16,
		}, nil)
		if err != nil {
			return "", err
		}
		return resp.Text, nil
	}
}

// fetchConfig reads the [http_fetch] table (allow-list, opened ranges,
// caps) of the agentlab.toml nearest the flow; none gives the defaults.
func fetchConfig(baseDir string) (tools.FetchConfig, error) {
	if baseDir == "" {
		return tools.FetchConfig{}, nil
	}
	file := provider.ProjectConfigFile(baseDir)
	if file == "" {
		return tools.FetchConfig{}, nil
	}
	data, err := fsutil.ReadConfigFile(file)
	if err != nil {
		return tools.FetchConfig{}, usage("cannot read %s: %v", file, err)
	}
	cfg, ds := tools.ParseFetchConfig(file, data)
	if ds.HasErrors() {
		return tools.FetchConfig{}, configError("[http_fetch]", ds)
	}
	return cfg, nil
}

// EvMCPWarning records a tool of an MCP server that was left out (its
// input schema does not compile), so that an agent refused it can be
// explained.
const EvMCPWarning = "mcp.warning"

// selectMCP reads the MCP servers declared in the user's config.toml and
// the project's nearest agentlab.toml (the user's entry of a name wins) and picks those whose
// tools the plan names. The [mcp] tables are read only when the plan names
// an MCP tool, so that a broken one cannot fail a run that does not need
// it; a tool of a server no file declares is a usage error.
func selectMCP(baseDir string, p *plan.Plan) ([]mcp.ServerSpec, error) {
	names := planToolNames(p)
	want := false
	for _, n := range names {
		if strings.HasPrefix(n, mcp.Prefix) {
			want = true
		}
	}
	if !want {
		return nil, nil
	}
	// The user's servers first: a project file cannot replace a server the
	// user declared (and with it the program that runs and its tools).
	files := []string{provider.UserConfigFile()}
	if baseDir != "" {
		if f := provider.ProjectConfigFile(baseDir); f != "" {
			files = append(files, f)
		}
	}
	var lists [][]mcp.ServerSpec
	for _, file := range files {
		if file == "" {
			continue
		}
		specs, ds := mcp.LoadConfig(file)
		if ds.HasErrors() {
			return nil, configError("[mcp]", ds)
		}
		lists = append(lists, specs)
	}
	use, unknown := mcp.Select(mcp.Merge(lists...), names)
	if len(unknown) > 0 {
		return nil, usage("the flow uses tools of the MCP server(s) %s, which no [[mcp.servers]] entry declares; declare them in agentlab.toml (see docs/mcp.md)", strings.Join(unknown, ", "))
	}
	return use, nil
}

// startMCP starts the MCP servers selectMCP picked and registers their
// tools. The clients started so far are returned even with an error, for
// the caller to close.
func startMCP(ctx context.Context, rl *runlog.Run, use []mcp.ServerSpec, reg *tools.Registry) ([]*mcp.Client, error) {
	var clients []*mcp.Client
	for _, spec := range use {
		c, err := mcp.Start(ctx, spec)
		if err != nil {
			return clients, err
		}
		clients = append(clients, c)
		for _, t := range c.Tools() {
			if err := reg.Register(t); err != nil {
				return clients, err
			}
		}
		for _, w := range c.Warnings() {
			if _, err := rl.Append(EvMCPWarning, "", map[string]any{"server": spec.Name, "message": w}); err != nil {
				return clients, err
			}
		}
	}
	return clients, nil
}

// planToolNames lists the tool names a plan mentions: agents' and
// supervisor workers' `tools` lists and tool nodes' `tool`, in loop
// bodies and subflows too.
func planToolNames(p *plan.Plan) []string {
	var out []string
	var walkV func(k string, v any)
	walkV = func(k string, v any) {
		switch x := v.(type) {
		case string:
			if k == "tool" || k == "tools" {
				out = append(out, x)
			}
		case []any:
			for _, e := range x {
				walkV(k, e)
			}
		case map[string]any:
			for kk, e := range x {
				walkV(kk, e)
			}
		}
	}
	var walk func(nodes []plan.Node)
	walk = func(nodes []plan.Node) {
		for _, n := range nodes {
			walkV("", n.Spec)
			if n.Body != nil {
				walk(n.Body.Nodes)
			}
		}
	}
	if p != nil {
		walk(p.Nodes)
		for _, sp := range p.Subflows {
			out = append(out, planToolNames(sp)...)
		}
	}
	return out
}

// permissions adapts run/permission to the engine: one checker per node
// (the operator's rules — the project's agentlab.toml and the user's
// config.toml — with the node's own `permissions` as flow rules that may
// only narrow them), sharing one memory of remembered exact-call
// decisions.
type permissions struct {
	cfg     permission.Config
	file    string
	gate    permission.Gate // judges the calls of tools in mode gated
	mem     *permission.Memory
	memFile string // where mem is saved; "" keeps it in memory
	// memWarning says why the remembered decisions of memFile were not
	// used (edited by hand, an older form); "" when they were.
	memWarning string
	prompter   permission.Prompter
	yes        bool
	ws         *tools.Workspace // the file tools' jail, for normalize; nil: none
	// resolve looks host names up as the fetcher does, for aliases; nil:
	// URLs have no aliases.
	resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	// userRules and userModes are the [permissions] of the user's own
	// config.toml: operator rules beside the project's (the stricter wins).
	userRules []permission.Rule
	userModes map[string]permission.Mode
	// enclosing are the [permissions] rules of the agentlab.toml files
	// above the project's (enclosingRules): operator rules too.
	enclosing []permission.RuleFile

	mu       sync.Mutex
	checkers map[string]*permission.Checker
}

// PermissionsFile is where the exact-call decisions answered "always" or
// "deny always" at the prompt are kept, under the data directory, so that
// they hold for every later run using that directory. Deleting the file
// forgets them.
const PermissionsFile = "permissions.json"

// MemoryKeyFile is the key that signs permissions.json, beside the user's
// config.toml: only this user's agentlab can write a remembered decision
// that a later run will use. "" when there is no user config directory.
func MemoryKeyFile() string {
	u := provider.UserConfigFile()
	if u == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(u), "permissions.key")
}

// memoryScope keys the remembered decisions by the project: the directory
// of the agentlab.toml in force, else the flow's directory.
func memoryScope(baseDir, configFile string) permission.Scope {
	root := baseDir
	if configFile != "" {
		root = filepath.Dir(configFile)
	}
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	return permission.Scope{Project: root, KeyFile: MemoryKeyFile()}
}

func newPermissions(dataDir, baseDir string, ia Interaction) (*permissions, error) {
	p := &permissions{yes: ia.Yes, checkers: map[string]*permission.Checker{}, file: "agentlab.toml"}
	p.prompter = ia.ToolPrompter
	if dataDir != "" {
		p.memFile = filepath.Join(dataDir, PermissionsFile)
	}
	p.mem = permission.NewMemory()
	file := ""
	if baseDir != "" {
		file = provider.ProjectConfigFile(baseDir)
	}
	if p.memFile != "" {
		mem, warning, err := permission.LoadMemory(p.memFile, memoryScope(baseDir, file))
		if err != nil {
			return nil, usage("%v", err)
		}
		p.mem, p.memWarning = mem, warning
	}
	if u := provider.UserConfigFile(); u != "" {
		cfg, ds := permission.LoadConfigFile(u)
		if cfg == nil {
			return nil, configError("[permissions]", ds)
		}
		p.userRules, p.userModes = cfg.Rules, cfg.Modes
	}
	if file != "" {
		data, err := fsutil.ReadConfigFile(file)
		if err != nil {
			return nil, usage("cannot read %s: %v", file, err)
		}
		cfg, ds := permission.ParseConfig(file, data)
		if cfg == nil {
			return nil, configError("[permissions]", ds)
		}
		p.cfg, p.file = *cfg, file
		if p.enclosing, err = enclosingRules(file); err != nil {
			return nil, err
		}
	}
	// A mode the project does not set comes from the user's file.
	for tool, m := range p.userModes {
		if _, ok := p.cfg.Modes[tool]; !ok {
			if p.cfg.Modes == nil {
				p.cfg.Modes = map[string]permission.Mode{}
			}
			p.cfg.Modes[tool] = m
		}
	}
	return p, nil
}

// Decide implements engine.Permission.
func (p *permissions) Decide(ctx context.Context, q engine.PermissionQuery) engine.PermissionDecision {
	c, err := p.checker(q)
	if err != nil {
		return engine.PermissionDecision{By: "rule", Sentence: err.Error()}
	}
	d, err := c.Check(ctx, q.Tool, q.Args)
	out := engine.PermissionDecision{Allowed: d.Allowed && err == nil, By: d.Source, Sentence: d.Reason}
	if n, ok := strings.CutPrefix(d.Source, permission.SourceFlowRule+" "); ok {
		out.Rule = fmt.Sprintf("node %s permissions rule %s", q.Node, n)
	} else if n, ok := strings.CutPrefix(d.Source, permission.SourceUserRule+" "); ok {
		out.Rule = fmt.Sprintf("%s permissions rule %s", filepath.Base(provider.UserConfigFile()), n)
	} else if r, ok := strings.CutPrefix(d.Source, permission.SourceEnclosingRule+" "); ok {
		n, file, _ := strings.Cut(r, " of ")
		out.Rule = fmt.Sprintf("%s permissions rule %s", file, n)
	} else if n, ok := strings.CutPrefix(d.Source, "rule "); ok {
		out.Rule = fmt.Sprintf("%s permissions rule %s", filepath.Base(p.file), n)
	}
	return out
}

// checker returns the checker of one node: the operator's configuration
// with the node's own rules as flow rules, which may only narrow it.
func (p *permissions) checker(q engine.PermissionQuery) (*permission.Checker, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.checkers[q.Node]; ok {
		return c, nil
	}
	var flow []permission.Rule
	for _, r := range q.Rules {
		flow = append(flow, permission.Rule{Tool: r.Tool, Decision: permission.Verdict(r.Action)})
	}
	c, err := permission.New(p.cfg, permission.Options{Memory: p.mem, Gate: p.gate, Prompter: p.prompter, AssumeYes: p.yes,
		ConfigFile: p.file, MemoryFile: p.memFile, UserRules: p.userRules, EnclosingRules: p.enclosing, FlowRules: flow, FlowScoped: engine.FlowScopedTool, Normalize: p.normalize, Aliases: p.aliases})
	if err != nil {
		return nil, fmt.Errorf("node %q: %v", q.Node, err)
	}
	p.checkers[q.Node] = c
	return c, nil
}

// refused records a run that was refused before any node ran but after
// it was created (an agent listing a write tool, a supervisor in a formal
// run, an MCP server that does not start), so that it is not left
// "running", and returns err. Configuration mistakes never get here:
// prepare refuses them before the run exists.
func refused(rl *runlog.Run, err error) error {
	rec := rl.Record()
	rec.Status, rec.Error, rec.Finished = runlog.StatusFailed, err.Error(), rl.Now()
	_ = rl.WriteRecord(rec)
	return err
}

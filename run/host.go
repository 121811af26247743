package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/run/engine"
	"github.com/agentlab/agentlab/run/permission"
	"github.com/agentlab/agentlab/run/provider"
	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/run/tools"
)

// EnvMaxAgentSteps caps every agent's step backstop on this machine.
const EnvMaxAgentSteps = "AGENTLAB_MAX_AGENT_STEPS"

// newHost builds what agent, code and human nodes use: the workspace file
// tools over the flow's directory, the permission checker from the
// nearest agentlab.toml, a work directory under the run, the run clock and
// the prompts the person at the terminal allowed.
func newHost(rl *runlog.Run, cp checkpoint, ia Interaction) (engine.Host, func(), error) {
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
	}
	if s := strings.TrimSpace(os.Getenv(EnvMaxAgentSteps)); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return h, func() {}, usage("%s=%q is not a whole number of at least 1; unset it or set it to e.g. 50", EnvMaxAgentSteps, s)
		}
		h.MaxAgentSteps = n
	}
	closers := []func(){}
	reg := tools.NewRegistry()
	if cp.BaseDir != "" {
		if ws, err := tools.OpenWorkspace(cp.BaseDir); err == nil {
			closers = append(closers, func() { ws.Close() })
			for _, t := range tools.FileTools(ws, tools.FileLimits{}) {
				if err := reg.Register(t); err != nil {
					return h, func() {}, err
				}
			}
		}
	}
	if f, err := tools.NewFetcher(tools.FetchConfig{}); err == nil {
		if err := reg.Register(tools.HTTPFetch(f)); err != nil {
			return h, func() {}, err
		}
	}
	h.Tools = reg
	perm, err := newPermissions(cp.BaseDir, ia)
	if err != nil {
		return h, func() {}, err
	}
	h.Permission = perm
	if h.PTC, err = newPTC(cp.BaseDir, cp.Actor); err != nil {
		return h, func() {}, err
	}
	return h, func() {
		for _, c := range closers {
			c()
		}
	}, nil
}

// permissions adapts run/permission to the engine: one checker per agent
// node (its own `permissions` rules first, then the project's), sharing
// one memory of remembered exact-call decisions.
type permissions struct {
	cfg      permission.Config
	file     string
	mem      *permission.Memory
	prompter permission.Prompter
	yes      bool

	mu       sync.Mutex
	checkers map[string]*permission.Checker
}

func newPermissions(baseDir string, ia Interaction) (*permissions, error) {
	p := &permissions{mem: permission.NewMemory(), yes: ia.Yes, checkers: map[string]*permission.Checker{}, file: "agentlab.toml"}
	p.prompter = ia.ToolPrompter
	if baseDir == "" {
		return p, nil
	}
	file := provider.ProjectConfigFile(baseDir)
	if file == "" {
		return p, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, usage("cannot read %s: %v", file, err)
	}
	cfg, ds := permission.ParseConfig(file, data)
	if cfg == nil {
		return nil, usage("%s: %v", file, ds)
	}
	p.cfg, p.file = *cfg, file
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
	if strings.HasPrefix(d.Source, "rule ") {
		out.Rule = d.Source
		// The checker numbers the node's rules first, then the project's.
		if n, _ := strconv.Atoi(strings.TrimPrefix(d.Source, "rule ")); n >= 1 && n <= len(q.Rules) {
			out.Rule = fmt.Sprintf("node %s permissions rule %d", q.Node, n)
		} else if n > len(q.Rules) {
			out.Rule = fmt.Sprintf("%s permissions rule %d", filepath.Base(p.file), n-len(q.Rules))
		}
	}
	return out
}

func (p *permissions) checker(q engine.PermissionQuery) (*permission.Checker, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.checkers[q.Node]; ok {
		return c, nil
	}
	cfg := permission.Config{Modes: p.cfg.Modes, GateTimeoutS: p.cfg.GateTimeoutS}
	for _, r := range q.Rules {
		cfg.Rules = append(cfg.Rules, permission.Rule{Tool: r.Tool, Decision: permission.Verdict(r.Action)})
	}
	cfg.Rules = append(cfg.Rules, p.cfg.Rules...)
	c, err := permission.New(cfg, permission.Options{Memory: p.mem, Prompter: p.prompter, AssumeYes: p.yes, ConfigFile: p.file})
	if err != nil {
		return nil, fmt.Errorf("node %q: %v", q.Node, err)
	}
	p.checkers[q.Node] = c
	return c, nil
}

// refused records a run that was refused before any node ran (a bad
// AGENTLAB_MAX_AGENT_STEPS, an agent listing a write tool, a supervisor in
// a formal run), so that it is not left "running", and returns err.
func refused(rl *runlog.Run, err error) error {
	rec := rl.Record()
	rec.Status, rec.Error, rec.Finished = runlog.StatusFailed, err.Error(), rl.Now()
	_ = rl.WriteRecord(rec)
	return err
}

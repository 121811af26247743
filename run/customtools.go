package run

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"

	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run/provider"
	"github.com/agentlab/agentlab/run/sandbox"
	"github.com/agentlab/agentlab/run/tools"
)

// customToolDecls collects the custom tools the plan and its subflows
// declare, by name; a subflow declaring a tool of the same name must
// declare it identically.
func customToolDecls(p *plan.Plan) (map[string]map[string]any, error) {
	decls := map[string]map[string]any{}
	var collect func(p *plan.Plan) error
	collect = func(p *plan.Plan) error {
		for name, d := range p.Tools {
			if prev, ok := decls[name]; ok && !reflect.DeepEqual(prev, d) {
				return usage("custom tool %q is declared differently by the flow and one of its subflows; give one of them another name", name)
			}
			decls[name] = d
		}
		keys := make([]string, 0, len(p.Subflows))
		for k := range p.Subflows {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := collect(p.Subflows[k]); err != nil {
				return err
			}
		}
		return nil
	}
	if p == nil {
		return decls, nil
	}
	if err := collect(p); err != nil {
		return nil, err
	}
	return decls, nil
}

// RegisterPlanSecrets registers for redaction the values of the secrets
// the plan's custom tools name, before anything checks or stores what
// could hold them (the plan, an evaluation's suite): a tool is otherwise
// only built, and its secrets registered, once a run has started.
func RegisterPlanSecrets(p *plan.Plan) {
	decls, err := customToolDecls(p)
	if err != nil {
		return // the run refuses the plan when it builds its tools
	}
	for _, d := range decls {
		if spec, err := tools.DecodeCustom(d); err == nil {
			tools.RegisterHeaderSecrets(spec, nil)
		}
	}
}

// registerCustomTools adds the tools the plan (and its subflows) declare
// under `tools:` to reg, so that tool nodes and agents call them like any
// other registry tool: arguments validated against their schema, agents
// refused write tools, every call through the permission checker. HTTP
// tools share the run's fetcher (SSRF guard and [http_fetch] allow-list);
// command tools run in the sandbox in <work>/tools. A subflow declaring a
// tool of the same name must declare it identically.
func registerCustomTools(reg *tools.Registry, p *plan.Plan, f *tools.Fetcher, workDir string, secrets tools.SecretBindings, backend sandbox.Backend) error {
	decls, err := customToolDecls(p)
	if err != nil {
		return err
	}
	if len(decls) == 0 {
		return nil
	}
	dir := filepath.Join(workDir, "tools")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	names := make([]string, 0, len(decls))
	for n := range decls {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		spec, err := tools.DecodeCustom(decls[name])
		if err != nil {
			return usage("%v", err)
		}
		t, err := tools.NewCustom(spec, tools.CustomDeps{Fetcher: f, WorkDir: dir, SecretHosts: secrets, Backend: backend})
		if err != nil {
			return usage("%v", err)
		}
		if err := reg.Register(t); err != nil {
			return usage("%v", err)
		}
	}
	return nil
}

// secretBindings reads the [secrets] tables of the user's config.toml and
// of the agentlab.toml nearest the flow; the user's binding of a secret
// wins, so a project file cannot send the user's secret elsewhere.
func secretBindings(baseDir string) (tools.SecretBindings, error) {
	files := []string{provider.UserConfigFile()}
	if baseDir != "" {
		files = append(files, provider.ProjectConfigFile(baseDir))
	}
	b, ds := tools.LoadSecretBindings(files...)
	if ds.HasErrors() {
		return nil, configError("[secrets]", ds)
	}
	return b, nil
}

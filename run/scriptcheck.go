package run

import (
	"path/filepath"
	"strings"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run/engine"
	"github.com/agentlab/agentlab/run/provider"
)

// scriptWarnings returns the W-SCRIPT-NODE warnings of a script provider:
// one per scripted node id that no model call of p uses (a typo falls
// through to the script's default without them). The ids are matched the
// way the provider matches them while the run works, loop iterations and
// subflow prefixes included (engine.ModelNodeIDs), plus the permission
// gate's GateNode. Any other provider has nothing to check.
func scriptWarnings(p *plan.Plan, prov provider.Provider) diag.List {
	s, ok := prov.(*provider.Script)
	if !ok || p == nil {
		return nil
	}
	return s.Check(append(engine.ModelNodeIDs(p), GateNode)).Sorted()
}

// ScriptWarnings reads the script file of a "script:FILE" provider spec
// (FILE relative to baseDir unless absolute) and returns its W-SCRIPT-NODE
// warnings against p, for commands that start runs through other code
// (eval). It returns nil for any other spec and for a file that cannot be
// read or has errors: starting the run reports those.
func ScriptWarnings(p *plan.Plan, spec, baseDir string) diag.List {
	file, ok := strings.CutPrefix(strings.TrimSpace(spec), "script:")
	if !ok || file == "" {
		return nil
	}
	if !filepath.IsAbs(file) && baseDir != "" {
		file = filepath.Join(baseDir, file)
	}
	s, err := provider.LoadScript(file, provider.Options{})
	if err != nil {
		return nil
	}
	return scriptWarnings(p, s)
}

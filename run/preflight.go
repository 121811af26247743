package run

import (
	"context"
	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/run/sandbox"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	sdk "github.com/agentlab/agentlab/presets/ptc"

	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run/sources"
	"github.com/agentlab/agentlab/run/tools"
	"github.com/agentlab/agentlab/run/tools/mcp"
)

// setup is the configuration a run reads from outside its plan: the
// tables of agentlab.toml it uses ([http_fetch], [permissions], [mcp],
// [ptc]), the remembered permission decisions, AGENTLAB_MAX_AGENT_STEPS
// and the flow's data sources. prepare loads and checks all of it before
// a run is created (or a resume writes anything), so that a mistake in it
// is refused with nothing written: no run directory, no event, no "run
// … started". Configuration a run cannot read becomes a run that is
// listed as failed, which it never was; refusing it up front keeps
// `agentlab runs` to runs that actually ran.
type setup struct {
	maxSteps int
	fetcher  *tools.Fetcher
	perm     *permissions
	// mcp holds the MCP servers the plan's tools name, not started yet:
	// starting one runs a process, so it waits for the run to exist.
	mcp     []mcp.ServerSpec
	ptc     func(title string, toolsets []string) sdk.Decision
	sources *sources.DB // nil when the plan declares none
	// secrets binds each secret a custom tool may send to its hosts.
	secrets tools.SecretBindings
	// sandbox is the backend the operator's [sandbox] tables chose; ""
	// leaves it to AGENTLAB_SANDBOX and detection.
	sandbox sandbox.Backend
	// warnings are what the run says once on stderr before any node runs
	// (remembered decisions ignored, code running without isolation);
	// they never stop it.
	warnings diag.List
	// keepTools makes the built-in tools (builtinTools) once for every run
	// that uses this setup (a session's), in builtins, closed by
	// closeBuiltins.
	keepTools     bool
	builtins      *tools.Registry
	closeBuiltins func()
}

// close releases what prepare opened (the data sources' databases).
func (s *setup) close() {
	if s != nil && s.sources != nil {
		s.sources.Close()
	}
	if s != nil && s.closeBuiltins != nil {
		s.closeBuiltins()
		s.closeBuiltins = nil
	}
}

// prepare reads and checks the configuration a run of p needs, in the
// order the run used to meet it: the environment, [http_fetch],
// [permissions] with <data-dir>/permissions.json, the [mcp] servers the
// plan names, [ptc], then the data sources. cp needs only Source, BaseDir
// and Actor. Every error is a *UsageError (a configuration table's
// mistakes inside it as a *ConfigError, a data source's as a
// *sources.LoadError placed in the flow); the caller closes the setup.
func prepare(ctx context.Context, dataDir string, cp checkpoint, p *plan.Plan, ia Interaction, cache *sources.Cache) (*setup, error) {
	s, err := prepareConfig(dataDir, cp, p, ia)
	if err != nil {
		return nil, err
	}
	if err := checkPlanPaths(cp.BaseDir, p); err != nil {
		return nil, err
	}
	if len(p.Sources) > 0 {
		db, err := sources.LoadCached(ctx, cp.BaseDir, p.Sources, cache)
		if err != nil {
			return nil, &UsageError{withSourceDir(err, cp)}
		}
		s.sources = db
	}
	return s, nil
}

// prepareConfig is prepare without the data sources: everything read from
// the environment and the configuration files. It opens nothing that
// needs closing.
func prepareConfig(dataDir string, cp checkpoint, p *plan.Plan, ia Interaction) (*setup, error) {
	if err := CheckConfigTrust(cp.BaseDir); err != nil {
		return nil, err
	}
	s := &setup{}
	if v := strings.TrimSpace(os.Getenv(EnvMaxAgentSteps)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, usage("%s=%q is not a whole number of at least 1; unset it or set it to e.g. 50", EnvMaxAgentSteps, v)
		}
		s.maxSteps = n
	}
	fc, err := fetchConfig(cp.BaseDir)
	if err != nil {
		return nil, err
	}
	if s.fetcher, err = tools.NewFetcher(fc); err != nil {
		return nil, usage("http_fetch: %v", err)
	}
	if s.secrets, err = secretBindings(cp.BaseDir); err != nil {
		return nil, err
	}
	if s.perm, err = newPermissions(dataDir, cp.BaseDir, ia); err != nil {
		return nil, err
	}
	s.perm.resolve = s.fetcher.Resolve
	if s.sandbox, err = operatorSandbox(cp.BaseDir); err != nil {
		return nil, err
	}
	s.warnings = append(s.warnings, unisolatedWarning(cp.Source, p, s.sandbox)...)
	if w := s.perm.memWarning; w != "" {
		s.warnings.Warnf(s.perm.memFile, diag.Pos{Line: 1, Col: 1}, CodePermMemory, "nothing to do: answer again at the prompt, or delete the file", "%s", w)
	}
	if s.mcp, err = selectMCP(cp.BaseDir, p); err != nil {
		return nil, err
	}
	if s.ptc, err = newPTC(cp.BaseDir, cp.Actor); err != nil {
		return nil, err
	}
	return s, nil
}

// CheckConfig checks the configuration a run of p from the flow or plan
// file source would read (see prepare), its data sources aside, without
// creating anything: for commands that start many runs through other code
// (eval), so that a mistake in agentlab.toml is refused once, up front,
// instead of failing every run. The error is a *UsageError, with a
// *ConfigError inside for a table's mistakes.
func CheckConfig(dataDir, source string, p *plan.Plan) error {
	if p == nil {
		return nil
	}
	_, err := prepareConfig(dataDirFor(dataDir), checkpoint{Source: source, BaseDir: baseDirOf(source)}, p, Interaction{})
	return err
}

// baseDirOf is the absolute directory of the flow or plan file source,
// which its relative paths (script:FILE, data sources, agentlab.toml) are
// resolved from; "" without a source.
func baseDirOf(source string) string {
	if source == "" {
		return ""
	}
	return absDir(filepath.Dir(source))
}

// absDir makes a directory absolute ("" when it cannot).
func absDir(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	return abs
}

// dataDirFor is the data directory as an open run sees it (dataDirOf):
// cleaned, and "" is the working directory.
func dataDirFor(dataDir string) string { return filepath.Clean(dataDir) }

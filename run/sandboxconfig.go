package run

import (
	"errors"
	"io/fs"
	"os"
	"slices"

	"github.com/pelletier/go-toml/v2"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/run/provider"
	"github.com/agentlab/agentlab/run/sandbox"
)

// CodeSandboxConfig is a malformed [sandbox] table.
const CodeSandboxConfig = "E-SANDBOX-CONFIG"

// parseSandboxTable reads `[sandbox] backend = "bwrap"|"process"` from a
// configuration file; "" when the file does not set it.
func parseSandboxTable(file string, data []byte) (sandbox.Backend, diag.List) {
	var ds diag.List
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		ds.Errorf(file, diag.Pos{Line: 1, Col: 1}, CodeSandboxConfig, "fix the TOML syntax", "not valid TOML: %v", err)
		return "", ds
	}
	raw, ok := doc["sandbox"]
	if !ok {
		return "", nil
	}
	pos := topLevelPos(data, "sandbox")
	fix := `write [sandbox] backend = "bwrap" (or "process" to run code without isolation)`
	t, ok := raw.(map[string]any)
	if !ok {
		ds.Errorf(file, pos, CodeSandboxConfig, fix, "sandbox is not a table")
		return "", ds
	}
	var b sandbox.Backend
	for k, v := range t {
		s, isStr := v.(string)
		switch {
		case k != "backend":
			ds.Errorf(file, pos, CodeSandboxConfig, fix, "unknown key %q in [sandbox]; the only key is backend", k)
		case !isStr || (s != string(sandbox.Bwrap) && s != string(sandbox.Process)):
			ds.Errorf(file, pos, CodeSandboxConfig, fix, "sandbox.backend is %v, not bwrap or process", v)
		default:
			b = sandbox.Backend(s)
		}
	}
	return b, ds
}

// operatorSandbox is the backend the operator chose: AGENTLAB_SANDBOX when
// set, else the stricter of the [sandbox] tables of the user's config.toml
// and the project's agentlab.toml (bwrap over process), else "" (detect).
// A configuration that asks for bwrap where bwrap does not work is refused,
// never run in process instead.
func operatorSandbox(baseDir string) (sandbox.Backend, error) {
	if env, err := sandbox.ParseBackend(os.Getenv(sandbox.EnvBackend)); err != nil || env != "" {
		return "", err // the sandbox reads the variable itself
	}
	var chosen sandbox.Backend
	files := []string{provider.UserConfigFile()}
	if baseDir != "" {
		files = append(files, provider.ProjectConfigFile(baseDir))
	}
	for _, f := range files {
		if f == "" {
			continue
		}
		data, err := fsutil.ReadConfigFile(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", usage("cannot read %s: %v", f, err)
		}
		b, ds := parseSandboxTable(f, data)
		if ds.HasErrors() {
			return "", configError("[sandbox]", ds)
		}
		if b == sandbox.Bwrap || (b == sandbox.Process && chosen == "") {
			chosen = b
		}
	}
	if chosen == sandbox.Bwrap {
		if info := sandbox.Detect(); !slices.Contains(info.Available, sandbox.Bwrap) {
			return "", usage("[sandbox] backend = \"bwrap\" in the configuration, but bwrap cannot run here: %s; install bubblewrap (apt-get install bubblewrap) and allow user namespaces, or set backend = \"process\" to run code without isolation", info.Reasons[sandbox.Bwrap])
		}
	}
	return chosen, nil
}

package run

import (
	"path/filepath"
	"slices"

	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/run/permission"
	"github.com/agentlab/agentlab/run/provider"
)

// EnclosingRules is enclosingRules for `agentlab doctor`, which shows the
// enclosing files in force beside the project's.
func EnclosingRules(projectFile string) ([]permission.RuleFile, error) {
	return enclosingRules(projectFile)
}

// enclosingRules reads the [permissions] rules of every agentlab.toml in
// the directories above projectFile's, nearest first. They are operator
// rules like the user's own: a project file nested in another — a flow's
// folder with an agentlab.toml of its own, copied into a repository whose
// agentlab.toml denies — answers beside them, and the stricter answer
// holds. A file another user could have written, in a directory the user
// has not trusted, is skipped: it decides nothing, not even a refusal.
// Each file is named relative to the project's directory.
func enclosingRules(projectFile string) ([]permission.RuleFile, error) {
	if projectFile == "" {
		return nil, nil
	}
	var trusted []string
	var out []permission.RuleFile
	for dir := filepath.Dir(filepath.Dir(projectFile)); ; {
		file := provider.ProjectConfigFile(dir)
		if file == "" {
			return out, nil
		}
		why, err := untrustedBecause(file)
		if err != nil {
			return nil, usage("cannot read %s: %v", file, err)
		}
		if why != "" && trusted == nil {
			if trusted, err = TrustedDirs(); err != nil {
				return nil, err
			}
			trusted = append(trusted, "") // read once, even when empty
		}
		if why == "" || slices.Contains(trusted, filepath.Dir(file)) {
			data, err := fsutil.ReadConfigFile(file)
			if err != nil {
				return nil, usage("cannot read %s: %v", file, err)
			}
			cfg, ds := permission.ParseConfig(file, data)
			if cfg == nil {
				return nil, configError("[permissions]", ds)
			}
			if len(cfg.Rules) > 0 {
				// Named from the project's directory ("../agentlab.toml"),
				// so that the events, and the seal, do not depend on where
				// the project lies on this machine.
				name, err := filepath.Rel(filepath.Dir(projectFile), file)
				if err != nil {
					name = file
				}
				out = append(out, permission.RuleFile{File: name, Rules: cfg.Rules})
			}
		}
		parent := filepath.Dir(filepath.Dir(file))
		if parent == filepath.Dir(file) {
			return out, nil
		}
		dir = parent
	}
}

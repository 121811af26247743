package main

import (
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/run"
	"github.com/agentlab/agentlab/run/provider"
)

// configureCaps puts in force the byte caps of every reader (docs/security.md,
// "Limits on what is read"): the defaults, then the [limits] table of the
// working directory's agentlab.toml, then the AGENTLAB_MAX_* variables; a
// command's flag (verify --max-bytes) comes last. A project file another
// user could have written sets no cap (run and resume refuse it; doctor
// says so). A wrong key or size stops every command but those that must
// work to fix it (doctor, which reports it with its position, help,
// version, completion).
func configureCaps(cmd *cobra.Command) error {
	var file string
	var data []byte
	if wd, err := os.Getwd(); err == nil {
		if f := provider.ProjectConfigFile(wd); f != "" && run.CheckConfigTrust(filepath.Dir(f)) == nil {
			if b, err := fsutil.ReadConfigFile(f); err == nil {
				file, data = f, b
			}
		}
	}
	err := fsutil.ConfigureCaps(file, data, os.Getenv)
	if err == nil {
		return nil
	}
	switch cmd.Name() {
	case "doctor", "help", "version", "completion", "bash", "zsh", "fish", "powershell":
		return nil
	}
	return exitf(exitUsage, "%v", err)
}

package run

import "github.com/agentlab/agentlab/run/sandbox"

// CheckMachine refuses, before a run is created or a resume appends
// anything, the settings of this machine that would otherwise fail the
// run half-way: an AGENTLAB_SANDBOX value that names no backend would
// fail the first code node (or run_code call) with the run already under
// way, so it is a usage error up front, with the valid values. Commands
// that start many runs (eval) call it once, before the first. The error
// is a *UsageError.
func CheckMachine() error {
	if err := sandbox.CheckEnv(); err != nil {
		return &UsageError{err}
	}
	return nil
}

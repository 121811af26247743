package run

import "github.com/agentlab/agentlab/run/sandbox"

// checkMachine refuses, before a run is created or a resume appends
// anything, the settings of this machine that would otherwise fail the
// run half-way: an AGENTLAB_SANDBOX value that names no backend would
// fail the first code node (or run_code call) with the run already under
// way, so it is a usage error up front, with the valid values.
func checkMachine() error {
	if err := sandbox.CheckEnv(); err != nil {
		return &UsageError{err}
	}
	return nil
}

// CheckMachine is checkMachine for commands that start runs through other
// code (eval): called once before the first run, it refuses a bad
// AGENTLAB_SANDBOX up front instead of once per case. The error is a
// *UsageError.
func CheckMachine() error { return checkMachine() }

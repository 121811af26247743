package main

import (
	"fmt"

	"github.com/agentlab/agentlab/run/sandbox"
)

func init() { addDoctorSection(doctorSection{name: "sandbox", order: 5, run: doctorSandbox}) }

// doctorSandbox lists the sandbox backends, which one `code` nodes will
// use, and why. Running code without isolation is a warning; a forced
// backend that cannot run is an error, since every code node would fail.
func doctorSandbox(*doctorEnv) doctorResult {
	return sandboxResult(sandbox.Detect())
}

func sandboxResult(info sandbox.Info) doctorResult {
	var fs []doctorFinding
	for _, b := range []sandbox.Backend{sandbox.Bwrap, sandbox.Process} {
		state := "not available"
		for _, a := range info.Available {
			if a == b {
				state = "available"
			}
		}
		fs = append(fs, doctorFinding{Severity: sevInfo, Message: fmt.Sprintf("%s: %s: %s", b, state, info.Reasons[b])})
	}
	how := "chosen automatically"
	if info.Forced {
		how = "forced by " + sandbox.EnvBackend + "=" + string(info.Chosen)
	}
	if info.Err != nil {
		fs = append(fs, doctorFinding{Severity: sevError, Message: info.Err.Error(), Command: "unset " + sandbox.EnvBackend})
		if !info.Forced { // a value that names no backend (sandbox.ParseBackend)
			return doctorResult{Summary: sandbox.EnvBackend + " names no backend: run and resume refuse to start", Findings: fs}
		}
		return doctorResult{Summary: fmt.Sprintf("%s (%s) cannot run: code nodes will fail", info.Chosen, how), Findings: fs}
	}
	if !info.Isolated() {
		fs = append(fs, doctorFinding{Severity: sevWarning,
			Message: "code nodes run with NO ISOLATION (process backend): the code can read every file agentlab can read and use the network; only its environment, working directory and resource limits are controlled",
			Command: "apt-get install -y bubblewrap"})
		return doctorResult{Summary: fmt.Sprintf("process (%s) — NO ISOLATION; code runs as %s", how, info.User), Findings: fs}
	}
	return doctorResult{Summary: fmt.Sprintf("bwrap (%s): no network, read-only host, code runs as %s", how, info.User), Findings: fs}
}

package run

import (
	"encoding/json"
	"fmt"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/presets"
	"github.com/agentlab/agentlab/run/engine"
	"github.com/agentlab/agentlab/run/sandbox"
)

// CodeSandboxProcess is the warning a run prints once, before any node
// runs, when the plan runs code (code nodes, run_code, command tools) and
// the sandbox backend is process: no isolation, because the operator chose
// it (AGENTLAB_SANDBOX=process) or bwrap does not work here.
const CodeSandboxProcess = "W-SANDBOX-PROCESS"

// unisolatedWarning returns that warning for p, or nothing when p runs no
// code or the code will run in bwrap. It probes the sandbox (once per
// process) only when p runs code.
func unisolatedWarning(source string, p *plan.Plan, operator sandbox.Backend) diag.List {
	if !runsCode(p) || operator == sandbox.Bwrap {
		return nil
	}
	info := sandbox.Detect()
	if operator == sandbox.Process {
		info = sandbox.Info{Chosen: sandbox.Process, Forced: true, Reasons: info.Reasons}
		return unisolatedWarningFor(source, info, "the operator's [sandbox] backend = \"process\" chose it")
	}
	return unisolatedWarningFor(source, info, "")
}

// unisolatedWarningFor is unisolatedWarning once the plan is known to run
// code, for the sandbox info detected.
func unisolatedWarningFor(source string, info sandbox.Info, why string) diag.List {
	if info.Chosen != sandbox.Process || info.Err != nil {
		return nil
	}
	fix := fmt.Sprintf("unset %s (or set it to bwrap) to isolate the code, or run only flows you trust", sandbox.EnvBackend)
	switch {
	case !info.Forced:
		why = "bwrap does not work here: " + info.Reasons[sandbox.Bwrap]
		fix = "install bubblewrap (apt-get install bubblewrap) and allow user namespaces, or run only flows you trust"
	case why == "":
		why = fmt.Sprintf("%s=process chose it", sandbox.EnvBackend)
	default:
		fix = `set [sandbox] backend = "bwrap" (or remove the table) to isolate the code, or run only flows you trust`
	}
	var l diag.List
	l.Warnf(source, diag.Pos{Line: 1, Col: 1}, CodeSandboxProcess, fix,
		"this flow runs code, and the sandbox is process — NO ISOLATION (%s): the code can read the user's files and use the network; the tier reasons of contracted outputs record it", why)
	return l
}

// runsCode reports whether p (or a loop body or subflow of it) has a code
// node, a run_code tool, a command tool, or an agent in code mode.
func runsCode(p *plan.Plan) bool {
	if p == nil {
		return false
	}
	if pr := presets.Effective(p.Preset.Rows).Presentation; pr == presets.PresentPTC || pr == presets.PresentBoth {
		return true
	}
	for _, t := range p.Tools {
		if _, ok := t["command"]; ok {
			return true
		}
	}
	for _, n := range planToolNames(p) {
		if n == "run_code" {
			return true
		}
	}
	var walk func(nodes []plan.Node) bool
	walk = func(nodes []plan.Node) bool {
		for _, n := range nodes {
			if n.Type == "code" {
				return true
			}
			if pr, _ := n.Spec["presentation"].(string); pr == "ptc" || pr == "both" {
				return true
			}
			if n.Body != nil && walk(n.Body.Nodes) {
				return true
			}
		}
		return false
	}
	if walk(p.Nodes) {
		return true
	}
	for _, sp := range p.Subflows {
		if runsCode(sp) {
			return true
		}
	}
	return false
}

// unisolatedReason is the tier reason of a run in which code ran under
// the process backend ("" when none did): a code.ran event, or a run_code
// result, that names backend process.
func unisolatedReason(events []chain.Event) string {
	for _, e := range events {
		if e.Type != engine.EvCodeRan && e.Type != engine.EvToolResult {
			continue
		}
		var d struct {
			Backend string `json:"backend"`
		}
		if json.Unmarshal(e.Data, &d) == nil && d.Backend == string(sandbox.Process) {
			return fmt.Sprintf("code ran without isolation (sandbox backend process, first at node %s): it could read the user's files and use the network", e.Node)
		}
	}
	return ""
}

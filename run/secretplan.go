package run

import "github.com/agentlab/agentlab/run/redact"

// CodeSecretInPlan refuses a run whose plan holds the value of a secret.
const CodeSecretInPlan = "E-SECRET-IN-PLAN"

// checkPlanHoldsNoSecret refuses a plan that holds, in any of its forms,
// the value of a secret this run was given (a provider key, a custom
// tool's {{ secret.NAME }}, an MCP server's credential): a key pasted
// into a prompt. The plan is stored whole and its hash is what the seal
// and verify stand on, so it cannot be redacted like an event; it would
// reach the artifacts and bundle.html in clear. Checked before the run is
// created, so nothing is written. Only forms of 8 bytes or more count: a
// short credential ("test") would refuse ordinary flows.
func checkPlanHoldsNoSecret(planBytes []byte) error {
	if !redact.ContainsLong(string(planBytes), 8) {
		return nil
	}
	return usage("%s: the plan holds the value of a secret this run was given (a provider key, a custom tool's secret or an MCP server's credential), which would be stored in clear in the plan, its artifacts and bundle.html; nothing was run. Fix: remove the value from the flow and its subflows, and pass it through the environment (the provider's key variable, or {{ secret.NAME }} in a custom tool's header)", CodeSecretInPlan)
}

// CheckSuiteHoldsNoSecret refuses an evaluation suite (its canonical JSON)
// that holds the value of a secret the evaluation was given, for the
// reason checkPlanHoldsNoSecret refuses a plan: the suite is stored whole
// as the plan of the evaluation's record, and a question asking about a
// pasted key would keep it in clear there.
func CheckSuiteHoldsNoSecret(suiteJSON []byte) error {
	if !redact.ContainsLong(string(suiteJSON), 8) {
		return nil
	}
	return usage("%s: the suite holds the value of a secret this evaluation was given (a provider key, a custom tool's secret or an MCP server's credential), which would be stored in clear as the evaluation's plan; nothing was run. Fix: remove the value from the questions and variants, and pass it through the environment", CodeSecretInPlan)
}

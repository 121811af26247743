package ptc

import (
	"fmt"
	"strings"
)

// SandboxDebugEnv is always in the sandbox environment: "true" whenever a
// debug filter is configured (so programs can print extra detail), else
// "false". It never decides whether PTC applies.
const SandboxDebugEnv = "AGENTLAB_PTC_DEBUG"

// Title markers of the debug filters (matched case-insensitively).
const (
	MarkerUsePTC = "useptc"
	MarkerNonPTC = "nonptc"
)

// Decision is the outcome of the chain for one agent node.
type Decision struct {
	Enabled bool `json:"enabled"`
	// DebugMode is the configured debug filter ("opt-in" or "opt-out"), nil
	// when none is configured.
	DebugMode *string `json:"debug_mode"`
	// Reason is one sentence naming the link of the chain that decided.
	Reason   string   `json:"reason"`
	Warnings []string `json:"-"`
	// SandboxEnv holds variables to add to the code-mode sandbox.
	SandboxEnv map[string]string `json:"-"`
}

// Decide runs the chain for one agent node, highest priority first:
//
//  1. PTC_MODE: off → no; on → continue; partial → the user must be in
//     PTC_USER_ALLOWLIST.
//  2. The node's toolsets: none → no (there is nothing to fold into code).
//  3. PTC_TOOLSET_BLOCKLIST: any toolset listed → no (the blocklist wins).
//  4. PTC_TOOLSET_ALLOWLIST: when non-empty, every toolset must be listed.
//  5. PTC_ROLLOUT_PERCENT: the user's bucket (see Bucket) must be below
//     the percentage; ≥100 is everyone, ≤0 or not a number is nobody.
//  6. PTC_DEBUG, only once 1–5 said yes: opt-in keeps PTC only for titles
//     containing "useptc"; opt-out drops it for titles containing
//     "nonptc". The filter can remove PTC, never grant it.
func Decide(cfg Config, user string, toolsets []string, title string) Decision {
	d := Decision{
		Warnings:   append([]string(nil), cfg.Warnings...),
		SandboxEnv: map[string]string{},
	}
	if cfg.Debug != "" {
		mode := cfg.Debug
		d.DebugMode = &mode
	}
	// Always an explicit value, so that a program tells "debugging off"
	// from "not run by agentlab" and never inherits one from elsewhere.
	d.SandboxEnv[SandboxDebugEnv] = "false"
	if cfg.DebugConfigured {
		d.SandboxEnv[SandboxDebugEnv] = "true"
	}
	no := func(format string, args ...any) Decision {
		d.Enabled, d.Reason = false, fmt.Sprintf(format, args...)
		return d
	}

	switch cfg.Mode {
	case ModeOn:
	case ModePartial:
		if user == "" {
			return no("PTC_MODE is partial and no user is known (no --actor and $USER unset), so none is in PTC_USER_ALLOWLIST")
		}
		if !inList(cfg.UserAllowlist, user) {
			return no("PTC_MODE is partial and user %q is not in PTC_USER_ALLOWLIST", user)
		}
	default:
		return no("PTC_MODE is off")
	}

	if len(toolsets) == 0 {
		return no("the node has no toolsets, so there is nothing to run as code")
	}
	for _, ts := range toolsets {
		if inList(cfg.ToolsetBlocklist, ts) {
			return no("toolset %q is in PTC_TOOLSET_BLOCKLIST", ts)
		}
	}
	if len(cfg.ToolsetAllowlist) > 0 {
		for _, ts := range toolsets {
			if !inList(cfg.ToolsetAllowlist, ts) {
				return no("toolset %q is not in PTC_TOOLSET_ALLOWLIST", ts)
			}
		}
	}

	switch {
	case cfg.RolloutInvalid:
		return no("PTC_ROLLOUT_PERCENT is not a number, so no user is in the rollout")
	case cfg.RolloutPercent >= 100:
	case cfg.RolloutPercent <= 0:
		return no("PTC_ROLLOUT_PERCENT is %g, so no user is in the rollout", cfg.RolloutPercent)
	case user == "":
		// An unknown user has no bucket of its own: hashing "" would put
		// every anonymous run in the same bucket, decided by nobody.
		return no("PTC_ROLLOUT_PERCENT is %g and no user is known (no --actor and $USER unset), so none is in the rollout", cfg.RolloutPercent)
	default:
		b := Bucket(user, cfg.RolloutSalt)
		if float64(b) >= cfg.RolloutPercent {
			return no("user %q is in rollout bucket %d, not below PTC_ROLLOUT_PERCENT %g", user, b, cfg.RolloutPercent)
		}
	}

	lower := strings.ToLower(title)
	switch cfg.Debug {
	case DebugOptIn:
		if !strings.Contains(lower, MarkerUsePTC) {
			return no("PTC_DEBUG is opt-in and the title does not contain %q", MarkerUsePTC)
		}
		d.Enabled, d.Reason = true, fmt.Sprintf("the chain allows PTC and the title opts in with %q", MarkerUsePTC)
		return d
	case DebugOptOut:
		if strings.Contains(lower, MarkerNonPTC) {
			return no("PTC_DEBUG is opt-out and the title contains %q", MarkerNonPTC)
		}
	}
	d.Enabled = true
	d.Reason = fmt.Sprintf("PTC_MODE is %s and every check of the chain passed", cfg.Mode)
	return d
}

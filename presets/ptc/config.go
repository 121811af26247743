package ptc

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Modes of PTC_MODE.
const (
	ModeOff     = "off"
	ModeOn      = "on"
	ModePartial = "partial"
)

// Debug filters of PTC_DEBUG.
const (
	DebugOptIn  = "opt-in"
	DebugOptOut = "opt-out"
)

// Environment variables read by ConfigFromEnv.
const (
	EnvMode             = "PTC_MODE"
	EnvUserAllowlist    = "PTC_USER_ALLOWLIST"
	EnvToolsetAllowlist = "PTC_TOOLSET_ALLOWLIST"
	EnvToolsetBlocklist = "PTC_TOOLSET_BLOCKLIST"
	EnvRolloutPercent   = "PTC_ROLLOUT_PERCENT"
	EnvRolloutSalt      = "PTC_ROLLOUT_SALT"
	EnvDebug            = "PTC_DEBUG"
)

// Config is the parsed PTC configuration. Build it with ConfigFromEnv so
// that every invalid value has been turned into its documented fallback
// and a warning.
type Config struct {
	// Mode is off, on or partial. Unset means off: code mode is opt-in.
	Mode string
	// UserAllowlist: in partial mode, only these users get PTC.
	UserAllowlist []string
	// ToolsetAllowlist: when non-empty, every toolset of the node must be
	// listed. ToolsetBlocklist: any listed toolset switches PTC off; it wins
	// over the allowlist.
	ToolsetAllowlist []string
	ToolsetBlocklist []string
	// RolloutPercent is the share of users (by bucket) who get PTC: ≥100
	// everyone, ≤0 nobody. RolloutInvalid is set when the configured value
	// was not a number, which means nobody.
	RolloutPercent float64
	RolloutInvalid bool
	RolloutSalt    string
	// Debug is "", DebugOptIn or DebugOptOut. DebugConfigured reports
	// whether PTC_DEBUG had any non-empty value (even an invalid one); it
	// drives AGENTLAB_PTC_DEBUG in the sandbox.
	Debug           string
	DebugConfigured bool
	// Warnings are the problems found while reading the configuration.
	Warnings []string
}

// FileConfig is the [ptc] table of agentlab.toml, as raw strings in the
// same syntax as the environment variables (lists comma-separated). An
// empty field is "not set in the file".
type FileConfig struct {
	Path             string
	Mode             string
	UserAllowlist    string
	ToolsetAllowlist string
	ToolsetBlocklist string
	RolloutPercent   string
	RolloutSalt      string
	Debug            string
	// Warnings found while reading the file (unknown keys, wrong types).
	Warnings []string
}

// ConfigFromEnv reads the PTC configuration. For each setting a non-empty
// environment variable wins over the file; the file (which may be nil)
// wins over the default. Invalid values fall back as documented and add a
// warning; reading never fails.
func ConfigFromEnv(getenv func(string) string, file *FileConfig) (Config, []string) {
	if file == nil {
		file = &FileConfig{}
	}
	var warns []string
	warns = append(warns, file.Warnings...)
	pick := func(env, fromFile, fileKey string) (value, source string) {
		if v := getenv(env); strings.TrimSpace(v) != "" {
			return v, env
		}
		if strings.TrimSpace(fromFile) != "" {
			where := "agentlab.toml"
			if file.Path != "" {
				where = file.Path
			}
			return fromFile, fmt.Sprintf("[ptc] %s in %s", fileKey, where)
		}
		return "", env
	}
	cfg := Config{RolloutPercent: 100, RolloutSalt: DefaultSalt}

	mode, src := pick(EnvMode, file.Mode, "mode")
	switch m := strings.ToLower(strings.TrimSpace(mode)); m {
	case "":
		cfg.Mode = ModeOff
	case ModeOff, ModeOn, ModePartial:
		cfg.Mode = m
	default:
		cfg.Mode = ModeOff
		warns = append(warns, fmt.Sprintf("%s=%q is not a valid mode (valid: off, on, partial); PTC is off", src, mode))
	}

	v, _ := pick(EnvUserAllowlist, file.UserAllowlist, "user_allowlist")
	cfg.UserAllowlist = splitList(v)
	v, _ = pick(EnvToolsetAllowlist, file.ToolsetAllowlist, "toolset_allowlist")
	cfg.ToolsetAllowlist = splitList(v)
	v, _ = pick(EnvToolsetBlocklist, file.ToolsetBlocklist, "toolset_blocklist")
	cfg.ToolsetBlocklist = splitList(v)

	v, src = pick(EnvRolloutPercent, file.RolloutPercent, "rollout_percent")
	if s := strings.TrimSpace(v); s != "" {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) {
			cfg.RolloutInvalid = true
			warns = append(warns, fmt.Sprintf("%s=%q is not a number (write a percentage 0-100); no user is in the rollout", src, v))
		} else {
			cfg.RolloutPercent = f
		}
	}

	v, _ = pick(EnvRolloutSalt, file.RolloutSalt, "rollout_salt")
	if v != "" {
		cfg.RolloutSalt = v
	}

	v, src = pick(EnvDebug, file.Debug, "debug")
	switch d := strings.ToLower(strings.TrimSpace(v)); d {
	case "":
	case DebugOptIn, "true":
		cfg.Debug, cfg.DebugConfigured = DebugOptIn, true
	case DebugOptOut:
		cfg.Debug, cfg.DebugConfigured = DebugOptOut, true
	default:
		cfg.DebugConfigured = true
		warns = append(warns, fmt.Sprintf("%s=%q is not a valid debug filter (valid: opt-in, opt-out, or empty; legacy true means opt-in); no debug filter applies", src, v))
	}
	cfg.Warnings = warns
	return cfg, warns
}

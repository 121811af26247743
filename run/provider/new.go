package provider

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentlab/agentlab/diag"
)

// ErrUnknownProvider is returned (wrapped) by New for a spec it does not
// recognise.
var ErrUnknownProvider = errors.New("unknown provider")

// ErrNotSupported is kept for callers that test for it; New no longer
// returns it, since every spec in Specs is available.
var ErrNotSupported = errors.New("provider not yet supported")

// Specs lists the provider specs New understands, for help texts and
// did-you-mean suggestions. "script:FILE" stands for any script path.
var Specs = []string{"mock", "script:FILE", "openai", "anthropic"}

// remoteEnv names the environment variables a remote provider reads.
// Secrets are only ever read from the environment or the config file and
// never written to plans, events or bundles.
var remoteEnv = map[string][]string{
	"openai":    {"OPENAI_API_KEY", "OPENAI_BASE_URL"},
	"anthropic": {"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"},
}

// EnvVars returns the environment variables the provider named by spec
// reads (the key first), or nil for one that reads none; for doctor and
// help texts.
func EnvVars(spec string) []string {
	return append([]string(nil), remoteEnv[strings.TrimSpace(spec)]...)
}

// New returns the provider named by spec: "mock" (the default when spec is
// empty), "script:PATH" (PATH relative to opts.BaseDir unless absolute),
// "openai" or "anthropic" (see NewOpenAI and NewAnthropic; a missing key
// wraps ErrMissingKey). For the remote providers New also reads the
// [providers] table of the config files (see LoadConfig); what opts
// already holds wins over them, and a file with mistakes yields a
// *ConfigError. A script file with mistakes yields a
// *ScriptError whose diagnostics carry line and column.
func New(spec string, opts Options) (Provider, error) {
	spec = strings.TrimSpace(spec)
	switch {
	case spec == "" || spec == "mock":
		return NewMock(opts), nil
	case strings.HasPrefix(spec, "script:"):
		path := strings.TrimPrefix(spec, "script:")
		if path == "" {
			return nil, fmt.Errorf("%w: %q needs a file, as in script:responses.yml", ErrUnknownProvider, spec)
		}
		if !filepath.IsAbs(path) && opts.BaseDir != "" {
			path = filepath.Join(opts.BaseDir, path)
		}
		s, err := LoadScript(path, opts)
		if err != nil {
			return nil, err // not a typed nil inside the interface
		}
		return s, nil
	case spec == "openai":
		if err := applyConfigFiles(&opts); err != nil {
			return nil, err
		}
		p, err := NewOpenAI(opts)
		if err != nil {
			return nil, err
		}
		return p, nil
	case spec == "anthropic":
		if err := applyConfigFiles(&opts); err != nil {
			return nil, err
		}
		p, err := NewAnthropic(opts)
		if err != nil {
			return nil, err
		}
		return p, nil
	}
	hint := ""
	if s := closest(spec, []string{"mock", "script", "openai", "anthropic"}); s != "" {
		if s == "script" {
			s = "script:FILE"
		}
		hint = fmt.Sprintf(" (did you mean %q?)", s)
	}
	return nil, fmt.Errorf("%w %q%s; choose one of %s", ErrUnknownProvider, spec, hint, strings.Join(Specs, ", "))
}

// closest returns the candidate nearest to s by edit distance when it is a
// likely typo, or "": two edits, three for names of nine letters or more.
func closest(s string, candidates []string) string {
	best, _ := diag.ClosestWithin(s, candidates, max(2, min(3, len(s)/3)))
	return best
}

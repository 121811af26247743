package provider

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// ErrUnknownProvider is returned (wrapped) by New for a spec it does not
// recognise.
var ErrUnknownProvider = errors.New("unknown provider")

// ErrNotSupported is returned (wrapped) by New for a provider that is
// planned but not available in this build.
var ErrNotSupported = errors.New("provider not yet supported")

// Specs lists the provider specs New understands, for help texts and
// did-you-mean suggestions. "script:FILE" stands for any script path.
var Specs = []string{"mock", "script:FILE", "openai", "anthropic"}

// remoteEnv names the environment variables a remote provider will read.
// Secrets are only ever read from the environment or the config file and
// never written to plans, events or bundles.
var remoteEnv = map[string][]string{
	"openai":    {"OPENAI_API_KEY", "OPENAI_BASE_URL"},
	"anthropic": {"ANTHROPIC_API_KEY"},
}

// New returns the provider named by spec: "mock" (the default when spec is
// empty), "script:PATH" (PATH relative to opts.BaseDir unless absolute),
// "openai" or "anthropic". A script file with mistakes yields a
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
	}
	if env, ok := remoteEnv[spec]; ok {
		return nil, fmt.Errorf("%w: %q is planned but not available in this build (it will read %s); use --provider mock or --provider script:FILE for now",
			ErrNotSupported, spec, strings.Join(env, " and "))
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
// likely typo, or "".
func closest(s string, candidates []string) string {
	best, bestD := "", 1<<30
	limit := max(2, min(3, len(s)/3))
	ls := strings.ToLower(s)
	for _, c := range candidates {
		if d := levenshtein(ls, strings.ToLower(c)); d <= limit && d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// levenshtein is the edit distance between a and b in runes.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

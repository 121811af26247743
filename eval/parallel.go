package eval

import (
	"runtime"
	"strings"

	"github.com/agentlab/agentlab/eval/suite"
)

// RemoteParallel is how many cases run at once by default when a variant
// calls a model over the network (openai, anthropic): enough to hide the
// latency of one call behind the others, few enough to stay clear of a
// provider's rate limits for one key. Set --parallel or settings.parallel
// to change it.
const RemoteParallel = 4

// DefaultParallel is how many cases run at once when neither --parallel
// nor settings.parallel says: one per core when every variant answers in
// this process (mock, script:FILE), RemoteParallel when any calls a model
// over the network. override is the --provider that replaces every
// variant's ("" none).
func DefaultParallel(vs []suite.Variant, override string) int {
	for _, v := range vs {
		p := v.Provider
		if override != "" {
			p = override
		}
		if !isLocalProvider(p) {
			return RemoteParallel
		}
	}
	return max(1, runtime.NumCPU())
}

// isLocalProvider reports whether a provider answers without the network.
func isLocalProvider(p string) bool {
	return p == "" || p == "mock" || strings.HasPrefix(p, "script:")
}

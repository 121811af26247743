package eval

import (
	"runtime"
	"testing"

	"github.com/agentlab/agentlab/eval/suite"
)

func TestDefaultParallel(t *testing.T) {
	cores := max(1, runtime.NumCPU())
	for _, tc := range []struct {
		name     string
		vs       []suite.Variant
		override string
		want     int
	}{
		{"mock only", []suite.Variant{{Provider: "mock"}}, "", cores},
		{"unset is the mock", []suite.Variant{{}}, "", cores},
		{"a script", []suite.Variant{{Provider: "script:answers.yml"}, {Provider: "mock"}}, "", cores},
		{"one remote variant", []suite.Variant{{Provider: "mock"}, {Provider: "anthropic"}}, "", RemoteParallel},
		{"remote overridden to the mock", []suite.Variant{{Provider: "openai"}}, "mock", cores},
		{"mock overridden to a remote", []suite.Variant{{Provider: "mock"}}, "openai", RemoteParallel},
	} {
		if got := DefaultParallel(tc.vs, tc.override); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/run/sandbox"
)

func TestSandboxResult(t *testing.T) {
	reasons := map[sandbox.Backend]string{sandbox.Bwrap: "bwrap is not installed (apt-get install bubblewrap)", sandbox.Process: "always available; NO ISOLATION"}
	tests := []struct {
		name     string
		info     sandbox.Info
		severity string // most severe finding
		summary  string
	}{
		{"bwrap works", sandbox.Info{Chosen: sandbox.Bwrap, Available: []sandbox.Backend{sandbox.Bwrap, sandbox.Process}, Reasons: reasons, User: "current user"},
			sevInfo, "bwrap (chosen automatically): no network, read-only host"},
		{"process only", sandbox.Info{Chosen: sandbox.Process, Available: []sandbox.Backend{sandbox.Process}, Reasons: reasons, User: "current user"},
			sevWarning, "process (chosen automatically) — NO ISOLATION"},
		{"process forced", sandbox.Info{Chosen: sandbox.Process, Forced: true, Available: []sandbox.Backend{sandbox.Bwrap, sandbox.Process}, Reasons: reasons},
			sevWarning, "forced by AGENTLAB_SANDBOX=process"},
		{"bwrap forced, broken", sandbox.Info{Chosen: sandbox.Bwrap, Forced: true, Available: []sandbox.Backend{sandbox.Process}, Reasons: reasons, Err: errors.New("AGENTLAB_SANDBOX=bwrap, but bwrap cannot run here")},
			sevError, "bwrap (forced by AGENTLAB_SANDBOX=bwrap) cannot run"},
		{"no such backend", sandbox.Info{Chosen: sandbox.Process, Available: []sandbox.Backend{sandbox.Process}, Reasons: reasons, Err: errors.New(`AGENTLAB_SANDBOX="docker" is not a backend`)},
			sevError, "AGENTLAB_SANDBOX names no backend: run and resume refuse to start"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := sandboxResult(tt.info)
			worst := sevInfo
			for _, f := range r.Findings {
				if f.Severity == sevError || f.Severity == sevWarning && worst == sevInfo {
					worst = f.Severity
				}
			}
			if worst != tt.severity || !strings.Contains(r.Summary, tt.summary) {
				t.Errorf("summary %q worst %s", r.Summary, worst)
			}
			if len(r.Findings) < 2 || !strings.HasPrefix(r.Findings[0].Message, "bwrap: ") || !strings.HasPrefix(r.Findings[1].Message, "process: ") {
				t.Errorf("backends not listed: %+v", r.Findings)
			}
		})
	}
}

package main

import (
	"os/exec"
	"strings"
	"testing"
)

func TestShellQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{".agentlab/artifacts/ab/cd", ".agentlab/artifacts/ab/cd"},
		{"/srv/agent lab/x", "'/srv/agent lab/x'"},
		{"it's", `'it'\''s'`},
		{"", "''"},
		{"a;rm -rf /", "'a;rm -rf /'"},
	}
	for _, tt := range tests {
		if got := shellQuote(tt.in); got != tt.want {
			t.Errorf("shellQuote(%q) = %s, want %s", tt.in, got, tt.want)
		}
		// The quoted form must come back as the original through a real shell.
		if sh, err := exec.LookPath("sh"); err == nil {
			out, err := exec.Command(sh, "-c", "printf %s "+shellQuote(tt.in)).Output()
			if err != nil || string(out) != tt.in {
				t.Errorf("sh printf %s = %q, %v", shellQuote(tt.in), out, err)
			}
		}
	}
}

func TestDoctorSectionsOrdered(t *testing.T) {
	saved := doctorSections
	defer func() { doctorSections = saved }()
	// Start from the two built-in sections only, so that sections other
	// files register (the real sandbox section) do not change the result.
	doctorSections = []doctorSection{{name: "runs", order: 10, run: doctorRuns}, {name: "store", order: 20, run: doctorStore}}
	addDoctorSection(doctorSection{name: "sandbox", order: 5, run: func(*doctorEnv) doctorResult {
		return doctorResult{Summary: "bubblewrap missing", Findings: []doctorFinding{{Severity: sevWarning, Message: "no bwrap"}}}
	}})
	res := runDoctor(&doctorEnv{dataDir: t.TempDir()})
	var names []string
	for _, r := range res {
		names = append(names, r.Name+"="+r.Status)
	}
	if got := strings.Join(names, ","); got != "sandbox=warn,runs=ok,store=ok" {
		t.Errorf("sections = %s", got)
	}
}

func TestDataDir(t *testing.T) {
	t.Setenv("AGENTLAB_DATA_DIR", "")
	if got := dataDir(""); got != "./.agentlab" {
		t.Errorf("default = %s", got)
	}
	t.Setenv("AGENTLAB_DATA_DIR", "/env")
	if got := dataDir(""); got != "/env" {
		t.Errorf("env = %s", got)
	}
	if got := dataDir("/flag"); got != "/flag" {
		t.Errorf("flag = %s", got)
	}
}

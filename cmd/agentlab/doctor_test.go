package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/compile"
	"github.com/agentlab/agentlab/run"
	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/run/store"
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

// TestDoctorKeepsPlanAndInputs runs a real flow and checks the store: the
// plan and inputs blobs (named by checkpoint.json and run.json, not by an
// event's artifact key) are the run's, not orphans "safe to delete"; a
// missing plan blob is an error naming the run.
func TestDoctorKeepsPlanAndInputs(t *testing.T) {
	dir := t.TempDir()
	flow := filepath.Join(dir, "flow.yml")
	src := "agentlab: 1\nname: tiny\ninputs:\n  q: {type: string, default: x}\nnodes:\n  - {id: t, type: transform, expr: \"input.q + '!'\"}\n"
	if err := os.WriteFile(flow, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p, list := compile.CompileFile(flow, compile.Options{})
	if p == nil || list.HasErrors() {
		t.Fatalf("compile: %v", list)
	}
	h, err := p.Hash()
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	out, err := run.Start(context.Background(), run.Options{DataDir: data, Plan: p, PlanHash: h, Source: flow})
	if err != nil || out.Seal == "" {
		t.Fatalf("run: %+v %v", out, err)
	}
	res := doctorStore(&doctorEnv{dataDir: data})
	if len(res.Findings) > 0 {
		t.Errorf("a fresh run's store has findings: %+v", res.Findings)
	}
	st, err := store.OpenFileStore(runlog.ArtifactsDir(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(st.Path(h)); err != nil {
		t.Fatal(err)
	}
	res = doctorStore(&doctorEnv{dataDir: data})
	want := "artifact " + h.String() + " is missing; referenced by run " + out.RunID
	if len(res.Findings) != 1 || res.Findings[0].Severity != sevError || res.Findings[0].Message != want {
		t.Errorf("findings %+v, want one error %q", res.Findings, want)
	}
}

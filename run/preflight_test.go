package run

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/run/engine"
	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/run/sources"
)

// preflightFlow is a flow with an agent naming an MCP tool (so that [mcp]
// is read) and a data source, answered by the script below.
const preflightFlow = `agentlab: 1
name: preflight
sources:
  sales: {kind: csv, path: sales.csv}
nodes:
  - id: ask
    type: agent
    prompt: "Look it up."
    tools: [mcp__notes__lookup]
  - id: out
    type: output
    fields: {answer: "{{ nodes.ask.text }}"}
edges:
  - ask -> out
`

// TestConfigRefusedBeforeTheRun: every piece of configuration a run reads
// ([http_fetch], [permissions], [mcp], permissions.json,
// AGENTLAB_MAX_AGENT_STEPS, the data sources) is checked before the run
// is created: a mistake is a usage error carrying its diagnostics, and no
// run directory, run id or "started" callback is left behind.
func TestConfigRefusedBeforeTheRun(t *testing.T) {
	// A user config.toml of this machine must not change the outcome.
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	tests := []struct {
		name  string
		toml  string
		env   string // AGENTLAB_MAX_AGENT_STEPS
		csv   string // sales.csv; "" leaves it out
		perms string // <data>/permissions.json; "" leaves it out
		want  string // in the error
		diags bool   // the error carries positioned diagnostics
	}{
		{name: "permissions", toml: "[permissions]\ngate_timeout_s = 0\n", csv: "a\n1\n", want: "agentlab.toml:2:1: error E-PERM-CONFIG", diags: true},
		{name: "http_fetch", toml: "[http_fetch]\nmax_bytes = \"big\"\n", csv: "a\n1\n", want: "agentlab.toml:2:1: error E-TOOL-FETCHCFG", diags: true},
		{name: "http_fetch allow-list", toml: "[http_fetch]\nallow = [\"a b\"]\n", csv: "a\n1\n", want: "agentlab.toml:2:1: error E-TOOL-FETCHCFG", diags: true},
		{name: "mcp table", toml: "[mcp]\nbogus = 1\n", csv: "a\n1\n", want: "error E-MCP-CONFIG", diags: true},
		{name: "mcp server undeclared", toml: "", csv: "a\n1\n", want: "no [[mcp.servers]] entry declares"},
		{name: "max agent steps", env: "many", csv: "a\n1\n", want: EnvMaxAgentSteps},
		{name: "data source", toml: "[[mcp.servers]]\nname = \"notes\"\ncommand = [\"notes\"]\n", want: "error E-SRC-OPEN", diags: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"flow.yml": preflightFlow}
			if tc.toml != "" {
				files["agentlab.toml"] = tc.toml
			}
			if tc.csv != "" {
				files["sales.csv"] = tc.csv
			}
			writeFiles(t, dir, files)
			t.Setenv(EnvMaxAgentSteps, tc.env)
			flow := filepath.Join(dir, "flow.yml")
			p, h := compileFlow(t, flow)
			data := filepath.Join(dir, "data")
			if tc.perms != "" {
				if err := os.MkdirAll(data, 0o755); err != nil {
					t.Fatal(err)
				}
				writeFiles(t, data, map[string]string{PermissionsFile: tc.perms})
			}
			started := ""
			_, err := Start(context.Background(), Options{DataDir: data, Plan: p, PlanHash: h, Source: flow, Epoch: &epoch,
				Started: func(id string) { started = id }})
			var ue *UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("err = %v, want a usage error", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
			var ce *ConfigError
			var le *sources.LoadError
			if got := errors.As(err, &ce) || errors.As(err, &le); got != tc.diags {
				t.Errorf("carries diagnostics = %v, want %v (%v)", got, tc.diags, err)
			}
			if started != "" {
				t.Errorf("Started(%q) was called for a refused run", started)
			}
			if _, err := os.Stat(filepath.Join(data, "runs")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a refused run left %s behind (%v)", filepath.Join(data, "runs"), err)
			}
		})
	}
}

// TestResumeRefusesConfigWithoutWriting: a resume whose configuration has
// become invalid is refused before it writes anything: run.json, the
// checkpoint and the events stay byte for byte as the failed attempt left
// them, and the run resumes once the configuration is fixed.
func TestResumeRefusesConfigWithoutWriting(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"flow.yml": `agentlab: 1
name: flaky
nodes:
  - id: parse
    type: transform
    expr: "int('not a number')"
    assign_to: v
  - id: out
    type: output
    fields: {v: "{{ vars.v }}"}
edges:
  - parse -> out
`,
	})
	flow := filepath.Join(dir, "flow.yml")
	p, h := compileFlow(t, flow)
	data := filepath.Join(dir, "data")
	out, err := Start(context.Background(), Options{DataDir: data, Plan: p, PlanHash: h, Source: flow, Epoch: &epoch})
	if err != nil || out.Status != engine.StatusFailed {
		t.Fatalf("first attempt: %+v %v", out, err)
	}
	runDir := filepath.Join(runlog.RunsDir(data), out.RunID)
	read := func() map[string][]byte {
		m := map[string][]byte{}
		for _, f := range []string{runlog.RecordFile, runlog.CheckpointFile, runlog.EventsFile} {
			b, err := os.ReadFile(filepath.Join(runDir, f))
			if err != nil {
				t.Fatal(err)
			}
			m[f] = b
		}
		return m
	}
	before := read()
	writeFiles(t, dir, map[string]string{"agentlab.toml": "[permissions]\ngate_timeout_s = 0\n"})
	// --plan with a new configuration of the same topology: not written either.
	p2 := *p
	p2.Name = "flaky2"
	h2, err := p2.Hash()
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []ResumeOptions{{DataDir: data, RunID: out.RunID, Epoch: &epoch}, {DataDir: data, RunID: out.RunID, Epoch: &epoch, Plan: &p2, PlanHash: h2}} {
		_, err = Resume(context.Background(), o)
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), "E-PERM-CONFIG") {
			t.Fatalf("resume: %v, want the [permissions] diagnostics", err)
		}
		after := read()
		for f, b := range before {
			if !bytes.Equal(b, after[f]) {
				t.Errorf("a refused resume changed %s:\n%s\n---\n%s", f, b, after[f])
			}
		}
	}
	if err := os.Remove(filepath.Join(dir, "agentlab.toml")); err != nil {
		t.Fatal(err)
	}
	res, err := Resume(context.Background(), ResumeOptions{DataDir: data, RunID: out.RunID, Epoch: &epoch})
	if err != nil || res.Status != engine.StatusFailed || !res.Resumed {
		t.Fatalf("resume after the fix: %+v %v", res, err)
	}
}

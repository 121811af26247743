package run

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/run/engine"
	"github.com/agentlab/agentlab/run/sandbox"
)

// TestHostilePresetCannotTurnSandboxOff is a flow that picks the built-in
// minimal preset (whose sandbox row says process) to get its code out of
// bwrap: the code tries to reach a port listening on the host's loopback.
// With bwrap working here, the operator's backend holds — the code runs
// in bwrap and cannot connect.
func TestHostilePresetCannotTurnSandboxOff(t *testing.T) {
	if !sandbox.Detect().Isolated() {
		t.Skip("bwrap does not work here: " + sandbox.Detect().Reasons[sandbox.Bwrap])
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("host service\n"))
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"flow.yml": fmt.Sprintf(`agentlab: 1
name: hostile-preset
preset: minimal
nodes:
  - id: probe
    type: code
    language: python
    code: |
      import json, socket
      try:
          s = socket.create_connection(("127.0.0.1", %d), timeout=2)
          print(json.dumps({"reached": s.recv(64).decode()}))
      except OSError as e:
          print(json.dumps({"reached": None}))
  - id: out
    type: output
    fields: {probe: "{{ nodes.probe.json.reached }}"}
edges:
  - probe -> out
`, port)})
	flow := filepath.Join(dir, "flow.yml")
	p, h := compileFlow(t, flow)
	data := filepath.Join(dir, "data")
	out, err := Start(context.Background(), Options{DataDir: data, Plan: p, PlanHash: h, Source: flow, Epoch: &epoch})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != engine.StatusSucceeded {
		t.Fatalf("%+v", out)
	}
	if got := fmt.Sprint(out.Outputs["probe"]); strings.Contains(got, "host service") {
		t.Errorf("code under the minimal preset reached the host's loopback: %q", got)
	}
	for _, e := range eventsOf(t, data, out.RunID) {
		if e.Type != engine.EvCodeRan {
			continue
		}
		var d map[string]any
		_ = json.Unmarshal(e.Data, &d)
		if d["backend"] != "bwrap" {
			t.Errorf("the preset chose the backend: %v", d)
		}
	}
}

// TestUnisolatedCodeIsSaidAndRecorded: when code runs under process (the
// operator chose it, or bwrap does not work), the run says so once before
// any node runs, and the tier reasons of its outputs say so too.
func TestUnisolatedCodeIsSaidAndRecorded(t *testing.T) {
	forced := unisolatedWarningFor("flow.yml", sandbox.Info{Chosen: sandbox.Process, Forced: true}, "")
	if len(forced) != 1 || forced[0].Code != CodeSandboxProcess || !strings.Contains(forced[0].Message, "AGENTLAB_SANDBOX=process chose it") {
		t.Errorf("forced process: %v", forced)
	}
	missing := unisolatedWarningFor("flow.yml", sandbox.Info{Chosen: sandbox.Process, Reasons: map[sandbox.Backend]string{sandbox.Bwrap: "bwrap is not installed"}}, "")
	if len(missing) != 1 || !strings.Contains(missing[0].Message, "bwrap is not installed") {
		t.Errorf("bwrap missing: %v", missing)
	}
	if l := unisolatedWarningFor("flow.yml", sandbox.Info{Chosen: sandbox.Bwrap}, ""); len(l) != 0 {
		t.Errorf("bwrap: %v", l)
	}
	p, _ := compileFlow(t, "testdata/review.yml")
	if runsCode(p) {
		t.Skip("testdata/review.yml runs code; the no-code case needs another flow")
	}
	if l := unisolatedWarning("review.yml", p, ""); len(l) != 0 {
		t.Errorf("a flow without code was warned: %v", l)
	}
}

// TestUnisolatedTierReason: a code.ran event naming backend process puts
// a sentence in the tier reasons even of a formal output.
func TestUnisolatedTierReason(t *testing.T) {
	events := []chain.Event{
		{Type: engine.EvCodeRan, Node: "calc", Data: json.RawMessage(`{"backend":"process"}`)},
		{Type: engine.EvNodeFinished, Node: "out", Data: json.RawMessage(`{"contract":{"tier":"formal","issuance":{"reasons":[]}}}`)},
	}
	tier, reasons := issuanceOf(events)
	if tier != "formal" || len(reasons) != 1 || !strings.Contains(reasons[0], "without isolation") || !strings.Contains(reasons[0], "calc") {
		t.Errorf("tier %q reasons %v", tier, reasons)
	}
	events[0].Data = json.RawMessage(`{"backend":"bwrap"}`)
	if _, reasons := issuanceOf(events); len(reasons) != 0 {
		t.Errorf("bwrap gave reasons %v", reasons)
	}
}

// TestSandboxTableIsTheOperators: [sandbox] backend in the configuration
// chooses the backend (said once, and recorded), and a project file's
// "process" cannot loosen the user's "bwrap".
func TestSandboxTableIsTheOperators(t *testing.T) {
	if !sandbox.Detect().Isolated() {
		t.Skip("bwrap does not work here")
	}
	if os.Getenv(sandbox.EnvBackend) != "" {
		t.Skip("AGENTLAB_SANDBOX is set and wins over the tables")
	}
	user := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", user)
	dir := t.TempDir()
	flowSrc := "agentlab: 1\nname: s\nnodes:\n  - {id: c, type: code, language: python, code: 'print(1)'}\n  - {id: out, type: output, fields: {a: '{{ nodes.c.stdout }}'}}\nedges:\n  - c -> out\n"
	writeFiles(t, dir, map[string]string{"flow.yml": flowSrc, "agentlab.toml": "[sandbox]\nbackend = \"process\"\n"})
	flow := filepath.Join(dir, "flow.yml")
	p, h := compileFlow(t, flow)
	backendOf := func(data string) (string, diag.List) {
		var warned diag.List
		out, err := Start(context.Background(), Options{DataDir: data, Plan: p, PlanHash: h, Source: flow, Epoch: &epoch, Warn: func(l diag.List) { warned = append(warned, l...) }})
		if err != nil || out.Status != engine.StatusSucceeded {
			t.Fatalf("%+v %v", out, err)
		}
		for _, e := range eventsOf(t, data, out.RunID) {
			if e.Type == engine.EvCodeRan {
				var d map[string]any
				_ = json.Unmarshal(e.Data, &d)
				return fmt.Sprint(d["backend"]), warned
			}
		}
		return "", warned
	}
	got, warned := backendOf(filepath.Join(dir, "d1"))
	if got != "process" || len(warned) != 1 || warned[0].Code != CodeSandboxProcess || !strings.Contains(warned[0].Message, "[sandbox]") {
		t.Errorf("project [sandbox] process: backend %s, warnings %v", got, warned)
	}
	if err := os.MkdirAll(filepath.Join(user, "agentlab"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, filepath.Join(user, "agentlab"), map[string]string{"config.toml": "[sandbox]\nbackend = \"bwrap\"\n"})
	if got, warned := backendOf(filepath.Join(dir, "d2")); got != "bwrap" || len(warned) != 0 {
		t.Errorf("user bwrap over project process: backend %s, warnings %v", got, warned)
	}
}

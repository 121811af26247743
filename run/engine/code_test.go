package engine

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/plan"
)

func needInterpreter(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s is not installed", name)
	}
}

func codePlan(lang, code string, extra ...any) *plan.Plan {
	src := nd("src", "transform", "expr", "{'n': 3}")
	c := nd("calc", "code", append([]any{"language", lang, "code", code}, extra...)...)
	c.AssignTo = "result"
	return mkPlan([]plan.Node{src, c}, edges("src -> calc"))
}

func TestCodeNodeParsesJSONStdout(t *testing.T) {
	needInterpreter(t, "python3")
	code := "import json, sys\ndoc = json.load(sys.stdin)\nprint(json.dumps({'double': doc['nodes']['src']['n'] * 2, 'week': doc['inputs']['week']}))\n"
	p := codePlan("python", code)
	p.Inputs = map[string]plan.Input{"week": {Type: "string", Default: "W47"}}
	res, rec := run(t, p, nil, withHost(Host{WorkDir: t.TempDir()}))
	if res.Status != StatusSucceeded {
		t.Fatalf("%s %v", res.Status, res.Err)
	}
	fin := eventData(rec, EvNodeFinished)
	out := fin[1]["output"].(map[string]any)
	if j := out["json"].(map[string]any); j["double"] != 6.0 || j["week"] != "W47" {
		t.Errorf("json = %v", j)
	}
	if v := fin[1]["vars"].(map[string]any)["result"].(map[string]any); v["double"] != 6.0 {
		t.Errorf("assign_to = %v", v)
	}
	if fin[1]["evidence_role"] != "compute" {
		t.Errorf("evidence_role = %v", fin[1]["evidence_role"])
	}
	ran := eventData(rec, EvCodeRan)
	if len(ran) != 1 || (ran[0]["backend"] != "bwrap" && ran[0]["backend"] != "process") {
		t.Errorf("code.ran = %v", ran)
	}
}

func TestCodeNodeTextStdoutAndJavaScript(t *testing.T) {
	needInterpreter(t, "node")
	res, rec := run(t, codePlan("javascript", "process.stdout.write('plain text')"), nil)
	if res.Status != StatusSucceeded {
		t.Fatalf("%s %v", res.Status, res.Err)
	}
	fin := eventData(rec, EvNodeFinished)
	if v := fin[1]["vars"].(map[string]any)["result"]; v != "plain text" {
		t.Errorf("assign_to = %v", v)
	}
	if _, ok := fin[1]["output"].(map[string]any)["json"]; ok {
		t.Error("text stdout was given a json field")
	}
}

func TestCodeNodeEnvironmentIsEmptied(t *testing.T) {
	needInterpreter(t, "python3")
	t.Setenv("AGENTLAB_TEST_SECRET", "hunter2")
	code := "import os, json\nprint(json.dumps(sorted(os.environ.keys())))\n"
	res, rec := run(t, codePlan("python", code), nil)
	if res.Status != StatusSucceeded {
		t.Fatalf("%s %v", res.Status, res.Err)
	}
	keys := eventData(rec, EvNodeFinished)[1]["output"].(map[string]any)["json"].([]any)
	for _, k := range keys {
		switch k {
		case "PATH", "TEMP", "TMP", "PWD", "SHLVL", "_", "LC_CTYPE":
		default:
			t.Errorf("variable %v reached the code", k)
		}
	}
}

func TestCodeNodeTimeoutAndExitCode(t *testing.T) {
	needInterpreter(t, "python3")
	p := codePlan("python", "import time\ntime.sleep(30)\n")
	p.Nodes[1].TimeoutS = 1
	res, rec := run(t, p, nil)
	if res.Status != StatusFailed || !strings.Contains(res.Err.Error(), `timed out after 1s`) {
		t.Fatalf("timeout: %s %v", res.Status, res.Err)
	}
	// code.ran records the timeout, whichever of the node's deadline and
	// the sandbox's timer fired first.
	for _, e := range rec.events {
		if e.Type == EvCodeRan && !strings.Contains(string(e.Data), `"timed_out":true`) {
			t.Errorf("code.ran of a node that timed out: %s", e.Data)
		}
	}
	res, _ = run(t, codePlan("python", "import sys\nsys.stderr.write('bad input\\n')\nsys.exit(3)\n"), nil)
	if res.Status != StatusFailed || !strings.Contains(res.Err.Error(), "exited with code 3:\nbad input") {
		t.Fatalf("exit code: %s %v", res.Status, res.Err)
	}
}

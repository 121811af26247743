package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/internal/evfixture"
)

// TestEditedRunJSONOutputsAreNotShown: someone edits the outputs in a
// sealed run's run.json (which the seal does not cover); `runs show` and
// `resume` still print the outputs the sealed run.finished event records.
func TestEditedRunJSONOutputsAreNotShown(t *testing.T) {
	exe := agentlabExe(t)
	work := t.TempDir()
	flow := filepath.Join(work, "flow.yml")
	os.WriteFile(flow, []byte("agentlab: 1\nname: o\nnodes:\n  - id: out\n    type: output\n    fields: {total: \"42\"}\n"), 0o644)
	agentlab := func(args ...string) string {
		cmd := exec.Command(exe, args...)
		cmd.Env = append(os.Environ(), "CI=true", "NO_COLOR=1", "SOURCE_DATE_EPOCH=1700000000")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	data := filepath.Join(work, "data")
	agentlab("run", flow, "--data-dir", data, "-q")
	id := findRun(t, data)
	if err := evfixture.EditRecord(filepath.Join(data, "runs", id), func(rec map[string]any) {
		rec["outputs"] = map[string]any{"total": "999999"}
	}); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"runs", "show", id, "--data-dir", data},
		{"runs", "show", id, "--data-dir", data, "--format", "json"},
		{"resume", id, "--data-dir", data, "--format", "json"},
	} {
		out := agentlab(args...)
		if strings.Contains(out, "999999") || !strings.Contains(out, "42") {
			t.Errorf("%v printed the edited outputs:\n%s", args, out)
		}
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/agentlab/agentlab/run/runlog"
)

// procResult is one `agentlab run` process run in parallel with others.
type procResult struct {
	code   int
	stdout string
	stderr string
}

// runProcs starts n `agentlab run` processes at once on one data dir, with
// or without SOURCE_DATE_EPOCH, and waits for all of them.
func runProcs(t *testing.T, exe, flow, dir string, n int, epoch bool) []procResult {
	t.Helper()
	res := make([]procResult, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		cmd := exec.Command(exe, "run", flow, "--data-dir", dir, "--format", "json", "-q")
		cmd.Env = append(os.Environ(), "CI=true", "NO_COLOR=1")
		if epoch {
			cmd.Env = append(cmd.Env, "SOURCE_DATE_EPOCH=1700000000")
		} else {
			cmd.Env = append(cmd.Env, "SOURCE_DATE_EPOCH=")
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func(i int, cmd *exec.Cmd) {
			defer wg.Done()
			cmd.Wait()
			res[i] = procResult{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
		}(i, cmd)
	}
	wg.Wait()
	return res
}

// TestTwoProcessesOneDataDir runs `agentlab run` in several processes at
// once on one data dir: distinct runs all succeed with identical outputs
// and verify; the same run (one id derived under SOURCE_DATE_EPOCH) is
// created by exactly one process, and every other one exits with a clear
// error naming the run, never with damage.
func TestTwoProcessesOneDataDir(t *testing.T) {
	exe := agentlabExe(t)
	flow, err := filepath.Abs("testdata/kill/flow.yml")
	if err != nil {
		t.Fatal(err)
	}
	t.Run("distinct-runs", func(t *testing.T) {
		dir := t.TempDir()
		res := runProcs(t, exe, flow, dir, 4, false)
		var first map[string]any
		for i, r := range res {
			if r.code != exitOK {
				t.Fatalf("process %d exited %d:\n%s", i, r.code, r.stderr)
			}
			var jr jsonResult
			if err := jsonUnmarshal(r.stdout, &jr); err != nil {
				t.Fatalf("process %d: %v", i, err)
			}
			if first == nil {
				first = jr.Outputs
			} else if !reflect.DeepEqual(first, jr.Outputs) {
				t.Fatalf("process %d: outputs differ", i)
			}
			checkRunClean(t, dir, jr.Run)
		}
		if recs, _ := runlog.List(dir); len(recs) != len(res) {
			t.Fatalf("%d runs recorded for %d processes", len(recs), len(res))
		}
		t.Logf("RESULT concurrent-processes distinct-runs processes=%d lost=0", len(res))
	})
	t.Run("same-run-id", func(t *testing.T) {
		dir := t.TempDir()
		res := runProcs(t, exe, flow, dir, 4, true)
		won := 0
		var id string
		for i, r := range res {
			if r.code == exitOK {
				won++
				var jr jsonResult
				if err := jsonUnmarshal(r.stdout, &jr); err != nil {
					t.Fatalf("process %d: %v", i, err)
				}
				id = jr.Run
				continue
			}
			if !strings.Contains(r.stderr, "already exists") && !strings.Contains(r.stderr, "in use") {
				t.Errorf("process %d exited %d without a clear error:\n%s", i, r.code, r.stderr)
			}
		}
		if won != 1 {
			t.Fatalf("%d processes ran the same run id, want exactly 1", won)
		}
		checkRunClean(t, dir, id)
		t.Logf("RESULT concurrent-processes same-run-id processes=%d succeeded=1 refused=%d lost=0", len(res), len(res)-1)
	})
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

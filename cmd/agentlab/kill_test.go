package main

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/run/store"
)

// agentlabExe returns a path that runs this test binary as agentlab
// (testscript.Main dispatches on the program name).
func agentlabExe(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "agentlab")
	if err := os.Symlink(exe, link); err != nil {
		t.Skipf("cannot link the test binary: %v", err)
	}
	return link
}

type jsonResult struct {
	Run     string         `json:"run"`
	Status  string         `json:"status"`
	Seal    *string        `json:"seal"`
	Outputs map[string]any `json:"outputs"`
}

func runJSON(t *testing.T, exe string, args ...string) (jsonResult, error) {
	t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "CI=true", "NO_COLOR=1", "SOURCE_DATE_EPOCH=1700000000")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var res jsonResult
	if jerr := json.Unmarshal(stdout.Bytes(), &res); jerr != nil && err == nil {
		t.Fatalf("%v: stdout is not JSON: %v\n%s\nstderr:\n%s", args, jerr, stdout.Bytes(), stderr.Bytes())
	}
	if err != nil {
		t.Logf("%v: %v\n%s", args, err, stderr.Bytes())
	}
	return res, err
}

// TestKillAndResume kills `agentlab run` with SIGKILL at random moments
// until 60 kills have landed while the run was running (15 with -short, 240
// with AGENTLAB_LONG=1, or AGENTLAB_KILL_TRIALS), and checks that resume
// always completes with the outputs of an uninterrupted run, the chain
// verifies and the store is clean. Attempts whose kill came before the run
// started or after it finished are checked the same way but not counted as
// trials; the kill window adapts to how fast runs go on a loaded machine.
func TestKillAndResume(t *testing.T) {
	exe := agentlabExe(t)
	flow, err := filepath.Abs("testdata/kill/flow.yml")
	if err != nil {
		t.Fatal(err)
	}
	refDir := t.TempDir()
	ref, runDur := timedRun(t, exe, flow, refDir)
	if ref.Status != "succeeded" {
		t.Fatalf("reference run: %+v", ref)
	}
	full := runDur
	trials := 60
	if testing.Short() {
		trials = 15
	}
	if n := longKillTrials(); n > 0 {
		trials = n
	}
	seed := time.Now().UnixNano()
	t.Logf("reference run %v; %d trials, seed %d", full, trials, seed)
	rng := rand.New(rand.NewSource(seed))
	window := full + full/10
	killedMidway, atStart, finishedFirst, resumesKilled := 0, 0, 0, 0
	maxAttempts := 6*trials + 20
	attempts := 0
	for ; killedMidway < trials; attempts++ {
		if attempts == maxAttempts {
			t.Fatalf("only %d of %d attempts were killed while running (window %v, reference run %v)", killedMidway, attempts, window, full)
		}
		i := attempts
		dir := t.TempDir()
		// Most kills land while nodes run (after events.jsonl appears);
		// every sixth one lands anywhere, start-up included.
		delay := time.Duration(rng.Int63n(int64(window) + 1))
		cmd := exec.Command(exe, "run", flow, "--data-dir", dir, "--format", "json", "-q")
		cmd.Env = append(os.Environ(), "CI=true", "NO_COLOR=1", "SOURCE_DATE_EPOCH=1700000000")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if i%6 != 5 {
			waitForEvents(dir, 10*time.Second)
		}
		time.Sleep(delay)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()

		id := findRun(t, dir)
		var res jsonResult
		if id == "" || !hasCheckpoint(dir, id) {
			// Killed before the run could start: nothing to resume, run again.
			atStart++
			res, err = runJSON(t, exe, "run", flow, "--data-dir", dir, "--format", "json", "-q")
		} else {
			if snap, _ := runlog.OpenReadOnly(dir, id); snap != nil && snap.Record.Status != "succeeded" {
				killedMidway++
				window += window / 20
				if window > 2*full {
					window = 2 * full
				}
				if i%4 == 0 {
					// Kill the resume too, part-way.
					resumesKilled++
					rc := exec.Command(exe, "resume", id, "--data-dir", dir, "-q")
					rc.Env = append(os.Environ(), "CI=true", "NO_COLOR=1", "SOURCE_DATE_EPOCH=1700000000")
					if err := rc.Start(); err != nil {
						t.Fatal(err)
					}
					time.Sleep(time.Duration(rng.Int63n(int64(full))))
					_ = rc.Process.Kill()
					_ = rc.Wait()
				}
			} else {
				// The run finished before the kill: aim earlier next time.
				finishedFirst++
				window -= window / 4
			}
			res, err = runJSON(t, exe, "resume", id, "--data-dir", dir, "--format", "json", "-q")
		}
		if err != nil || res.Status != "succeeded" {
			t.Fatalf("attempt %d (kill after %v): %v %+v", i, delay, err, res)
		}
		if !reflect.DeepEqual(res.Outputs, ref.Outputs) {
			t.Fatalf("attempt %d (kill after %v): outputs differ:\n%v\nwant\n%v", i, delay, res.Outputs, ref.Outputs)
		}
		checkRunClean(t, dir, res.Run)
	}
	t.Logf("%d of %d attempts were killed while running", killedMidway, attempts)
	t.Logf("RESULT sigkill trials=%d attempts=%d killed-at-start=%d finished-before-kill=%d resumes-killed=%d lost=0",
		killedMidway, attempts, atStart, finishedFirst, resumesKilled)
}

// timedRun runs the flow once and measures the time from the first event
// to the end of the process.
func timedRun(t *testing.T, exe, flow, dir string) (jsonResult, time.Duration) {
	t.Helper()
	cmd := exec.Command(exe, "run", flow, "--data-dir", dir, "--format", "json", "-q")
	cmd.Env = append(os.Environ(), "CI=true", "NO_COLOR=1", "SOURCE_DATE_EPOCH=1700000000")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitForEvents(dir, 10*time.Second)
	start := time.Now()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("reference run: %v", err)
	}
	var res jsonResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	return res, time.Since(start)
}

// waitForEvents polls until a run's events.jsonl exists under dir.
func waitForEvents(dir string, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if m, _ := filepath.Glob(filepath.Join(dir, "runs", "*", runlog.EventsFile)); len(m) > 0 {
			return
		}
		time.Sleep(500 * time.Microsecond)
	}
}

func findRun(t *testing.T, dir string) string {
	ents, _ := os.ReadDir(filepath.Join(dir, "runs"))
	for _, e := range ents {
		if e.IsDir() {
			return e.Name()
		}
	}
	return ""
}

func hasCheckpoint(dir, id string) bool {
	_, err := os.Stat(filepath.Join(dir, "runs", id, runlog.CheckpointFile))
	return err == nil
}

// checkRunClean verifies the chain and that the store holds every
// referenced artifact intact.
func checkRunClean(t *testing.T, dir, id string) {
	t.Helper()
	snap, err := runlog.OpenReadOnly(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Problems) > 0 || snap.Torn != nil {
		t.Fatalf("run %s: chain problems %v torn %v", id, snap.Problems, snap.Torn)
	}
	if snap.Record.Seal == "" {
		t.Fatalf("run %s not sealed", id)
	}
	ref := map[hashid.ID]bool{}
	for _, s := range chain.ReferencedArtifacts(snap.Events) {
		h, err := hashid.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		ref[h] = true
	}
	st, err := store.OpenFileStore(runlog.ArtifactsDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := st.Check(ref)
	if err != nil || !rep.OK() {
		t.Fatalf("store check: %v %s", err, rep)
	}
}

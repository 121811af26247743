package main

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
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

// jsonResult is the part of run's --format json result the concurrency
// tests read.
type jsonResult struct {
	Run     string         `json:"run"`
	Status  string         `json:"status"`
	Seal    *string        `json:"seal"`
	Outputs map[string]any `json:"outputs"`
}

// TestKillAndResume kills `agentlab run` with SIGKILL at random moments
// until 60 kills have landed while a run was running (15 with -short, 240
// with AGENTLAB_LONG=1, or AGENTLAB_KILL_TRIALS), taking the crash flows
// in turn (a tool node, metrics and a report; an agent; a human node; a
// wide graph with a loop). Every interrupted run must finish — by resume,
// and approvals where it waits for a person — with the outputs, report.html
// and bundle.html of an uninterrupted run, a bundle that verifies and a clean
// store. A run directory always holds its checkpoint, so a run killed at
// any instant after its directory appeared resumes. Attempts whose kill
// came before the run directory appeared or after the run finished are
// checked the same way but not counted as trials; the kill window adapts
// to how fast runs go on a loaded machine.
func TestKillAndResume(t *testing.T) {
	exe := agentlabExe(t)
	type flowState struct {
		path   string
		ref    crashResult
		full   time.Duration
		window time.Duration
	}
	var flows []*flowState
	for _, rel := range crashFlows {
		flow, err := filepath.Abs(rel)
		if err != nil {
			t.Fatal(err)
		}
		refDir := t.TempDir()
		start := time.Now()
		ref, _ := finishRun(t, exe, flow, refDir, nil)
		full := time.Since(start)
		flows = append(flows, &flowState{path: flow, ref: ref, full: full, window: full + full/10})
	}
	trials := 60
	if testing.Short() {
		trials = 15
	}
	if n := longKillTrials(); n > 0 {
		trials = n
	}
	seed := time.Now().UnixNano()
	t.Logf("%d trials over %d flows, seed %d", trials, len(flows), seed)
	rng := rand.New(rand.NewSource(seed))
	killedMidway, atStart, finishedFirst, resumesKilled := 0, 0, 0, 0
	maxAttempts := 6*trials + 20
	attempts := 0
	for ; killedMidway < trials; attempts++ {
		if attempts == maxAttempts {
			t.Fatalf("only %d of %d attempts were killed while running", killedMidway, attempts)
		}
		i := attempts
		f := flows[i%len(flows)]
		dir := t.TempDir()
		// Most kills land while nodes run (after events.jsonl appears);
		// every sixth one lands anywhere, start-up included.
		delay := time.Duration(rng.Int63n(int64(f.window) + 1))
		cmd := exec.Command(exe, "run", f.path, "--data-dir", dir, "--format", "json", "-q")
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
		switch {
		case id == "":
			atStart++ // killed before the run directory appeared: finishRun starts it
		case !hasCheckpoint(dir, id):
			t.Fatalf("attempt %d (kill after %v): run directory %s has no checkpoint", i, delay, id)
		default:
			snap, _ := runlog.OpenReadOnly(dir, id)
			if snap != nil && snap.Record.Status == "running" {
				killedMidway++
				f.window += f.window / 20
				if f.window > 2*f.full {
					f.window = 2 * f.full
				}
				if i%4 == 0 {
					// Kill the resume too, part-way.
					resumesKilled++
					rc := exec.Command(exe, "resume", id, "--data-dir", dir, "-q")
					rc.Env = append(os.Environ(), "CI=true", "NO_COLOR=1", "SOURCE_DATE_EPOCH=1700000000")
					if err := rc.Start(); err != nil {
						t.Fatal(err)
					}
					time.Sleep(time.Duration(rng.Int63n(int64(f.full))))
					_ = rc.Process.Kill()
					_ = rc.Wait()
				}
			} else {
				// The run finished (or paused) before the kill: aim earlier next time.
				finishedFirst++
				f.window -= f.window / 4
			}
		}
		what := fmt.Sprintf("attempt %d, %s, kill after %v", i, filepath.Base(filepath.Dir(f.path)), delay)
		res, _ := finishRun(t, exe, f.path, dir, nil)
		if !reflect.DeepEqual(res.Outputs, f.ref.Outputs) {
			t.Fatalf("%s: outputs differ:\n%v\nwant\n%v", what, res.Outputs, f.ref.Outputs)
		}
		samePages(t, exe, f.ref, res, what)
		checkRunClean(t, dir, res.Run)
	}
	t.Logf("%d of %d attempts were killed while running", killedMidway, attempts)
	t.Logf("RESULT sigkill trials=%d flows=%d attempts=%d killed-at-start=%d finished-before-kill=%d resumes-killed=%d lost=0",
		killedMidway, len(flows), attempts, atStart, finishedFirst, resumesKilled)
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
		// .tmp-<id>-… is a run directory still being built (or left by a
		// crash while it was): not a run.
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
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

package run_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/compile"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run"
	"github.com/agentlab/agentlab/run/engine"
	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/run/store"
	"github.com/agentlab/agentlab/run/store/faultfs"
)

// The fault matrix drives a whole multi-node run (run.Start) over a disk
// that fails at the Nth operation of each kind of fault, for every N the
// clean run reaches, then resumes it over the real disk. Every trial must
// end with the outputs of an uninterrupted run, a chain that verifies, a
// clean store and no node that had finished before the fault run again.

const faultFlow = "testdata/faults.yml"

var faultEpoch = time.Unix(1700000000, 0).UTC()

func faultPlan(t *testing.T) (*plan.Plan, hashid.ID) {
	t.Helper()
	p, list := compile.CompileFile(faultFlow, compile.Options{})
	if p == nil || list.HasErrors() {
		t.Fatalf("compile %s: %v", faultFlow, list)
	}
	h, err := p.Hash()
	if err != nil {
		t.Fatal(err)
	}
	return p, h
}

func faultOptions(dir string, p *plan.Plan, h hashid.ID) run.Options {
	return run.Options{DataDir: dir, Plan: p, PlanHash: h, Source: faultFlow, Seed: 7, Epoch: &faultEpoch, OutDir: filepath.Join(dir, "out"), Parallel: 1}
}

// startOver runs Start over fsys and returns what it did.
func startOver(t *testing.T, fsys store.FS, o run.Options) (*run.Outcome, error) {
	t.Helper()
	restore := store.SetTestFS(fsys)
	defer restore()
	return run.Start(context.Background(), o)
}

// faultTrials returns the operation indices to fail: every second one
// plus the last; every fifth with -short; all of them with AGENTLAB_LONG=1
// (scripts/longtests.sh).
func faultTrials(count int) []int {
	step := 2
	switch {
	case os.Getenv("AGENTLAB_LONG") == "1":
		step = 1
	case testing.Short():
		step = 5
	}
	var at []int
	for i := 1; i <= count; i += step {
		at = append(at, i)
	}
	if len(at) > 0 && at[len(at)-1] != count {
		at = append(at, count)
	}
	return at
}

// faultResults is what TestFaultMatrix tallies per kind, for the results
// table in docs/security.md (printed with -v).
type faultResults struct {
	trials, failedClean, absorbed, resumed, rerun, unreached int
}

func TestFaultMatrix(t *testing.T) {
	p, h := faultPlan(t)
	ref, err := run.Start(context.Background(), faultOptions(t.TempDir(), p, h))
	if err != nil || ref.Status != engine.StatusSucceeded {
		t.Fatalf("reference run: %+v %v", ref, err)
	}
	// The flow is built so that node payloads go to the store too (the
	// loop's collected output is over runlog.InlineLimit): faults then hit
	// blob writes in the middle of the run, not only at its start.
	blobs := 0
	st, _ := store.OpenFileStore(runlog.ArtifactsDir(filepath.Dir(ref.OutDir)))
	st.List(func(hashid.ID, int64) error { blobs++; return nil })
	if blobs < 3 {
		t.Fatalf("the reference run stored only %d blobs", blobs)
	}
	writeKinds := []faultfs.Kind{faultfs.NoSpace, faultfs.IOError, faultfs.ShortWrite, faultfs.SyncFail, faultfs.RenameFail, faultfs.Denied}
	total := 0
	// One node at a time makes the operations of every trial the same;
	// the long form also runs three at a time, where the scheduler and
	// group commits reorder and batch the writes.
	parallel := []int{1}
	if os.Getenv("AGENTLAB_LONG") == "1" {
		parallel = append(parallel, 3)
	}
	for _, par := range parallel {
		for _, kind := range writeKinds {
			t.Run(fmt.Sprintf("%s/parallel-%d", kind, par), func(t *testing.T) {
				counter := faultfs.New(t.TempDir(), kind, 0)
				o := faultOptions(counter.Root, p, h)
				o.Parallel = par
				if out, err := startOver(t, counter, o); err != nil || out.Status != engine.StatusSucceeded {
					t.Fatalf("counting run: %+v %v", out, err)
				}
				n := counter.Count()
				if n == 0 {
					t.Fatalf("a run performs no operation that %s applies to", kind)
				}
				var res faultResults
				for _, at := range faultTrials(n) {
					res.trials++
					faultTrial(t, kind, at, par, p, h, ref, &res)
				}
				total += res.trials
				t.Logf("RESULT fault=%s parallel=%d operations=%d trials=%d failed-cleanly=%d absorbed=%d resumed=%d restarted=%d unreached=%d lost=0",
					kind, par, n, res.trials, res.failedClean, res.absorbed, res.resumed, res.rerun, res.unreached)
			})
		}
	}
	t.Logf("RESULT fault=all trials=%d lost=0", total)
}

// faultTrial runs the flow with kind injected at operation at, checks the
// state it leaves, resumes over the real disk and checks the result.
func faultTrial(t *testing.T, kind faultfs.Kind, at, par int, p *plan.Plan, h hashid.ID, ref *run.Outcome, res *faultResults) {
	t.Helper()
	dir := t.TempDir()
	ffs := faultfs.New(dir, kind, at)
	o := faultOptions(dir, p, h)
	o.Parallel = par
	out, err := startOver(t, ffs, o)
	where := fmt.Sprintf("%s at operation %d (%s)", kind, at, ffs.Last())
	if ffs.Fired() == 0 {
		// Group commits batch events by timing, so a run performs a few
		// operations more or fewer than the counting run; an index past
		// the end is a clean run, which must then be a correct one.
		if err != nil || out.Status != engine.StatusSucceeded || !reflect.DeepEqual(out.Outputs, ref.Outputs) {
			t.Fatalf("%s: no fault fired, yet the run did not succeed: %+v %v", where, out, err)
		}
		res.unreached++
		checkFaultRun(t, where, dir, out.RunID, true)
		return
	}
	if err == nil && out.Status == engine.StatusSucceeded {
		// The fault hit an operation whose failure is harmless to the
		// result (a directory fsync after the data was durable, say) and
		// the run carried on. That is fine only if everything checks out.
		res.absorbed++
		t.Logf("%s: absorbed", where)
		if !reflect.DeepEqual(out.Outputs, ref.Outputs) {
			t.Fatalf("%s: succeeded with different outputs", where)
		}
		checkFaultRun(t, where, dir, out.RunID, true)
		return
	}
	// The run must say what went wrong, naming the fault.
	msg := ""
	if err != nil {
		msg = err.Error()
	} else {
		msg = out.Error
	}
	if !mentionsFault(kind, msg) {
		t.Fatalf("%s: the error does not say what failed: %q", where, msg)
	}
	if kind == faultfs.NoSpace || kind == faultfs.Denied {
		if err != nil && !store.IsPermanent(err) && !strings.Contains(msg, "permanent") && !errorsIsPermanentText(msg) {
			t.Fatalf("%s: a permanent fault is not reported as such: %q", where, msg)
		}
	}
	res.failedClean++

	// What the failed attempt left must already be sound.
	id := runID(t, dir)
	var before []chain.Event
	if id != "" {
		if _, err := os.Stat(filepath.Join(dir, "runs", id)); err == nil {
			snap, err := runlog.OpenReadOnly(dir, id)
			if err != nil {
				t.Fatalf("%s: the interrupted run cannot be read: %v", where, err)
			}
			if len(snap.Problems) > 0 || snap.Torn != nil {
				t.Fatalf("%s: the event log is damaged: %v torn %v", where, snap.Problems, snap.Torn)
			}
			before = snap.Events
		}
	}
	checkStoreSound(t, where, dir)

	// Resume over the real disk (or start again when the run never got as
	// far as its checkpoint: there is nothing to resume).
	var fin *run.Outcome
	if id != "" && hasCheckpointFile(dir, id) {
		res.resumed++
		fin, err = run.Resume(context.Background(), run.ResumeOptions{DataDir: dir, RunID: id, Epoch: &faultEpoch})
	} else {
		res.rerun++
		fin, err = run.Start(context.Background(), o)
	}
	if err != nil || fin.Status != engine.StatusSucceeded {
		t.Fatalf("%s: resume: %+v %v", where, fin, err)
	}
	if !reflect.DeepEqual(fin.Outputs, ref.Outputs) {
		t.Fatalf("%s: outputs differ after resume:\n%v\nwant\n%v", where, fin.Outputs, ref.Outputs)
	}
	after := checkFaultRun(t, where, dir, fin.RunID, true)
	// Nothing the failed attempt recorded is lost or redone: its events are
	// a prefix of the final log, and a node that had finished does not
	// start again.
	if len(before) > len(after) {
		t.Fatalf("%s: the log shrank from %d to %d events", where, len(before), len(after))
	}
	done := map[string]bool{}
	for i, e := range before {
		if after[i].Hash != e.Hash {
			t.Fatalf("%s: event %d changed on resume", where, e.Seq)
		}
		if e.Type == chain.TypeNodeFinished {
			done[e.Node] = true
		}
	}
	for _, e := range after[len(before):] {
		if e.Type == chain.TypeNodeStarted && done[e.Node] {
			t.Fatalf("%s: node %s finished before the fault and ran again", where, e.Node)
		}
	}
	want, _ := os.ReadFile(filepath.Join(ref.OutDir, "outputs.json"))
	got, err := os.ReadFile(filepath.Join(fin.OutDir, "outputs.json"))
	// outputs.json is written before the seal, so a run that resume
	// reports as finished always has it.
	if !bytes.Equal(want, got) {
		t.Fatalf("%s: outputs.json differs or is missing: %v", where, err)
	}
}

func errorsIsPermanentText(msg string) bool {
	return strings.Contains(msg, syscall.ENOSPC.Error()) || strings.Contains(msg, syscall.EACCES.Error())
}

// mentionsFault reports whether msg names the injected failure.
func mentionsFault(kind faultfs.Kind, msg string) bool {
	switch kind {
	case faultfs.NoSpace:
		return strings.Contains(msg, syscall.ENOSPC.Error())
	case faultfs.Denied:
		return strings.Contains(msg, syscall.EACCES.Error())
	case faultfs.ShortWrite:
		return strings.Contains(msg, "short write")
	}
	return strings.Contains(msg, syscall.EIO.Error())
}

func runID(t *testing.T, dir string) string {
	ents, err := os.ReadDir(filepath.Join(dir, "runs"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() {
			return e.Name()
		}
	}
	return ""
}

func hasCheckpointFile(dir, id string) bool {
	_, err := os.Stat(filepath.Join(dir, "runs", id, runlog.CheckpointFile))
	return err == nil
}

// checkStoreSound asserts that no file under a blob's name fails to hash
// to that name: a fault may leave temp files, never a half-written blob.
func checkStoreSound(t *testing.T, where, dir string) {
	t.Helper()
	if _, err := os.Stat(runlog.ArtifactsDir(dir)); errors.Is(err, fs.ErrNotExist) {
		return
	}
	st, err := store.OpenFileStore(runlog.ArtifactsDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := st.Check(nil)
	if err != nil || len(rep.Corrupt) > 0 || len(rep.Unreadable) > 0 {
		t.Fatalf("%s: store: %v %s %v", where, err, rep, rep.Corrupt)
	}
}

// checkFaultRun verifies a finished run: sealed, the chain verifies, every
// referenced artifact is present and intact. It returns the events.
func checkFaultRun(t *testing.T, where, dir, id string, sealed bool) []chain.Event {
	t.Helper()
	snap, err := runlog.OpenReadOnly(dir, id)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	if len(snap.Problems) > 0 || snap.Torn != nil {
		t.Fatalf("%s: chain problems %v torn %v", where, snap.Problems, snap.Torn)
	}
	if sealed && snap.Record.Seal == "" {
		t.Fatalf("%s: run %s not sealed", where, id)
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
		t.Fatalf("%s: store check: %v %s", where, err, rep)
	}
	return snap.Events
}

// TestReadFaultsOnResume interrupts a run half-way, then resumes it over a
// disk whose Nth read fails: once (a transient EIO, which must be retried
// and go unnoticed) or twice in a row (which must fail the resume with a
// clear error and no damage, after which a resume over the real disk
// finishes the run).
func TestReadFaultsOnResume(t *testing.T) {
	p, h := faultPlan(t)
	ref, err := run.Start(context.Background(), faultOptions(t.TempDir(), p, h))
	if err != nil || ref.Status != engine.StatusSucceeded {
		t.Fatalf("reference run: %+v %v", ref, err)
	}
	// interrupted cancels a run right after its loop node finished, so
	// that resume reads back the plan, the inputs and the loop's payload
	// from the store as well as the run files.
	interrupted := func(t *testing.T) (string, string) {
		dir := t.TempDir()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		o := faultOptions(dir, p, h)
		o.Observe = func(u engine.Update) {
			if u.Node == "each" && u.State == engine.StateFinished {
				cancel()
			}
		}
		out, err := run.Start(ctx, o)
		if err != nil || out.Status != engine.StatusCancelled {
			t.Fatalf("the run was not interrupted: %+v %v", out, err)
		}
		return dir, out.RunID
	}
	resumeOver := func(fsys store.FS, dir, id string) (*run.Outcome, error) {
		restore := store.SetTestFS(fsys)
		defer restore()
		return run.Resume(context.Background(), run.ResumeOptions{DataDir: dir, RunID: id, Epoch: &faultEpoch})
	}
	for _, kind := range []faultfs.Kind{faultfs.ReadFlaky, faultfs.ReadBroken} {
		t.Run(kind.String(), func(t *testing.T) {
			dir, id := interrupted(t)
			counter := faultfs.New(dir, kind, 0)
			if out, err := resumeOver(counter, dir, id); err != nil || out.Status != engine.StatusSucceeded {
				t.Fatalf("counting resume: %+v %v", out, err)
			}
			n := counter.Count()
			if n < 4 {
				t.Fatalf("a resume performs only %d reads", n)
			}
			var retried, failed int
			for _, at := range faultTrials(n) {
				dir, id := interrupted(t)
				ffs := faultfs.New(dir, kind, at)
				out, err := resumeOver(ffs, dir, id)
				where := fmt.Sprintf("%s at read %d (%s)", kind, at, ffs.Last())
				if err == nil && out.Status == engine.StatusSucceeded {
					if !reflect.DeepEqual(out.Outputs, ref.Outputs) {
						t.Fatalf("%s: outputs differ", where)
					}
					retried++
					checkFaultRun(t, where, dir, id, true)
					continue
				}
				if kind == faultfs.ReadFlaky {
					t.Fatalf("%s: a read that fails once was not retried: %+v %v", where, out, err)
				}
				msg := ""
				if err != nil {
					msg = err.Error()
				} else {
					msg = out.Error
				}
				if !mentionsFault(kind, msg) {
					t.Fatalf("%s: the error does not say what failed: %q", where, msg)
				}
				failed++
				checkStoreSound(t, where, dir)
				fin, err := run.Resume(context.Background(), run.ResumeOptions{DataDir: dir, RunID: id, Epoch: &faultEpoch})
				if err != nil || fin.Status != engine.StatusSucceeded || !reflect.DeepEqual(fin.Outputs, ref.Outputs) {
					t.Fatalf("%s: resume over the real disk: %+v %v", where, fin, err)
				}
				checkFaultRun(t, where, dir, id, true)
			}
			t.Logf("RESULT fault=%s operations=%d trials=%d retried=%d failed-cleanly=%d lost=0", kind, n, retried+failed, retried, failed)
		})
	}
}

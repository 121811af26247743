package runlog_test

import (
	"fmt"
	"testing"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/run/store"
	"github.com/agentlab/agentlab/run/store/faultfs"
)

// appendSome writes a record, a checkpoint and ten events (some batched)
// and returns the first error.
func appendSome(r *runlog.Run) error {
	if err := r.WriteRecord(runlog.Record{Status: runlog.StatusRunning}); err != nil {
		return err
	}
	if err := r.WriteCheckpoint(map[string]any{"step": 1}); err != nil {
		return err
	}
	for i := 0; i < 5; i++ {
		if _, err := r.Append(chain.TypeNodeStarted, fmt.Sprintf("n%d", i), map[string]any{"i": i}); err != nil {
			return err
		}
		if _, err := r.AppendBatch([]runlog.Pending{
			{Type: chain.TypeNodeFinished, Node: fmt.Sprintf("n%d", i), Data: map[string]any{"output": i}},
			{Type: chain.TypeNodeSkipped, Node: fmt.Sprintf("s%d", i)},
		}); err != nil {
			return err
		}
	}
	return nil
}

// TestRunLogWriteFaults fails each write-side operation of a run
// directory in turn: the failed append is reported, every event appended
// before it (and acknowledged) is still there after reopening, the log
// ends with a whole line and its chain verifies, and appending resumes.
func TestRunLogWriteFaults(t *testing.T) {
	for _, kind := range []faultfs.Kind{faultfs.NoSpace, faultfs.IOError, faultfs.ShortWrite, faultfs.SyncFail, faultfs.RenameFail, faultfs.Denied} {
		t.Run(kind.String(), func(t *testing.T) {
			counter := faultfs.New(t.TempDir(), kind, 0)
			restore := store.SetTestFS(counter)
			r, err := runlog.Create(counter.Root, "count")
			if err == nil {
				err = appendSome(r)
				r.Close()
			}
			restore()
			if err != nil {
				t.Fatal(err)
			}
			for at := 1; at <= counter.Count(); at++ {
				dir := t.TempDir()
				ffs := faultfs.New(dir, kind, at)
				restore := store.SetTestFS(ffs)
				r, err := runlog.Create(dir, "r1")
				var acked int
				if err == nil {
					err = appendSome(r)
					acked = len(r.Events())
					if cerr := r.Close(); err == nil {
						err = cerr // the final fsync of Close
					}
				}
				restore()
				if err == nil || ffs.Fired() == 0 {
					t.Fatalf("%s at %d: no error (fired %d)", kind, at, ffs.Fired())
				}
				snap, serr := runlog.OpenReadOnly(dir, "r1")
				if serr != nil {
					continue // the fault hit the creation of the run directory
				}
				if len(snap.Problems) > 0 || snap.Torn != nil {
					t.Fatalf("%s at %d: %v torn %v", kind, at, snap.Problems, snap.Torn)
				}
				if len(snap.Events) < acked {
					t.Fatalf("%s at %d: %d events acknowledged, %d on disk", kind, at, acked, len(snap.Events))
				}
				r2, err := runlog.Open(dir, "r1")
				if err != nil {
					t.Fatalf("%s at %d: reopen: %v", kind, at, err)
				}
				if _, err := r2.Append(chain.TypeRunFinished, "", nil); err != nil {
					t.Fatalf("%s at %d: append after reopen: %v", kind, at, err)
				}
				r2.Close()
			}
		})
	}
}

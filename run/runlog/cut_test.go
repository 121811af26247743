package runlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/chain"
)

// TestCutAfter: the events after the first n are cut from the log and kept
// beside it; appends continue the chain from event n; a finished run, a
// memory run and a count out of range are refused.
func TestCutAfter(t *testing.T) {
	data := t.TempDir()
	r := createRun(t, data, "r1")
	for _, typ := range []string{chain.TypeRunStarted, "eval.runs", "eval.case", "eval.case"} {
		if _, err := r.Append(typ, "", map[string]any{"x": typ}); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.CutAfter(5); err == nil {
		t.Error("keeping more events than there are must fail")
	}
	if err := r.CutAfter(1); err != nil {
		t.Fatal(err)
	}
	if n := len(r.Events()); n != 1 || !strings.Contains(r.Repaired(), "removed 3 event(s)") {
		t.Fatalf("%d events left, repaired %q", n, r.Repaired())
	}
	if _, err := r.Append("eval.runs", "", nil); err != nil {
		t.Fatal(err)
	}
	r.Close()
	r2, err := Open(data, "r1")
	if err != nil {
		t.Fatalf("the cut log does not reopen: %v", err)
	}
	if evs := r2.Events(); len(evs) != 2 || evs[1].Seq != 2 {
		t.Errorf("after the cut and one append: %d events", len(evs))
	}
	torn, _ := filepath.Glob(filepath.Join(r2.Dir(), EventsFile+".torn-*"))
	if len(torn) != 1 {
		t.Fatalf("cut bytes kept in %v", torn)
	}
	if b, _ := os.ReadFile(torn[0]); strings.Count(string(b), "\n") != 3 {
		t.Errorf("the kept bytes hold %q", b)
	}
	if _, err := r2.Append(chain.TypeRunFinished, "", nil); err != nil {
		t.Fatal(err)
	}
	if err := r2.CutAfter(1); err == nil {
		t.Error("a finished run's log must never be cut")
	}
	r2.Close()
	mem, _ := NewMemory(data, t.TempDir(), "m1", Record{})
	if err := mem.CutAfter(0); err == nil {
		t.Error("a memory run has no log file to cut")
	}
}

package fsutil

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDeferredKeepsTheRecord checks which fsyncs a group commit skips:
// everything outside the kept directory, nothing inside it (a sibling
// whose name merely starts like it included), and nothing once it ends.
func TestDeferredKeepsTheRecord(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, "runs", "eval-1")
	if Deferred(filepath.Join(dir, "x")) {
		t.Fatal("deferred with no group commit on")
	}
	end := DeferSync(keep)
	for path, want := range map[string]bool{
		keep:                                     false,
		filepath.Join(keep, "events.jsonl"):      false,
		filepath.Join(dir, "runs", "eval-12"):    true,
		filepath.Join(dir, "runs", "r1", "x"):    true,
		filepath.Join(dir, "artifacts", "ab"):    true,
		filepath.Join(keep, "..", "eval-1", "y"): false,
	} {
		if got := Deferred(path); got != want {
			t.Errorf("Deferred(%s) = %v, want %v", path, got, want)
		}
	}
	// A file written atomically during the commit is complete all the same.
	p := filepath.Join(dir, "out.json")
	if err := WriteFileAtomic(p, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "{}\n" {
		t.Errorf("read back %q", b)
	}
	if CanSyncFS {
		if err := SyncFS(dir); err != nil {
			t.Errorf("SyncFS: %v", err)
		}
	}
	end()
	end() // ending twice is harmless
	if Deferred(filepath.Join(dir, "x")) {
		t.Error("still deferred after the group commit ended")
	}
}

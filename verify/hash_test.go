package verify

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentlab/agentlab/hashid"
)

// An id listed twice is hashed once; every worker writes its own slot
// (run with -race), and a missing blob is named.
func TestHashAllDuplicateIDs(t *testing.T) {
	dir := t.TempDir()
	var ids []string
	for _, s := range []string{"a", "b", "c"} {
		id := hashid.Sum([]byte(s))
		p := artifactPath(dir, id)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o444); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id.String(), id.String())
	}
	missing := hashid.Sum([]byte("missing")).String()
	ids = append(ids, missing)
	ok, errs := hashAll(dir, ids, 4, 0)
	if len(ok) != 3 {
		t.Errorf("want 3 verified artifacts, got %v", ok)
	}
	if ok[""] {
		t.Error("an empty id must never count as verified")
	}
	if len(errs) != 1 {
		t.Fatalf("want one error for the missing blob, got %v", errs)
	}
}

package verify

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/internal/evfixture"
)

// TestVerifyRunDirParallel verifies a run big enough for the parallel
// paths (run it with -race), then damages it on disk: a blob byte, a
// missing blob, an edited event, a torn last line.
func TestVerifyRunDirParallel(t *testing.T) {
	dir := t.TempDir()
	r, err := evfixture.BuildLarge(dir, evfixture.Large{Events: 3000, Artifacts: 16, ArtifactBytes: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Verify(r.Dir, Options{Expect: r.Seal, Workers: 4})
	if err != nil || !res.OK {
		t.Fatalf("intact run: %v %+v", err, res)
	}
	artDir := DefaultArtifactsDir(r.Dir)
	var blob string
	_ = filepath.Walk(artDir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && fi.Size() == 64<<10 && blob == "" {
			blob = p
		}
		return nil
	})
	id := "b3:" + filepath.Base(filepath.Dir(blob)) + filepath.Base(blob)
	h, _ := hashid.Parse(id)
	orig, _ := os.ReadFile(blob)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	expectFail := func(what, check, naming string) {
		t.Helper()
		res, err := Verify(r.Dir, Options{Workers: 4})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		f := failing(res.Checks)
		if d, ok := f[check]; !ok || !strings.Contains(d, naming) {
			t.Fatalf("%s: want %s failing naming %q, failing %v", what, check, naming, f)
		}
	}
	must(os.Chmod(blob, 0o644))
	damaged := append([]byte{}, orig...)
	damaged[1000] ^= 1
	must(os.WriteFile(blob, damaged, 0o644))
	expectFail("blob byte", CheckArtifacts, h.Short()+" is altered")
	must(os.Remove(blob))
	expectFail("blob removed", CheckArtifacts, h.Short()+" is missing")
	must(os.WriteFile(blob, orig, 0o444))

	log := filepath.Join(r.Dir, "events.jsonl")
	evs, _ := os.ReadFile(log)
	edited := bytes.Replace(evs, []byte(`"call_id":"n1500:1"`), []byte(`"call_id":"n1500:2"`), 1)
	must(os.WriteFile(log, edited, 0o644))
	expectFail("edited event", CheckEvents, "event 1502: bad hash")
	must(os.WriteFile(log, append(append([]byte{}, evs...), `{"seq":`...), 0o644))
	if res, err := Verify(r.Dir, Options{Workers: 4}); err != nil || !res.OK || !strings.Contains(res.Checks[0].Detail, "incomplete line") {
		t.Fatalf("torn tail: %v %+v", err, res)
	}
}

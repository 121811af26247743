package verify

import (
	"bytes"
	"errors"
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
	// Bytes after the sealed events are not a crash's torn line (a sealed
	// log ends with a whole one): they were added, and fail.
	if res, err := Verify(r.Dir, Options{Workers: 4}); err != nil || res.OK || !strings.Contains(res.Checks[0].Detail, "not an event, after the sealed events") {
		t.Fatalf("torn tail: %v %+v", err, res)
	}
}

// TestVerifyRunDirNotSealed: a run directory whose run has not finished
// fails (exit 1 in the CLI) with "not sealed" on the seal line, and one
// stopped before run.json was written cannot be read at all.
func TestVerifyRunDirNotSealed(t *testing.T) {
	dir := t.TempDir()
	r, err := evfixture.Build(dir, evfixture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// cut the log before run.finished and forget the seal, as a failed run leaves it
	log, err := os.ReadFile(filepath.Join(r.Dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(log, []byte(`"type":"run.finished"`))
	if i < 0 {
		t.Fatal("the fixture has no run.finished")
	}
	if err := os.WriteFile(filepath.Join(r.Dir, "events.jsonl"), log[:bytes.LastIndexByte(log[:i], '\n')+1], 0o644); err != nil {
		t.Fatal(err)
	}
	rec := []byte(`{"format":1,"id":"` + r.ID + `","plan":"` + r.Plan + `","status":"failed"}`)
	if err := os.WriteFile(filepath.Join(r.Dir, "run.json"), rec, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Verify(r.Dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := failing(res.Checks)[CheckSeal]; res.OK || res.Seal != "" || !strings.Contains(d, "is not sealed (status failed)") || strings.Contains(d, "cannot recompute") {
		t.Fatalf("unsealed run: %+v", res)
	}

	if err := os.Remove(filepath.Join(r.Dir, "run.json")); err != nil {
		t.Fatal(err)
	}
	_, err = Verify(r.Dir, Options{})
	var ue *UnreadableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "no run.json") {
		t.Fatalf("run directory without run.json: %v", err)
	}
}

// TestVerifyLargeBlobs covers blobs that take several reads of a hashing
// worker's buffer: intact, one byte changed near the end, truncated.
func TestVerifyLargeBlobs(t *testing.T) {
	dir := t.TempDir()
	const size = 2<<20 + 4097 // two full 1 MiB reads and a partial one
	r, err := evfixture.BuildLarge(dir, evfixture.Large{Events: 100, Artifacts: 3, ArtifactBytes: size})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := Verify(r.Dir, Options{Workers: 2}); err != nil || !res.OK {
		t.Fatalf("intact run: %v %+v", err, res)
	}
	var blob string
	_ = filepath.Walk(DefaultArtifactsDir(r.Dir), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && fi.Size() == size && blob == "" {
			blob = p
		}
		return nil
	})
	if blob == "" {
		t.Fatal("no blob of the large size")
	}
	h, _ := hashid.Parse("b3:" + filepath.Base(filepath.Dir(blob)) + filepath.Base(blob))
	orig, err := os.ReadFile(blob)
	if err != nil {
		t.Fatal(err)
	}
	for _, alt := range []struct {
		name string
		b    []byte
	}{
		{"last byte", append(append([]byte{}, orig[:len(orig)-1]...), orig[len(orig)-1]^1)},
		{"truncated", orig[:len(orig)/2]},
	} {
		if err := os.Chmod(blob, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(blob, alt.b, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := Verify(r.Dir, Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if d := failing(res.Checks)[CheckArtifacts]; res.OK || !strings.Contains(d, h.Short()+" is altered") {
			t.Fatalf("%s: %+v", alt.name, res)
		}
	}
}

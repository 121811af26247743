package verify

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/internal/evfixture"
)

// endless is a regular file that reports a size of 0 and yields bytes
// without end in practice (eight per page of the address space, some
// 256 GB): what a hostile run directory links a file to.
const endless = "/proc/self/pagemap"

func needEndless(t *testing.T) {
	t.Helper()
	f, err := os.Open(endless)
	if err != nil {
		t.Skipf("%s: %v", endless, err)
	}
	f.Close()
}

// hostileRun builds a small sealed run and returns it with one of its
// blob files.
func hostileRun(t *testing.T) (*evfixture.Run, string) {
	t.Helper()
	r, err := evfixture.BuildLarge(t.TempDir(), evfixture.Large{Events: 20, Artifacts: 2, ArtifactBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	var blob string
	_ = filepath.Walk(DefaultArtifactsDir(r.Dir), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && fi.Size() == 4096 && blob == "" {
			blob = p
		}
		return nil
	})
	if blob == "" {
		t.Fatal("no blob")
	}
	return r, blob
}

func replaceWithLink(t *testing.T, path, target string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// TestEndlessFilesAreNotReadWhole links each file verify reads whole to
// the endless file. Every one is read only up to one byte past the size
// it had when opened, so verify reports it at once; it used to read each
// into memory up to its cap (1–2 GiB, or an out-of-memory crash under a
// 4 GB limit). The allocation bound is what would catch a regression.
func TestEndlessFilesAreNotReadWhole(t *testing.T) {
	needEndless(t)
	for _, target := range []string{"run.json", "events.jsonl", "artifact"} {
		t.Run(target, func(t *testing.T) {
			r, blob := hostileRun(t)
			path := filepath.Join(r.Dir, target)
			if target == "artifact" {
				path = blob
			}
			replaceWithLink(t, path, endless)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			res, err := Verify(r.Dir, Options{Workers: 2})
			runtime.ReadMemStats(&after)
			if err == nil && res.OK {
				t.Fatalf("%s linked to %s verifies: %+v", target, endless, res)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Fatalf("%s linked to %s: verify allocated %d MiB", target, endless, grew>>20)
			}
		})
	}
}

// TestSparseArtifactOverTheCap gives a blob the size of a sparse file,
// which costs nothing on disk: a blob over the verify cap is refused
// without being read, instead of hashed for as long as its size.
func TestSparseArtifactOverTheCap(t *testing.T) {
	r, blob := hostileRun(t)
	if err := os.Chmod(blob, 0o644); err != nil {
		t.Fatal(err)
	}
	const limit = 1 << 20
	if err := os.Truncate(blob, 64<<30); err != nil {
		t.Skipf("no sparse file here: %v", err)
	}
	res, err := Verify(r.Dir, Options{Workers: 2, MaxBytes: limit})
	if err != nil {
		t.Fatal(err)
	}
	if d := failing(res.Checks)[CheckArtifacts]; res.OK || !strings.Contains(d, "over the limit of 1048576") {
		t.Fatalf("a 64 GiB sparse blob: %+v", res.Checks)
	}
}

// TestReportThatCannotBeRead points run.json's report at files that exist
// but cannot be compared: the report check fails and says why, instead of
// being left out of an otherwise passing verification.
func TestReportThatCannotBeRead(t *testing.T) {
	needEndless(t)
	for name, target := range map[string]func(t *testing.T) string{
		"a device":    func(*testing.T) string { return "/dev/zero" },
		"a directory": func(t *testing.T) string { return t.TempDir() },
		"endless":     func(*testing.T) string { return endless },
	} {
		t.Run(name, func(t *testing.T) {
			r, _ := hostileRun(t)
			setRecordField(t, r.Dir, "report", target(t))
			res, err := Verify(r.Dir, Options{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if d := failing(res.Checks)[CheckReport]; res.OK || !strings.Contains(d, "cannot read the report") {
				t.Fatalf("report %s: %+v", name, res.Checks)
			}
		})
	}
	t.Run("absent", func(t *testing.T) {
		r, _ := hostileRun(t)
		setRecordField(t, r.Dir, "report", filepath.Join(t.TempDir(), "report.html"))
		if res, err := Verify(r.Dir, Options{Workers: 2}); err != nil || !res.OK {
			t.Fatalf("a report that does not exist (yet) is not a failure: %v %+v", err, res)
		}
	})
}

func setRecordField(t *testing.T, dir, key string, value any) {
	t.Helper()
	if err := evfixture.EditRecord(dir, func(rec map[string]any) { rec[key] = value }); err != nil {
		t.Fatal(err)
	}
}

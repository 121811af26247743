package examples

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInitNeverWritesThroughPlantedLinks plants, in the target directory, a
// symbolic link under the name of a directory the example contains, pointing
// outside; Init must refuse rather than write the example's files through it.
func TestInitNeverWritesThroughPlantedLinks(t *testing.T) {
	cases := []struct{ example, sub string }{
		{"traceable-weekly", "data"},
		{"traceable-weekly", "cards"},
		{"knowledge-qa", "notes"},
	}
	defer t.Logf("RESULT path-escape-examples-init=dir-links trials=%d", len(cases))
	for _, e := range cases {
		t.Run(e.example+"/"+e.sub, func(t *testing.T) {
			base := t.TempDir()
			outside := filepath.Join(base, "outside")
			dir := filepath.Join(base, "dir")
			for _, d := range []string{outside, dir} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(outside, filepath.Join(dir, e.sub)); err != nil {
				t.Skipf("symlinks unavailable: %v", err)
			}
			written, err := Init(e.example, dir)
			if err == nil {
				t.Errorf("Init wrote through the link %s -> %s without an error", e.sub, outside)
			}
			left, _ := os.ReadDir(outside)
			if len(left) > 0 {
				t.Errorf("files written outside %s: %v", dir, left)
			}
			// The target is checked before anything is written: nothing
			// but the planted link is in dir, not even README.md.
			if ents, _ := os.ReadDir(dir); len(ents) != 1 || len(written) != 0 || !strings.Contains(err.Error(), "nothing was written") {
				t.Errorf("after the refusal dir holds %v (reported written: %v; err %v)", ents, written, err)
			}
			for _, w := range written {
				if strings.HasPrefix(w, filepath.Join(dir, e.sub)+string(filepath.Separator)) {
					t.Errorf("reported %s as written inside the planted link", w)
				}
			}
		})
	}
}

// TestInitNeverFollowsPlantedFileLinks plants a link under the name of a
// file of the example (a dangling one and one to an existing file outside):
// neither the link's target nor the file outside may be written.
func TestInitNeverFollowsPlantedFileLinks(t *testing.T) {
	defer t.Logf("RESULT path-escape-examples-init=file-links trials=2")
	for _, dangling := range []bool{false, true} {
		base := t.TempDir()
		outside := filepath.Join(base, "victim.yml")
		if !dangling {
			if err := os.WriteFile(outside, []byte("keep"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		dir := filepath.Join(base, "dir")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, filepath.Join(dir, "flow.yml")); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
		if _, err := Init("minimal-qa", dir); err == nil {
			t.Errorf("dangling=%v: Init wrote flow.yml through a planted link", dangling)
		}
		b, err := os.ReadFile(outside)
		switch {
		case dangling && err == nil:
			t.Errorf("dangling link: the link's target was created (%q)", b)
		case !dangling && string(b) != "keep":
			t.Errorf("file outside changed to %q (%v)", b, err)
		}
	}
}

package examples

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExamplesHoldOnlyListedFiles plays a maintainer who ran an example in
// place: whatever that left in examples/ (a .agentlab data dir, a compiled
// plan) would ship in the next build and be copied to users by
// `examples init` if the embed list were a wildcard. Every file on disk
// must be in the list, and every listed file on disk.
func TestExamplesHoldOnlyListedFiles(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || strings.HasSuffix(path, ".go") {
			return nil
		}
		rel := filepath.ToSlash(path)
		if _, err := fs.Stat(files, rel); err != nil {
			t.Errorf("examples/%s is not in the embed list of examples/manifest.go: remove it if running an example left it there (a .agentlab data dir, a compiled plan, out/), or add it to the list if it belongs to the example", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = fs.WalkDir(files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if _, err := os.Stat(filepath.FromSlash(path)); err != nil {
			t.Errorf("embedded %s is not on disk", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Every example directory is embedded with its flow.
	for _, e := range List() {
		if _, err := fs.Stat(files, e.Name+"/flow.yml"); err != nil {
			t.Errorf("%s: %v", e.Name, err)
		}
	}
	if len(List()) < 10 {
		t.Errorf("only %d examples embedded", len(List()))
	}
}

package presets

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

var docExample = regexp.MustCompile("(?s)```yaml\n# example: ([a-z0-9_.-]+)\n(.*?)```")

// The patch examples in docs/presets.md must stay valid.
func TestDocExamplesLintClean(t *testing.T) {
	doc, err := os.ReadFile("../docs/presets.md")
	if err != nil {
		t.Fatal(err)
	}
	found := docExample.FindAllSubmatch(doc, -1)
	if len(found) == 0 {
		t.Fatal("no examples found in docs/presets.md")
	}
	dir := t.TempDir()
	for _, m := range found {
		path := filepath.Join(dir, string(m[1]))
		if err := os.WriteFile(path, m[2], 0o644); err != nil {
			t.Fatal(err)
		}
		if ds := LintPatch(path); len(ds) > 0 {
			t.Errorf("docs example %s: %v", m[1], ds)
		}
	}
}

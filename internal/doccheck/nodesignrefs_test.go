package doccheck

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoDesignDocumentReferences: the repository cites only what it
// contains. A reference to the design document that is not in it ("DESIGN"
// followed by "§N") cannot be followed by a maintainer who clones the
// repository; point into docs/ instead (docs/architecture.md for the
// invariants and decisions).
func TestNoDesignDocumentReferences(t *testing.T) {
	root := repoRoot(t)
	needle := []byte("DESIGN " + "§") // split so that this file does not match
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.IndexByte(b, 0) >= 0 { // binary
			return nil
		}
		for i, line := range bytes.Split(b, []byte("\n")) {
			if bytes.Contains(line, needle) {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s:%d: cites the design document, which is not in the repository: %s", rel, i+1, bytes.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

package verify

import (
	"go/build"
	"strings"
	"testing"
)

// TestNoRunImports keeps the verifier independent of the engine: neither
// this package nor anything it imports from the module may be under run/.
func TestNoRunImports(t *testing.T) {
	const mod = "github.com/agentlab/agentlab/"
	seen := map[string]bool{}
	var walk func(path, dir string)
	walk = func(path, dir string) {
		if seen[path] {
			return
		}
		seen[path] = true
		var p *build.Package
		var err error
		if dir != "" {
			p, err = build.ImportDir(dir, 0)
		} else {
			p, err = build.Import(path, ".", 0)
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, mod) {
				continue
			}
			if strings.HasPrefix(imp, mod+"run") {
				t.Errorf("%s imports %s", path, imp)
			}
			walk(imp, "")
		}
	}
	walk(mod+"verify", ".")
}

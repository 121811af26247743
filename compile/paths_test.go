package compile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFlowPathsStayInTheProject: a flow author (or someone editing the
// flow) who names /etc/passwd as a source, a code file through a link that
// leaves the project, or a knowledge folder above it gets E-PATH-OUTSIDE at
// that field, and the file's content is not in the plan.
func TestFlowPathsStayInTheProject(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "proj")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(base, "secret.py")
	os.WriteFile(secret, []byte("print('SECRET-CONTENT')\n"), 0o644)
	if err := os.Symlink(secret, filepath.Join(dir, "code.py")); err != nil {
		t.Skipf("symlinks: %v", err)
	}
	flow := filepath.Join(dir, "flow.yml")
	os.WriteFile(flow, []byte(`agentlab: 1
name: paths
sources:
  s: {kind: csv, path: /etc/passwd}
nodes:
  - id: c
    type: code
    file: code.py
  - id: r
    type: retrieve
    from: ../
    query: "x"
edges:
  - c -> r
`), 0o644)
	p, l := CompileFile(flow, Options{})
	want := map[string]string{"4:24": "source s", "8:11": "code file", "11:11": "node r"}
	for _, d := range l {
		if d.Code != CodePathOutside {
			continue
		}
		pos := fmt.Sprintf("%d:%d", d.Line, d.Col)
		if w, ok := want[pos]; ok && strings.Contains(d.Message, w) {
			delete(want, pos)
		}
	}
	if len(want) > 0 {
		t.Errorf("missing E-PATH-OUTSIDE at %v; got %v", want, l)
	}
	if p != nil {
		t.Errorf("a plan was compiled")
	}
	for _, d := range l {
		if strings.Contains(d.Message, "SECRET-CONTENT") {
			t.Errorf("the file outside was read: %v", d)
		}
	}
}

package argo

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestArgoSchema validates the exported workflows against Argo's own JSON
// schema, the one @kubernetes-models/argo-workflows ships, run by node.
// scripts/argo-schema.sh installs the package and sets
// AGENTLAB_ARGO_SCHEMA_DIR; without it the test says so and skips.
func TestArgoSchema(t *testing.T) {
	dir := os.Getenv("AGENTLAB_ARGO_SCHEMA_DIR")
	if dir == "" {
		t.Skip("AGENTLAB_ARGO_SCHEMA_DIR is not set: run scripts/argo-schema.sh to validate against Argo's schema")
	}
	tmp := t.TempDir()
	var files []string
	write := func(name string, w *Workflow, edit func(string) string) {
		y, err := w.YAML()
		if err != nil {
			t.Fatal(err)
		}
		s := string(y)
		if edit != nil {
			s = edit(s)
		}
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	for _, n := range []int{1, 3, 16} {
		w, err := EvalShards("flows/weekly.eval.yml", n, opts())
		if err != nil {
			t.Fatal(err)
		}
		write("eval-"+string(rune('a'+n%26))+".yaml", w, nil)
	}
	b, err := PlanBatch("weekly.plan.json", []string{`{"week":"2026-W47"}`, `{"a":"x'y\"z"}`}, opts())
	if err != nil {
		t.Fatal(err)
	}
	write("batch.yaml", b, nil)
	// The validator must be able to say no: an entrypoint that is not a
	// string, and a container without its required name.
	write("bad-entrypoint.yaml", b, func(s string) string { return strings.Replace(s, "entrypoint: batch", "entrypoint: 3", 1) })
	write("bad-container.yaml", b, func(s string) string { return regexp.MustCompile(`(?m)^\s*name: main\n`).ReplaceAllString(s, "") })
	out, _ := exec.Command("node", append([]string{filepath.Join(dir, "validate.mjs")}, files...)...).CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(files) {
		t.Fatalf("validator output:\n%s", out)
	}
	for i, l := range lines {
		bad := strings.HasPrefix(filepath.Base(files[i]), "bad-")
		switch {
		case bad && !strings.HasPrefix(l, "FAIL"):
			t.Errorf("Argo's schema accepted a broken workflow: %s", l)
		case !bad && !strings.HasPrefix(l, "ok"):
			t.Errorf("Argo's schema refuses an exported workflow: %s", l)
		}
	}
}

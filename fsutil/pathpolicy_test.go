//go:build unix

package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestCheckInsideRefusesEscapes: `..`, absolute paths and symbolic links
// that leave the project are refused; [paths] allow in agentlab.toml opens
// a directory on purpose; links that stay inside are fine.
func TestCheckInsideRefusesEscapes(t *testing.T) {
	base := t.TempDir()
	proj := filepath.Join(base, "proj")
	shared := filepath.Join(base, "shared")
	secret := filepath.Join(base, "secret")
	for _, d := range []string{filepath.Join(proj, "flows", "data"), shared, secret} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(proj, "agentlab.toml"), []byte("[paths]\nallow = [\"../shared\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Symlink(filepath.Join(secret, "key.csv"), filepath.Join(proj, "flows", "data", "out-link.csv"))
	os.Symlink(filepath.Join(proj, "flows", "data"), filepath.Join(proj, "flows", "in-link"))
	flows := filepath.Join(proj, "flows")
	roots, err := ProjectRoots(flows)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path string
		ok   bool
	}{
		{"data/sales.csv", true},
		{"../other/x.csv", true}, // still inside the project (agentlab.toml's directory)
		{"in-link/sales.csv", true},
		{"../../secret/key.csv", false},
		{"/etc/passwd", false},
		{"data/out-link.csv", false},
		{"../../shared/x.csv", true}, // [paths] allow
		{filepath.Join(shared, "y.csv"), true},
		{"data/../../../secret", false},
		// A directory whose name shares a string prefix with the project
		// or an allowed one is neither.
		{"../../proj2/x.csv", false},
		{"../../shared2/x.csv", false},
		{filepath.Join(base, "shared-copy", "x.csv"), false},
	} {
		_, err := CheckInside(roots, flows, tt.path)
		var oe *OutsideError
		if got := !errors.As(err, &oe); got != tt.ok {
			t.Errorf("%s: inside=%v (%v), want %v", tt.path, got, err, tt.ok)
		}
	}
	// Without agentlab.toml the flow's own directory is the project.
	alone := filepath.Join(base, "alone")
	os.MkdirAll(alone, 0o755)
	roots, _ = ProjectRoots(alone)
	if _, err := CheckInside(roots, alone, "../proj/flows/data/sales.csv"); err == nil {
		t.Error("a flow without agentlab.toml reached its parent directory")
	}
}

package fsutil

import (
	"os"
	"path/filepath"
)

// FindUp returns the nearest regular file called name in dir or one of its
// parents, as an absolute path, or "" when there is none (or dir cannot be
// made absolute). It is how a project file such as agentlab.toml is found
// from anywhere inside the project, the way git finds .git; every reader
// of that file uses it so that they all agree on which file applies.
func FindUp(dir, name string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		p := filepath.Join(abs, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			return ""
		}
		abs = parent
	}
}

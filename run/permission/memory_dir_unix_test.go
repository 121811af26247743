//go:build unix

package permission

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestMemoryDirectoryIsCreatedAsConfigured: the directory Save
// creates for the remembered decisions gets rwxr-xr-x, less the umask,
// like any directory of the user's configuration (the file itself and its
// signing key are the user's alone).
func TestMemoryDirectoryIsCreatedAsConfigured(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "agentlab")
	path := filepath.Join(dir, "permissions.json")
	m, _, err := LoadMemory(path, Scope{Project: "/p", KeyFile: filepath.Join(t.TempDir(), "key")})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := os.FileMode(0o755) &^ currentUmask(); fi.Mode().Perm() != want {
		t.Errorf("directory mode %v, want %v", fi.Mode().Perm(), want)
	}
}

// currentUmask reads the process's umask (setting it back at once).
func currentUmask() os.FileMode {
	old := syscall.Umask(0o022)
	syscall.Umask(old)
	return os.FileMode(old)
}

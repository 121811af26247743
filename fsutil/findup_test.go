package fsutil

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFindUp(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b", "c")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	top := filepath.Join(root, "a", "cfg.toml")
	if err := os.WriteFile(top, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// A directory of that name is not the file and is passed over.
	if err := os.Mkdir(filepath.Join(root, "a", "b", "cfg.toml"), 0o755); err != nil {
		t.Fatal(err)
	}
	near := filepath.Join(root, "a", "b", "c", "near.toml")
	if err := os.WriteFile(near, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, dir, file, want string
	}{
		{"in a parent", deep, "cfg.toml", top},
		{"in dir itself", deep, "near.toml", near},
		{"nearest wins over higher", filepath.Join(root, "a"), "cfg.toml", top},
		{"above the file", root, "cfg.toml", ""},
		{"nowhere", deep, "missing-file-name.toml", ""},
	}
	for _, c := range cases {
		if got := FindUp(c.dir, c.file); got != c.want {
			t.Errorf("%s: FindUp(%q, %q) = %q, want %q", c.name, c.dir, c.file, got, c.want)
		}
	}
}

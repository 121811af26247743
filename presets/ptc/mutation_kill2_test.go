package ptc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTomlStringForgedValues: a [ptc] list holding something other than
// plain strings, a string with the list separator in it, or a table is
// refused (a warning, the key ignored), never joined into a list with
// an empty or split name.
func TestTomlStringForgedValues(t *testing.T) {
	for _, tt := range []struct {
		name string
		v    any
		want string
		ok   bool
	}{
		{"strings", []any{"a", "b"}, "a,b", true},
		{"a number in the list", []any{"a", int64(1)}, "", false},
		{"a separator in a name", []any{"a,b"}, "", false},
		{"a table", map[string]any{"a": "b"}, "", false},
		{"true", true, "true", true},
	} {
		got, ok := tomlString(tt.v)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: tomlString = %q, %v; want %q, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

// TestLoadFileConfigSizeCap: an agentlab.toml one byte over 4 MiB is
// refused before it is parsed.
func TestLoadFileConfigSizeCap(t *testing.T) {
	dir := t.TempDir()
	pad := "# " + strings.Repeat("x", 4<<20-3) + "\n"
	for _, c := range []struct {
		extra string
		ok    bool
	}{{"", true}, {"#", false}} {
		if err := os.WriteFile(filepath.Join(dir, "agentlab.toml"), []byte(pad+c.extra), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadFileConfig(dir)
		if (err == nil) != c.ok {
			t.Errorf("%d bytes: %v", len(pad)+len(c.extra), err)
		}
	}
}

package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckConfigFile(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		project bool
		want    []string // "line:col: severity code" prefixes, in order
	}{
		{"empty", "", true, nil},
		{"good", "[permissions]\ngate_timeout_s = 30\n\n[[mcp.servers]]\nname = \"notes\"\ncommand = [\"notes-mcp\"]\n\n[providers]\ntimeout = \"10m\"\n\n[http_fetch]\nallow = [\"api.example.com\"]\n\n[ptc]\nmode = \"off\"\n", true, nil},
		{"syntax once", "[permissions\nx = 1\n", true, []string{"1:13: error E-CONFIG-TOML"}},
		{"every table", "[permissions]\ngate_timeout_s = 0\n\n[mcp]\nserver = 1\n\n[providers]\ntimout = \"10m\"\n\n[http_fetch]\nmax_bytes = 0\n",
			true, []string{"2:1: error E-PERM-CONFIG", "5:1: error E-MCP-CONFIG", "8:1: error E-PROVCFG-KEY", "11:1: error E-TOOL-FETCHCFG"}},
		{"misspelt table", "\n[[permision.rules]]\ntool = \"a\"\ndecision = \"allow\"\n", true, []string{"2:1: warning W-CONFIG-TABLE"}},
		{"top-level key", "verbose = true\n[permissions]\n", true, []string{"1:1: warning W-CONFIG-TABLE"}},
		{"secret in project", "[providers.openai]\napi_key = \"sk-1\"\n", true, []string{"2:1: warning W-PROVCFG-SECRET"}},
		{"user file: no secret warning, permissions read", "[providers.openai]\napi_key = \"sk-1\"\n[permissions]\ngate_timeout_s = 0\n", false, []string{"4:1: error E-PERM-CONFIG"}},
		{"user file: http_fetch not read", "[http_fetch]\nallow = [\"a.example\"]\n", false, []string{"1:1: warning W-CONFIG-TABLE"}},
		{"user file mcp checked", "[[mcp.servers]]\nname = \"Bad Name\"\ncommand = [\"x\"]\n", false, []string{"E-MCP-SERVER"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "agentlab.toml")
			if err := os.WriteFile(file, []byte(tt.src), 0o644); err != nil {
				t.Fatal(err)
			}
			ds := CheckConfigFile(file, tt.project)
			if len(ds) != len(tt.want) {
				t.Fatalf("got %d diagnostics, want %d:\n%s", len(ds), len(tt.want), ds.Summary())
			}
			for i, d := range ds {
				if d.File != file || d.Line < 1 || d.Col < 1 || d.Fix == "" {
					t.Errorf("incomplete diagnostic %+v", d)
				}
				if got := strings.TrimPrefix(d.String(), file+":"); !strings.Contains(got, tt.want[i]) {
					t.Errorf("diagnostic %d: %s\nwant %s", i, got, tt.want[i])
				}
			}
		})
	}
	if ds := CheckConfigFile(filepath.Join(t.TempDir(), "none.toml"), true); ds != nil {
		t.Errorf("missing file: %v", ds)
	}
	if ds := CheckConfigFile(t.TempDir(), true); len(ds) != 1 || ds[0].Code != CodeConfigTOML || ds[0].Line != 1 {
		t.Errorf("unreadable file (a directory): %v", ds)
	}
}

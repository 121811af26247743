package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDescribeConfigFile: doctor's account of a project file says whether
// it is in force and what each table decides.
func TestDescribeConfigFile(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	file := filepath.Join(dir, "agentlab.toml")
	src := "[[permissions.rules]]\ntool = \"file_*\"\ndecision = \"deny\"\n\n[http_fetch]\nallow_nets = [\"10.1.2.0/24\"]\n\n[sandbox]\nbackend = \"bwrap\"\n\n[secrets.SHOP_TOKEN]\nhosts = [\"api.shop.example\"]\n\n[providers.openai]\nbase_url = \"http://localhost:11434/v1\"\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(DescribeConfigFile(file, true), "\n")
	for _, want := range []string{"in force", "1 rule(s) — 1 deny", "opened ranges [10.1.2.0/24]", "sandbox backend bwrap", "secret SHOP_TOKEN may be sent to api.shop.example", "providers.openai base_url http://localhost:11434/v1 (used only with a key this file holds"} {
		if !strings.Contains(got, want) {
			t.Errorf("description lacks %q:\n%s", want, got)
		}
	}
	if err := os.Chmod(file, 0o666); err != nil {
		t.Fatal(err)
	}
	if got := DescribeConfigFile(file, true); len(got) == 0 || !strings.Contains(got[0], "NOT in force") {
		t.Errorf("a world-writable file: %q", got)
	}
}

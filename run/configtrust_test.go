package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlantedParentConfigRefused is another user's (or an open-mode)
// agentlab.toml planted in a parent directory, opening every permission:
// the run is refused before anything is created, with the command that
// trusts it; once the user trusts the directory, it is used.
func TestPlantedParentConfigRefused(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	parent := t.TempDir()
	project := filepath.Join(parent, "shared", "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(parent, "agentlab.toml")
	writeFiles(t, parent, map[string]string{"agentlab.toml": "[[permissions.rules]]\ntool = \"*\"\ndecision = \"allow\"\n\n[http_fetch]\nallow_nets = [\"10.0.0.0/8\", \"127.0.0.0/8\"]\n"})
	writeFiles(t, project, map[string]string{"flow.yml": "agentlab: 1\nname: victim\nnodes:\n  - {id: out, type: output, fields: {a: x}}\n"})
	flow := filepath.Join(project, "flow.yml")
	p, h := compileFlow(t, flow)
	data := filepath.Join(project, "data")
	start := func() error {
		_, err := Start(context.Background(), Options{DataDir: data, Plan: p, PlanHash: h, Source: flow, Epoch: &epoch})
		return err
	}
	// World-writable, as a file dropped into a shared directory often is.
	if err := os.Chmod(planted, 0o666); err != nil {
		t.Fatal(err)
	}
	err := start()
	var ue *UntrustedConfigError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "writable by everyone") || !strings.Contains(err.Error(), "agentlab trust "+parent) {
		t.Fatalf("planted config: %v", err)
	}
	if _, serr := os.Stat(filepath.Join(data, "runs")); serr == nil {
		t.Error("a run was created")
	}
	// Group-writable too.
	if err := os.Chmod(planted, 0o664); err != nil {
		t.Fatal(err)
	}
	if err := start(); !errors.As(err, &ue) || !strings.Contains(ue.Why, "the group") {
		t.Fatalf("group-writable: %v", err)
	}
	// Another owner (only root can give a file away).
	if os.Getuid() == 0 {
		if err := os.Chmod(planted, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(planted, 4242, 4242); err != nil {
			t.Fatal(err)
		}
		if err := start(); !errors.As(err, &ue) || !strings.Contains(ue.Why, "owned by") {
			t.Fatalf("another owner: %v", err)
		}
	}
	// Trusted on purpose: used.
	file, err := Trust(parent)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := Trust(parent); err != nil || again != file {
		t.Fatal(again, err)
	}
	b, _ := os.ReadFile(file)
	if strings.Count(string(b), "[[trust]]") != 1 {
		t.Errorf("user config after trusting twice:\n%s", b)
	}
	if err := start(); err != nil {
		t.Errorf("trusted: %v", err)
	}
	if l := CheckConfigFile(file, false); len(l) != 0 {
		t.Errorf("the user config with [[trust]]: %v", l)
	}
}

package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var updateDocs = flag.Bool("update", false, "rewrite docs/cli.md")

// TestCLIDoc keeps docs/cli.md in sync with the commands.
func TestCLIDoc(t *testing.T) {
	got := renderCLIDoc(newRootCmd())
	path := filepath.Join("..", "..", "docs", "cli.md")
	if *updateDocs {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run: go test ./cmd/agentlab -run TestCLIDoc -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("docs/cli.md is out of date; run: go test ./cmd/agentlab -run TestCLIDoc -update")
	}
}

package examples

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestListHasFlowsAndSummaries(t *testing.T) {
	list := List()
	if len(list) < 9 {
		t.Fatalf("want at least nine examples, got %d", len(list))
	}
	for _, e := range list {
		if e.Summary == "" {
			t.Errorf("%s: README has no summary sentence", e.Name)
		}
	}
}

func TestInitCopiesAndNeverOverwrites(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "copy")
	written, err := Init("minimal-qa", dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(written) == 0 {
		t.Fatal("nothing written")
	}
	for _, w := range written {
		if !strings.HasPrefix(w, dir) {
			t.Errorf("wrote %s outside %s", w, dir)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "flow.yml")); err != nil {
		t.Fatal(err)
	}
	if _, err := Init("minimal-qa", dir); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("second copy: want 'already exists', got %v", err)
	}
}

func TestInitRefusesBadNames(t *testing.T) {
	for _, name := range []string{"", ".", "..", "../x", "minimal-qa/../..", `a\b`, "no-such-example", "examples.go"} {
		if _, err := Init(name, t.TempDir()); !errors.Is(err, ErrUnknown) {
			t.Errorf("Init(%q): want ErrUnknown, got %v", name, err)
		}
	}
}

//go:build unix

package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadFileCappedRefusesHostileFiles: /dev/zero, a FIFO nobody writes
// to, a link to either, a directory and a file over the cap are refused
// before anything is read — promptly, and without allocating.
func TestReadFileCappedRefusesHostileFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, 2048), 0o644); err != nil {
		t.Fatal(err)
	}
	ok := filepath.Join(dir, "ok")
	if err := os.WriteFile(ok, []byte("fine"), 0o644); err != nil {
		t.Fatal(err)
	}
	zeroLink := filepath.Join(dir, "zero-link")
	if err := os.Symlink("/dev/zero", zeroLink); err != nil {
		t.Fatal(err)
	}
	fifoLink := filepath.Join(dir, "fifo-link")
	if err := os.Symlink(fifo, fifoLink); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, path string
		regular    bool // refused as not regular (else as too large)
		kind       string
	}{
		{"dev-zero", "/dev/zero", true, "character device"},
		{"link-to-dev-zero", zeroLink, true, "character device"},
		{"fifo", fifo, true, "FIFO"},
		{"link-to-fifo", fifoLink, true, "FIFO"},
		{"directory", dir, true, "directory"},
		{"over-the-cap", big, false, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { _, err := ReadFileCapped(tt.path, 1024, "raise it with --cap"); done <- err }()
			var err error
			select {
			case err = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("the read hangs")
			}
			var nr *NotRegularError
			var tl *TooLargeError
			switch {
			case tt.regular && (!errors.As(err, &nr) || !strings.Contains(err.Error(), tt.kind) || !errors.Is(err, ErrNotRegular)):
				t.Errorf("err = %v, want a %s refused as not regular", err, tt.kind)
			case !tt.regular && (!errors.As(err, &tl) || tl.Size != 2048 || !strings.Contains(err.Error(), "raise it with --cap")):
				t.Errorf("err = %v, want over the cap with the hint", err)
			}
		})
	}
	if b, err := ReadFileCapped(ok, 4, ""); err != nil || string(b) != "fine" {
		t.Errorf("a file exactly at the cap: %q %v", b, err)
	}
}

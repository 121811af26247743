//go:build unix

package runlog

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// lockFile takes an exclusive, non-blocking flock on path and writes our
// PID into it. The kernel drops the lock when the process dies, so a crash
// never leaves a stale lock behind; the PID is only for the message the
// next process prints.
func lockFile(path, runID string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock run %s: %w", runID, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &LockedError{Run: runID, Path: path, PID: readPID(path)}
		}
		return nil, fmt.Errorf("lock run %s: %w", runID, err)
	}
	// The lock protects the run only if the file we locked is still the
	// one at path: a process that replaced the run directory (see Create)
	// between our open and our flock left us holding a lock nobody else
	// will ever look at.
	if fi, err := f.Stat(); err == nil {
		if cur, err := os.Stat(path); err != nil || !os.SameFile(fi, cur) {
			f.Close()
			return nil, &LockedError{Run: runID, Path: path}
		}
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

func unlockFile(f *os.File) error {
	// Closing the descriptor releases the flock.
	return f.Close()
}

func readPID(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// probeLock reports whether some process holds the lock at path, and its
// PID when known, without keeping the lock: it tries to take it and lets go.
// A missing lock file means nobody holds it.
func probeLock(path string) (bool, int, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, 0, nil
	}
	if err != nil {
		return false, 0, err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return true, readPID(path), nil
		}
		return false, 0, err
	}
	return false, 0, syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}

//go:build !unix

package runlog

import (
	"fmt"
	"os"
)

// lockFile is not implemented where flock is missing: refusing is safer
// than letting two processes append to one chain.
func lockFile(path, runID string) (*os.File, error) {
	return nil, fmt.Errorf("lock run %s: run locking is not supported on this platform", runID)
}

func unlockFile(f *os.File) error { return f.Close() }

func probeLock(path string) (bool, int, error) {
	return false, 0, fmt.Errorf("run locking is not supported on this platform")
}

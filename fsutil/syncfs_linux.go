package fsutil

import (
	"os"

	"golang.org/x/sys/unix"
)

// CanSyncFS says whether SyncFS flushes one file system (syncfs(2));
// without it a group commit is not used and every file is fsync'd.
const CanSyncFS = true

// SyncFS makes every file and directory written so far on the file system
// holding dir durable, with one syncfs(2): the commit point of a group
// commit (see DeferSync).
func SyncFS(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}

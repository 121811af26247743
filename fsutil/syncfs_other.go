//go:build !linux

package fsutil

import "errors"

// CanSyncFS says whether SyncFS flushes one file system (syncfs(2));
// without it a group commit is not used and every file is fsync'd.
const CanSyncFS = false

// SyncFS is only available on Linux; elsewhere group commits are not used.
func SyncFS(dir string) error { return errors.ErrUnsupported }

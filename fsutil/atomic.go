// Package fsutil holds the one way agentlab writes a file that must never
// be seen half-written: temp file in the same directory, write, fsync,
// rename over the target, fsync the directory; and the group commit
// (DeferSync, SyncFS) that lets an evaluation replace the fsyncs of its
// case runs with one flush per batch.
//
// Where it fits: docs/architecture.md#leaf-formats.
package fsutil

import (
	"os"
	"path/filepath"
)

// WriteFileAtomic replaces path with data. A crash at any point leaves
// either the old file or the new one, never a mix.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if !Deferred(path) {
		if err := f.Sync(); err != nil {
			return err
		}
	}
	if err := f.Chmod(perm); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	ok = true
	return SyncDir(dir)
}

// SyncDir fsyncs a directory so that a rename inside it is durable.
// During a group commit (DeferSync) a directory outside the kept one is
// left to the commit's SyncFS.
func SyncDir(dir string) error {
	if Deferred(dir) {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

package store

import (
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"sync/atomic"
	"testing"

	"github.com/agentlab/agentlab/fsutil"
)

// FS is the narrow file-system seam under the store and the run log: every
// create, write, fsync, rename and read of their data goes through it, so
// that tests can inject a full disk, an I/O error, a short write, a failed
// fsync or a failed rename at any chosen operation (see run/store/faultfs)
// and check that nothing half-written is ever left under a final name.
// Listing and stat calls are not part of it: they cannot damage data.
type FS interface {
	// CreateTemp is os.CreateTemp.
	CreateTemp(dir, pattern string) (File, error)
	// OpenFile is os.OpenFile.
	OpenFile(name string, flag int, perm fs.FileMode) (File, error)
	// ReadFile is os.ReadFile.
	ReadFile(name string) ([]byte, error)
	// Rename is os.Rename.
	Rename(oldpath, newpath string) error
	// Remove is os.Remove.
	Remove(name string) error
	// Chmod is os.Chmod.
	Chmod(name string, mode fs.FileMode) error
	// Mkdir is os.Mkdir.
	Mkdir(name string, perm fs.FileMode) error
	// SyncDir fsyncs a directory, making the entries created, renamed or
	// removed in it durable.
	SyncDir(dir string) error
}

// File is the part of *os.File the store and the run log use.
type File interface {
	io.Reader
	io.Writer
	io.Closer
	Name() string
	Sync() error
	Stat() (fs.FileInfo, error)
	Truncate(size int64) error
}

// OSFS is the real file system.
type OSFS struct{}

var _ FS = OSFS{}

func (OSFS) CreateTemp(dir, pattern string) (File, error) {
	return wrapFile(os.CreateTemp(dir, pattern))
}
func (OSFS) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	return wrapFile(os.OpenFile(name, flag, perm))
}

// ReadFile is os.ReadFile for regular files only: a device, FIFO or
// socket under a blob's or a run file's name (a planted link to
// /dev/zero) is refused before anything is read.
func (OSFS) ReadFile(name string) ([]byte, error) {
	return fsutil.ReadFileCapped(name, math.MaxInt64-1, "")
}

func (OSFS) Rename(oldpath, newpath string) error      { return os.Rename(oldpath, newpath) }
func (OSFS) Remove(name string) error                  { return os.Remove(name) }
func (OSFS) Chmod(name string, mode fs.FileMode) error { return os.Chmod(name, mode) }
func (OSFS) Mkdir(name string, perm fs.FileMode) error { return os.Mkdir(name, perm) }
func (OSFS) SyncDir(dir string) error                  { return fsutil.SyncDir(dir) }

// wrapFile avoids returning a non-nil File interface holding a nil *os.File.
func wrapFile(f *os.File, err error) (File, error) {
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

// osFile is an *os.File whose Sync leaves a file outside a group commit's
// kept directory to the commit (fsutil.DeferSync).
type osFile struct{ *os.File }

func (f osFile) Sync() error {
	if fsutil.Deferred(f.Name()) {
		return nil
	}
	return f.File.Sync()
}

type fsHolder struct{ fs FS }

var current atomic.Pointer[fsHolder]

// CurrentFS returns the file system the store and the run log use: the
// real one unless a test replaced it with SetTestFS.
func CurrentFS() FS {
	if h := current.Load(); h != nil {
		return h.fs
	}
	return OSFS{}
}

// SetTestFS replaces, for the whole process, the file system under every
// FileStore and every runlog.Run, and returns a function that restores the
// previous one. It exists so that fault-injection tests can drive a whole
// run (run.Start, run.Resume) over a failing disk without the run package
// knowing about it; it refuses to work outside a test binary, so a
// production agentlab always writes through the real file system.
func SetTestFS(f FS) (restore func()) {
	if !testing.Testing() {
		panic("store.SetTestFS called outside a test binary")
	}
	prev := current.Swap(&fsHolder{fs: f})
	return func() { current.Store(prev) }
}

// readRetry reads a whole file and, when the read fails with an error that
// is neither "not found" nor permanent (an EIO, say), reads it once more:
// a second failure is reported, a success means the first was transient.
// This is how restic tells a flaky disk from a damaged file.
func readRetry(fsys FS, name string) ([]byte, error) {
	b, err := fsys.ReadFile(name)
	if err == nil || errors.Is(err, fs.ErrNotExist) || IsPermanent(err) {
		return b, err
	}
	return fsys.ReadFile(name)
}

// ReadFileRetry reads name through the current FS, retrying once a read
// error that may be transient (see readRetry). The run log reads its
// record, checkpoint and events with it.
func ReadFileRetry(name string) ([]byte, error) { return readRetry(CurrentFS(), name) }

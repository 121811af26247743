// Package faultfs is a store.FS that fails on purpose: a full disk
// (ENOSPC), a device error (EIO), a short write, a failed fsync, a failed
// rename, a permission error or a flaky read, at the Nth operation of the
// kind that fault applies to. Tests install it under the artifact store and
// the run log (store.SetTestFS) and check that every fault either fails the
// run with a clear error and a resumable state, or is retried, and that no
// half-written file is ever left under a final name.
//
// Where it fits: docs/architecture.md#running.
package faultfs

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/agentlab/agentlab/run/store"
)

// Kind is a fault to inject.
type Kind int

const (
	// NoSpace fails a create, mkdir or write with ENOSPC, and every later
	// one too: a full disk stays full.
	NoSpace Kind = iota + 1
	// IOError fails one create, mkdir, write, chmod or truncate with EIO.
	IOError
	// ShortWrite writes the first half of one write and fails it.
	ShortWrite
	// SyncFail fails one fsync of a file or a directory with EIO.
	SyncFail
	// RenameFail fails one rename with EIO.
	RenameFail
	// Denied fails a create, mkdir or rename with EACCES, and every later
	// one too: permissions do not fix themselves.
	Denied
	// ReadFlaky fails one read with EIO; reading again works.
	ReadFlaky
	// ReadBroken fails a read with EIO and the read right after it too, as
	// a damaged sector would.
	ReadBroken
)

// Kinds lists every fault kind, for test matrices.
var Kinds = []Kind{NoSpace, IOError, ShortWrite, SyncFail, RenameFail, Denied, ReadFlaky, ReadBroken}

func (k Kind) String() string {
	switch k {
	case NoSpace:
		return "enospc"
	case IOError:
		return "eio"
	case ShortWrite:
		return "short-write"
	case SyncFail:
		return "fsync"
	case RenameFail:
		return "rename"
	case Denied:
		return "eacces"
	case ReadFlaky:
		return "read-eio-once"
	case ReadBroken:
		return "read-eio-twice"
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Op is a class of file-system operation.
type Op int

const (
	OpCreate Op = iota // CreateTemp, OpenFile for writing, Mkdir
	OpWrite            // File.Write
	OpSync             // File.Sync, SyncDir
	OpRename           // Rename
	OpMeta             // Chmod, Truncate
	OpRead             // ReadFile, File.Read
)

// applies reports whether fault k can hit an operation of class op.
func (k Kind) applies(op Op) bool {
	switch k {
	case NoSpace:
		return op == OpCreate || op == OpWrite
	case IOError:
		return op == OpCreate || op == OpWrite || op == OpMeta
	case ShortWrite:
		return op == OpWrite
	case SyncFail:
		return op == OpSync
	case RenameFail:
		return op == OpRename
	case Denied:
		return op == OpCreate || op == OpRename
	case ReadFlaky, ReadBroken:
		return op == OpRead
	}
	return false
}

// sticky faults keep failing every later eligible operation.
func (k Kind) sticky() bool { return k == NoSpace || k == Denied }

// FS injects fault Kind at the At-th operation (1-based) that the kind
// applies to, counting only paths under Root. At 0 injects nothing, which
// is how a test counts the eligible operations of a clean run (Count).
// Operations outside Root go straight to Base, so a test can install FS
// process-wide without disturbing others.
type FS struct {
	Base store.FS
	Root string
	Kind Kind
	At   int

	mu     sync.Mutex
	n      int  // eligible operations seen
	fired  int  // faults injected
	broken bool // a sticky fault has fired
	last   string
}

var _ store.FS = (*FS)(nil)

// New returns an FS over the real file system.
func New(root string, k Kind, at int) *FS {
	return &FS{Base: store.OSFS{}, Root: filepath.Clean(root), Kind: k, At: at}
}

// Count returns how many eligible operations were seen.
func (f *FS) Count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

// Fired returns how many faults were injected.
func (f *FS) Fired() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fired
}

// Last describes the last injected fault ("" if none).
func (f *FS) Last() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last
}

func (f *FS) under(name string) bool {
	name = filepath.Clean(name)
	return name == f.Root || strings.HasPrefix(name, f.Root+string(filepath.Separator))
}

// hit counts an operation and returns the error to inject, or nil.
func (f *FS) hit(op Op, name, what string) error {
	if !f.under(name) || !f.Kind.applies(op) {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	fire := f.broken ||
		(f.At > 0 && f.n == f.At) ||
		(f.Kind == ReadBroken && f.At > 0 && f.n == f.At+1)
	if !fire {
		return nil
	}
	if f.Kind.sticky() {
		f.broken = true
	}
	f.fired++
	err := f.errno()
	f.last = fmt.Sprintf("%s on %s %s (operation %d)", f.Kind, what, name, f.n)
	return &fs.PathError{Op: what, Path: name, Err: err}
}

func (f *FS) errno() error {
	switch f.Kind {
	case NoSpace:
		return syscall.ENOSPC
	case Denied:
		return syscall.EACCES
	case ShortWrite:
		return io.ErrShortWrite
	}
	return syscall.EIO
}

func (f *FS) CreateTemp(dir, pattern string) (store.File, error) {
	if err := f.hit(OpCreate, dir, "create"); err != nil {
		return nil, err
	}
	fl, err := f.Base.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return &file{File: fl, fs: f}, nil
}

func (f *FS) OpenFile(name string, flag int, perm fs.FileMode) (store.File, error) {
	// Opening for reading reads no data; the reads that follow count.
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_APPEND|os.O_TRUNC) != 0 {
		if err := f.hit(OpCreate, name, "open"); err != nil {
			return nil, err
		}
	}
	fl, err := f.Base.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &file{File: fl, fs: f}, nil
}

func (f *FS) ReadFile(name string) ([]byte, error) {
	if err := f.hit(OpRead, name, "read"); err != nil {
		return nil, err
	}
	return f.Base.ReadFile(name)
}

func (f *FS) Rename(oldpath, newpath string) error {
	if err := f.hit(OpRename, newpath, "rename"); err != nil {
		return err
	}
	return f.Base.Rename(oldpath, newpath)
}

// Remove never fails: cleanup that fails only leaves a temp file, which
// store checks report and which is safe to delete.
func (f *FS) Remove(name string) error { return f.Base.Remove(name) }

func (f *FS) Chmod(name string, mode fs.FileMode) error {
	if err := f.hit(OpMeta, name, "chmod"); err != nil {
		return err
	}
	return f.Base.Chmod(name, mode)
}

func (f *FS) Mkdir(name string, perm fs.FileMode) error {
	if err := f.hit(OpCreate, name, "mkdir"); err != nil {
		return err
	}
	return f.Base.Mkdir(name, perm)
}

func (f *FS) SyncDir(dir string) error {
	if err := f.hit(OpSync, dir, "fsync"); err != nil {
		return err
	}
	return f.Base.SyncDir(dir)
}

// file injects the faults of its FS into writes, fsyncs, truncates and
// reads of one open file.
type file struct {
	store.File
	fs *FS
}

func (fl *file) Write(p []byte) (int, error) {
	if err := fl.fs.hit(OpWrite, fl.Name(), "write"); err != nil {
		if fl.fs.Kind == ShortWrite {
			n, werr := fl.File.Write(p[:len(p)/2])
			if werr != nil {
				return n, werr
			}
			return n, err
		}
		return 0, err
	}
	return fl.File.Write(p)
}

func (fl *file) Sync() error {
	if err := fl.fs.hit(OpSync, fl.Name(), "fsync"); err != nil {
		return err
	}
	return fl.File.Sync()
}

func (fl *file) Truncate(size int64) error {
	if err := fl.fs.hit(OpMeta, fl.Name(), "truncate"); err != nil {
		return err
	}
	return fl.File.Truncate(size)
}

func (fl *file) Read(p []byte) (int, error) {
	if err := fl.fs.hit(OpRead, fl.Name(), "read"); err != nil {
		return 0, err
	}
	return fl.File.Read(p)
}

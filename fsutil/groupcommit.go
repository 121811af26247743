package fsutil

import (
	"path/filepath"
	"strings"
	"sync/atomic"
)

// A group commit trades one fsync per file for one flush per batch of
// work: while it is on, the fsyncs of files and directories outside the
// kept directory are skipped (Deferred says so to every writer that
// fsyncs), and the owner of the commit makes everything written durable
// at its own commit points with SyncFS, before it records that the batch
// is done. A crash before that record loses, at worst, work that is not
// recorded as done and is therefore done again; the kept directory (the
// record itself) is fsync'd as always. An evaluation uses it for the runs
// of its cases (docs/evals.md, "Durability").
type deferral struct{ keep string }

var deferred atomic.Pointer[deferral]

// DeferSync starts a group commit for the whole process, keeping the
// fsyncs under keep, and returns the function that ends it. Only one may
// be on at a time; the caller must not start another before ending it.
func DeferSync(keep string) (end func()) {
	abs, err := filepath.Abs(keep)
	if err != nil {
		abs = filepath.Clean(keep)
	}
	d := &deferral{keep: abs}
	deferred.Store(d)
	return func() { deferred.CompareAndSwap(d, nil) }
}

// Deferred reports whether the fsync of path may be skipped now: a group
// commit is on and path is outside the directory it keeps.
func Deferred(path string) bool {
	d := deferred.Load()
	if d == nil {
		return false
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	return abs != d.keep && !strings.HasPrefix(abs, d.keep+string(filepath.Separator))
}

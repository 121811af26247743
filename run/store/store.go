// Package store is the content-addressed artifact store. Blobs are named by
// the BLAKE3 hash of their bytes, written once (temp file, fsync, rename,
// fsync the directory, read-only) and re-hashed on every read, so a crash or
// a full disk never leaves a blob that reads back wrong without an error.
//
// Store is the seam for other backends (an S3-compatible bucket shared by
// many runners): nothing outside this package builds artifact
// paths, and content addressing makes every write idempotent.
//
// Where it fits: docs/architecture.md#running.
package store

import (
	"errors"
	"fmt"
	"io"
	"syscall"

	"github.com/agentlab/agentlab/hashid"
)

// Store holds immutable blobs addressed by their BLAKE3 id.
type Store interface {
	// Put stores data and returns its id. Storing bytes that are already
	// present is cheap and returns the same id.
	Put(data []byte) (hashid.ID, error)
	// PutReader streams r into the store while hashing it, without holding
	// the whole blob in memory, and returns its id and size.
	PutReader(r io.Reader) (hashid.ID, int64, error)
	// Get returns the blob's bytes after re-hashing them; ErrCorrupt when
	// they no longer match id, ErrNotFound when the blob is absent.
	Get(id hashid.ID) ([]byte, error)
	// Open returns a reader that hashes as it goes and returns ErrCorrupt
	// instead of io.EOF when the bytes did not match id. Callers must read
	// to EOF before trusting what they read.
	Open(id hashid.ID) (io.ReadCloser, error)
	// Has reports whether a blob is present, without reading it.
	Has(id hashid.ID) (bool, error)
	// List calls fn for every blob in ascending id order; an error from fn
	// stops the walk and is returned.
	List(fn func(id hashid.ID, size int64) error) error
}

// Sentinel errors; the errors returned wrap them in a *BlobError that
// names the blob, so errors.Is(err, ErrCorrupt) works.
var (
	ErrNotFound = errors.New("blob not found")
	ErrCorrupt  = errors.New("blob is corrupt")
)

// BlobError is an error about one blob.
type BlobError struct {
	ID     hashid.ID
	Path   string // where the blob lives, if the backend has paths
	Err    error  // ErrNotFound, ErrCorrupt, or the underlying I/O error
	Detail string // what was observed, e.g. the hash the bytes have now
}

func (e *BlobError) Error() string {
	s := fmt.Sprintf("artifact %s: %v", e.ID, e.Err)
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	if e.Path != "" {
		s += ": " + e.Path
	}
	return s
}

func (e *BlobError) Unwrap() error { return e.Err }

// IsPermanent reports whether err is one that retrying cannot fix: a full
// disk or quota, a read-only file system, or missing permissions. The store
// never retries writes; callers that do retry must not retry these.
func IsPermanent(err error) bool {
	for _, e := range []error{syscall.ENOSPC, syscall.EDQUOT, syscall.EACCES, syscall.EPERM, syscall.EROFS} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

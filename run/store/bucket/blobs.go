package bucket

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/run/store"
)

// MaxBlob is the largest artifact read from a bucket (the local store's
// own limits are higher than any run produces; this bounds what a hostile
// or broken server can make a reader take).
const MaxBlob int64 = 8 << 30

// Blobs is the bucket's artifact store: blob id → key artifacts/<hex>.
// Every write is content-addressed and first-writer-wins, every read is
// re-hashed, so a shared bucket never needs a lock.
type Blobs struct {
	B   *Bucket
	Ctx context.Context
	// Limit, when set, is the largest size blob id may have (a pull knows
	// each blob's size from the run's manifest); else MaxBlob.
	Limit func(id hashid.ID) int64
}

func (s *Blobs) limit(id hashid.ID) int64 {
	if s.Limit != nil {
		if n := s.Limit(id); n >= 0 && n < MaxBlob {
			return n
		}
	}
	return MaxBlob
}

var _ store.Store = (*Blobs)(nil)

func (s *Blobs) key(id hashid.ID) string { return s.B.Loc.Key("artifacts", id.Hex()) }

func (s *Blobs) blobErr(id hashid.ID, err error) error {
	if errors.Is(err, ErrNotFound) {
		return &store.BlobError{ID: id, Path: s.key(id), Err: store.ErrNotFound}
	}
	return &store.BlobError{ID: id, Path: s.key(id), Err: err}
}

// Put writes data under its id unless the bucket has it already.
func (s *Blobs) Put(data []byte) (hashid.ID, error) {
	id := hashid.Sum(data)
	if _, err := s.B.Create(s.Ctx, s.key(id), data); err != nil {
		return hashid.ID{}, s.blobErr(id, err)
	}
	return id, nil
}

// PutReader reads r whole (the SDK needs a length or a seekable body)
// and stores it.
func (s *Blobs) PutReader(r io.Reader) (hashid.ID, int64, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxBlob+1))
	if err != nil {
		return hashid.ID{}, 0, err
	}
	if int64(len(data)) > MaxBlob {
		return hashid.ID{}, 0, fmt.Errorf("artifact over %d bytes: %w", MaxBlob, ErrTooLarge)
	}
	id, err := s.Put(data)
	return id, int64(len(data)), err
}

// Get reads and re-hashes blob id.
func (s *Blobs) Get(id hashid.ID) ([]byte, error) {
	b, err := s.B.Get(s.Ctx, s.key(id), s.limit(id))
	if err != nil {
		return nil, s.blobErr(id, err)
	}
	if got := hashid.Sum(b); got != id {
		return nil, &store.BlobError{ID: id, Path: s.key(id), Err: store.ErrCorrupt, Detail: "content hashes to " + got.String()}
	}
	return b, nil
}

// Open streams blob id, re-hashing it as it goes: the reader returns
// ErrCorrupt instead of io.EOF when the bytes were not blob id.
func (s *Blobs) Open(id hashid.ID) (io.ReadCloser, error) {
	r, size, err := s.B.Open(s.Ctx, s.key(id))
	if err != nil {
		return nil, s.blobErr(id, err)
	}
	max := s.limit(id)
	if size > max {
		r.Close()
		return nil, s.blobErr(id, fmt.Errorf("%w (%d bytes, the limit is %d)", ErrTooLarge, size, max))
	}
	return store.NewVerifyingReader(r, id, s.key(id), max), nil
}

// Has reports whether the bucket holds blob id.
func (s *Blobs) Has(id hashid.ID) (bool, error) {
	ok, err := s.B.Exists(s.Ctx, s.key(id))
	if err != nil {
		return false, s.blobErr(id, err)
	}
	return ok, nil
}

// List walks the bucket's blobs in ascending id order (S3 lists keys in
// lexical order, and ids are lower-case hex). Keys that are not blob
// names are skipped.
func (s *Blobs) List(fn func(id hashid.ID, size int64) error) error {
	return s.B.List(s.Ctx, "artifacts/", "", func(key string, size int64) error {
		h := strings.TrimPrefix(key, "artifacts/")
		id, err := hashid.Parse("b3:" + h)
		if err != nil || id.Hex() != h {
			return nil
		}
		return fn(id, size)
	})
}

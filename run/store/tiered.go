package store

import (
	"errors"
	"io"

	"github.com/agentlab/agentlab/hashid"
)

// Tiered is the local store in front of a shared one (a bucket): writes go
// to the local store only, exactly as without a shared store, so crash
// safety is unchanged; a read that misses locally streams the blob from
// the shared store into the local one, where it is re-hashed before it is
// used. Publishing to the shared store is a separate, explicit step.
type Tiered struct {
	Local  *FileStore
	Shared Store
}

var _ Store = (*Tiered)(nil)

// Put writes to the local store.
func (t *Tiered) Put(data []byte) (hashid.ID, error) { return t.Local.Put(data) }

// PutReader writes to the local store.
func (t *Tiered) PutReader(r io.Reader) (hashid.ID, int64, error) { return t.Local.PutReader(r) }

// Fetch makes blob id present locally, copying it from the shared store
// when it is missing; a copy whose bytes are not id is refused (ErrCorrupt)
// and nothing is kept of it.
func (t *Tiered) Fetch(id hashid.ID) error {
	ok, err := t.Local.Has(id)
	if err != nil || ok {
		return err
	}
	r, err := t.Shared.Open(id)
	if err != nil {
		return err
	}
	defer r.Close()
	got, _, err := t.Local.PutReader(r)
	if err != nil {
		return err
	}
	if got != id {
		return &BlobError{ID: id, Err: ErrCorrupt, Detail: "the shared copy hashes to " + got.String()}
	}
	return nil
}

// Get reads blob id locally, fetching it first when it is missing.
func (t *Tiered) Get(id hashid.ID) ([]byte, error) {
	b, err := t.Local.Get(id)
	if err == nil || !errors.Is(err, ErrNotFound) {
		return b, err
	}
	if err := t.Fetch(id); err != nil {
		return nil, err
	}
	return t.Local.Get(id)
}

// Open opens blob id locally, fetching it first when it is missing.
func (t *Tiered) Open(id hashid.ID) (io.ReadCloser, error) {
	if err := t.Fetch(id); err != nil {
		return nil, err
	}
	return t.Local.Open(id)
}

// Has reports whether either store holds blob id.
func (t *Tiered) Has(id hashid.ID) (bool, error) {
	ok, err := t.Local.Has(id)
	if err != nil || ok {
		return ok, err
	}
	return t.Shared.Has(id)
}

// List walks the local store's blobs.
func (t *Tiered) List(fn func(id hashid.ID, size int64) error) error { return t.Local.List(fn) }

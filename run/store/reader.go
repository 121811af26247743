package store

import (
	"io"

	"github.com/agentlab/agentlab/hashid"
	"github.com/zeebo/blake3"
)

// verifyingReader hashes what it returns and, at the end of the blob,
// returns ErrCorrupt instead of io.EOF if the bytes were not blob id. The
// caller must not act on the content before it has seen io.EOF.
type verifyingReader struct {
	f    File
	h    *blake3.Hasher
	id   hashid.ID
	path string
	err  error // sticky final result
}

func (r *verifyingReader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n, err := r.f.Read(p)
	r.h.Write(p[:n])
	if err == io.EOF {
		if got := hashid.FromHasher(r.h); got != r.id {
			r.err = &BlobError{ID: r.id, Path: r.path, Err: ErrCorrupt, Detail: "content hashes to " + got.String()}
		} else {
			r.err = io.EOF
		}
		return n, r.err
	}
	if err != nil {
		r.err = &BlobError{ID: r.id, Path: r.path, Err: err}
		return n, r.err
	}
	return n, nil
}

func (r *verifyingReader) Close() error { return r.f.Close() }

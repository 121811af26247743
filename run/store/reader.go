package store

import (
	"fmt"
	"io"

	"github.com/agentlab/agentlab/hashid"
	"github.com/zeebo/blake3"
)

// verifyingReader hashes what it returns and, at the end of the blob,
// returns ErrCorrupt instead of io.EOF if the bytes were not blob id. The
// caller must not act on the content before it has seen io.EOF.
type verifyingReader struct {
	f    io.ReadCloser
	h    *blake3.Hasher
	id   hashid.ID
	path string
	err  error // sticky final result
	max  int64 // 0: no limit
	read int64
}

// NewVerifyingReader wraps r, the bytes of blob id read from path (for
// messages), so that it returns ErrCorrupt instead of io.EOF when they
// were not blob id, or once more than max bytes (when max > 0) arrived.
// Other backends (a bucket) use it to keep the store's read guarantee.
func NewVerifyingReader(r io.ReadCloser, id hashid.ID, path string, max int64) io.ReadCloser {
	return &verifyingReader{f: r, h: hashid.New(), id: id, path: path, max: max}
}

func (r *verifyingReader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n, err := r.f.Read(p)
	r.h.Write(p[:n])
	if r.max > 0 {
		r.read += int64(n)
		if r.read > r.max {
			r.err = &BlobError{ID: r.id, Path: r.path, Err: ErrCorrupt, Detail: fmt.Sprintf("longer than %d bytes", r.max)}
			return 0, r.err
		}
	}
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

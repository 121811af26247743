package verify

import (
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/agentlab/agentlab/fsutil"
)

// openBundleFile returns the bytes of the bundle file at path, refusing one
// over limit bytes (and anything but a regular file) before reading it. A
// large file is mapped read-only: its pages stay the page cache's, which
// the kernel may drop and read again, instead of a copy on the heap that
// the garbage collector then sizes the heap after. release unmaps it.
func openBundleFile(path string, limit int64) (file []byte, release func(), err error) {
	f, size, err := fsutil.OpenRegular(path)
	if err != nil {
		return nil, nil, err
	}
	if size > limit {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %d bytes, %w of %d (%s)", path, size, errTooBig, limit, verifyCapHint())
	}
	m, unmap, ok := mapFile(f)
	f.Close()
	if ok {
		return m, unmap, nil
	}
	b, err := readCapped(path, limit)
	return b, func() {}, err
}

// verifyBundleFile verifies a bundle whose bytes may be a file mapping: a
// file truncated while it is checked faults on access, which becomes an
// UnreadableError instead of a crash. Every read of the mapping happens on
// this goroutine (the event parser's workers read a copy of the events).
func verifyBundleFile(file []byte, opt Options) (res *Result, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			var fault interface{ Addr() uintptr }
			if e, ok := r.(error); ok && errors.As(e, &fault) {
				res, err = nil, &UnreadableError{fmt.Errorf("the bundle changed while it was read: %v", e)}
				return
			}
			panic(r)
		}
	}()
	return VerifyBundle(file, opt)
}

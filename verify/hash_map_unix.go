//go:build unix

package verify

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapMin is the smallest bundle file read through a memory map; below it
// a read costs less than setting the map up.
const mapMin = 256 << 10

// mapFile maps f read-only, so that a large bundle is read where the page
// cache holds it instead of being copied onto the heap (openBundleFile).
// It returns ok false when the file is small or cannot be mapped; the
// caller then reads it.
func mapFile(f *os.File) (b []byte, unmap func(), ok bool) {
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() < mapMin || fi.Size() != int64(int(fi.Size())) {
		return nil, nil, false
	}
	b, err = unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, false
	}
	_ = unix.Madvise(b, unix.MADV_SEQUENTIAL)
	return b, func() { _ = unix.Munmap(b) }, true
}

package fsutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// TooLargeError says a file is over the byte cap of the reader that was
// asked to read it. Hint says how to raise the cap (a flag, a setting).
type TooLargeError struct {
	Path  string
	Size  int64 // -1 when the file grew past the cap while it was read
	Limit int64
	Hint  string
}

func (e *TooLargeError) Error() string {
	size := "more than the cap"
	if e.Size >= 0 {
		size = fmt.Sprintf("%d bytes", e.Size)
	}
	msg := fmt.Sprintf("%s is %s, over the cap of %d bytes", e.Path, size, e.Limit)
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

// NotRegularError says a path names a device, a FIFO, a socket or a
// directory where a file was expected: reading one could never end
// (/dev/zero) or never start (a FIFO nobody writes to).
type NotRegularError struct {
	Path string
	Kind string
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is a %s, not a regular file; give the path of a file", e.Path, e.Kind)
}

// ErrNotRegular matches every *NotRegularError with errors.Is.
var ErrNotRegular = errors.New("not a regular file")

func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// kindOf names what a non-regular file is.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// OpenRegular opens path for reading only if it is a regular file (links
// followed), and returns it with its size. It never blocks on a FIFO (the
// open is non-blocking, and the file is checked after the open, so one
// swapped in after a check is refused too).
func OpenRegular(path string) (*os.File, int64, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, 0, &NotRegularError{Path: path, Kind: kindOf(fi.Mode())}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, &NotRegularError{Path: path, Kind: kindOf(fi.Mode())}
	}
	return f, fi.Size(), nil
}

// ReadFileCapped reads a regular file whole, refusing — before it
// allocates or reads anything — a file over limit bytes or one that is not
// regular. A file that grows past the cap while it is read is refused
// too, having read at most limit+1 bytes. hint says how to raise the cap.
func ReadFileCapped(path string, limit int64, hint string) ([]byte, error) {
	f, size, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if size > limit {
		return nil, &TooLargeError{Path: path, Size: size, Limit: limit, Hint: hint}
	}
	b := make([]byte, 0, min(size+1, limit+1))
	r := io.LimitReader(f, limit+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // the file grew since Stat
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if int64(len(b)) > limit {
		return nil, &TooLargeError{Path: path, Size: -1, Limit: limit, Hint: hint}
	}
	return b, nil
}

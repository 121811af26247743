package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentlab/agentlab/hashid"
)

// tempPrefix starts the name of every file being written. A file with this
// prefix that survives is the remains of an interrupted write; Check
// reports it and it is safe to delete.
const tempPrefix = ".tmp-"

// FileStore keeps blobs as read-only files under dir, fanned out by the
// first two hex digits: dir/ab/cdef… (the remaining 62 digits).
type FileStore struct {
	dir    string
	noSync bool
	fsys   FS // nil: CurrentFS() at the time of each call
}

var _ Store = (*FileStore)(nil)

// OpenFileStore opens (creating if needed) a store rooted at dir, normally
// <data-dir>/artifacts.
func OpenFileStore(dir string) (*FileStore, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("open artifact store: %w", err)
	}
	return &FileStore{dir: dir}, nil
}

// SetSync turns the fsync of files and directories on (the default) or off.
// Off is only for throwaway stores (tests, benchmarks, scratch evaluation
// runs) whose loss in a crash does not matter: without fsync a crash can
// leave a blob that re-hashes wrong, which reads then report as ErrCorrupt.
func (s *FileStore) SetSync(on bool) { s.noSync = !on }

// SetFS makes this store write and read through fsys instead of the
// process-wide file system (CurrentFS). Tests use it to inject faults into
// one store only.
func (s *FileStore) SetFS(fsys FS) { s.fsys = fsys }

func (s *FileStore) fs() FS {
	if s.fsys != nil {
		return s.fsys
	}
	return CurrentFS()
}

// Dir returns the store's root directory.
func (s *FileStore) Dir() string { return s.dir }

// Path returns the file that holds blob id (whether or not it exists).
func (s *FileStore) Path(id hashid.ID) string {
	h := id.Hex()
	return filepath.Join(s.dir, h[:2], h[2:])
}

// Put stores data. If a blob of the same id and size is already present
// nothing is written; concurrent Puts of the same bytes each write their own
// temp file and rename it over the other's identical content.
func (s *FileStore) Put(data []byte) (hashid.ID, error) {
	id := hashid.Sum(data)
	final := s.Path(id)
	if fi, err := os.Lstat(final); err == nil && fi.Mode().IsRegular() && fi.Size() == int64(len(data)) {
		return id, nil
	}
	shard, err := s.shard(id)
	if err != nil {
		return id, err
	}
	tmp, err := s.fs().CreateTemp(shard, tempPrefix+"*")
	if err != nil {
		return id, writeErr(id, err)
	}
	if n, err := tmp.Write(data); err != nil || n != len(data) {
		if err == nil {
			err = io.ErrShortWrite
		}
		return id, s.abort(id, tmp, err)
	}
	return id, s.commit(id, tmp)
}

// PutReader streams r to a temp file in the store root while hashing it,
// then moves the file into place. Memory use does not depend on the size.
func (s *FileStore) PutReader(r io.Reader) (hashid.ID, int64, error) {
	fsys := s.fs()
	tmp, err := fsys.CreateTemp(s.dir, tempPrefix+"*")
	if err != nil {
		return hashid.ID{}, 0, fmt.Errorf("store: %w", err)
	}
	h := hashid.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), r)
	id := hashid.FromHasher(h)
	if err != nil {
		return id, n, s.abort(id, tmp, err)
	}
	if fi, err := os.Lstat(s.Path(id)); err == nil && fi.Mode().IsRegular() && fi.Size() == n {
		tmp.Close()
		fsys.Remove(tmp.Name())
		return id, n, nil
	}
	if _, err := s.shard(id); err != nil {
		tmp.Close()
		fsys.Remove(tmp.Name())
		return id, n, err
	}
	return id, n, s.commit(id, tmp)
}

// shard creates the fan-out directory of id, making its creation durable.
func (s *FileStore) shard(id hashid.ID) (string, error) {
	d := filepath.Dir(s.Path(id))
	if _, err := os.Stat(d); err == nil {
		return d, nil
	}
	if err := s.fs().Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return d, writeErr(id, err)
	}
	if err := s.syncDir(s.dir); err != nil {
		return d, writeErr(id, err)
	}
	return d, nil
}

// commit makes tmp durable and read-only and renames it to id's path:
// fsync → close → chmod → rename → fsync the directory.
func (s *FileStore) commit(id hashid.ID, tmp File) error {
	fsys := s.fs()
	if !s.noSync {
		if err := tmp.Sync(); err != nil {
			return s.abort(id, tmp, err)
		}
	}
	if err := tmp.Close(); err != nil {
		fsys.Remove(tmp.Name())
		return writeErr(id, err)
	}
	if err := fsys.Chmod(tmp.Name(), 0o444); err != nil {
		fsys.Remove(tmp.Name())
		return writeErr(id, err)
	}
	final := s.Path(id)
	if err := fsys.Rename(tmp.Name(), final); err != nil {
		fsys.Remove(tmp.Name())
		return writeErr(id, err)
	}
	if err := s.syncDir(filepath.Dir(final)); err != nil {
		return writeErr(id, err)
	}
	return nil
}

func (s *FileStore) abort(id hashid.ID, tmp File, err error) error {
	tmp.Close()
	s.fs().Remove(tmp.Name())
	return writeErr(id, err)
}

func writeErr(id hashid.ID, err error) error {
	hint := ""
	if IsPermanent(err) {
		hint = " (permanent: free disk space or fix permissions, then retry)"
	}
	return fmt.Errorf("store artifact %s: %w%s", id.Short(), err, hint)
}

// Get reads and re-hashes blob id. A read error or a hash mismatch is
// retried once, so that a transient fault of the disk (or of memory) is
// not mistaken for corruption; what fails twice is reported.
func (s *FileStore) Get(id hashid.ID) ([]byte, error) {
	p := s.Path(id)
	fsys := s.fs()
	b, err := readRetry(fsys, p)
	if err != nil {
		return nil, s.readErr(id, err)
	}
	if hashid.Sum(b) == id {
		return b, nil
	}
	b, err = fsys.ReadFile(p)
	if err != nil {
		return nil, s.readErr(id, err)
	}
	if got := hashid.Sum(b); got != id {
		return nil, &BlobError{ID: id, Path: p, Err: ErrCorrupt, Detail: "content hashes to " + got.String()}
	}
	return b, nil
}

func (s *FileStore) readErr(id hashid.ID, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return &BlobError{ID: id, Path: s.Path(id), Err: ErrNotFound}
	}
	return &BlobError{ID: id, Path: s.Path(id), Err: err}
}

// Open returns a verifying reader for blob id.
func (s *FileStore) Open(id hashid.ID) (io.ReadCloser, error) {
	fsys := s.fs()
	f, err := fsys.OpenFile(s.Path(id), os.O_RDONLY, 0)
	if err != nil && !errors.Is(err, fs.ErrNotExist) && !IsPermanent(err) {
		f, err = fsys.OpenFile(s.Path(id), os.O_RDONLY, 0)
	}
	if err != nil {
		return nil, s.readErr(id, err)
	}
	return &verifyingReader{f: f, h: hashid.New(), id: id, path: f.Name()}, nil
}

// Has reports whether blob id is present (a stat, not a read).
func (s *FileStore) Has(id hashid.ID) (bool, error) {
	fi, err := os.Lstat(s.Path(id))
	switch {
	case err == nil:
		return fi.Mode().IsRegular(), nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	default:
		return false, s.readErr(id, err)
	}
}

// List walks the blobs in ascending id order. Files that are not blobs
// (temp files, foreign files) are skipped; Check reports them.
func (s *FileStore) List(fn func(id hashid.ID, size int64) error) error {
	return s.walk(func(e entry) error {
		if e.kind != kindBlob {
			return nil
		}
		return fn(e.id, e.size)
	})
}

type entryKind int

const (
	kindBlob entryKind = iota
	kindTemp
	kindForeign
)

type entry struct {
	kind entryKind
	id   hashid.ID
	path string
	size int64
}

// walk visits every entry of the store in sorted order.
func (s *FileStore) walk(fn func(entry) error) error {
	top, err := readDirSorted(s.dir)
	if err != nil {
		return fmt.Errorf("list artifact store: %w", err)
	}
	for _, d := range top {
		p := filepath.Join(s.dir, d.Name())
		if !d.IsDir() || !isHex(d.Name(), 2) {
			k := kindForeign
			if strings.HasPrefix(d.Name(), tempPrefix) && d.Type().IsRegular() {
				k = kindTemp
			}
			if err := fn(entry{kind: k, path: p, size: size(d)}); err != nil {
				return err
			}
			continue
		}
		files, err := readDirSorted(p)
		if err != nil {
			return fmt.Errorf("list artifact store: %w", err)
		}
		for _, f := range files {
			fp := filepath.Join(p, f.Name())
			e := entry{kind: kindForeign, path: fp, size: size(f)}
			switch {
			case strings.HasPrefix(f.Name(), tempPrefix) && f.Type().IsRegular():
				e.kind = kindTemp
			case f.Type().IsRegular() && isHex(f.Name(), 62):
				if id, err := hashid.ParseHex(d.Name() + f.Name()); err == nil {
					e.kind, e.id = kindBlob, id
				}
			}
			if err := fn(e); err != nil {
				return err
			}
		}
	}
	return nil
}

func readDirSorted(dir string) ([]fs.DirEntry, error) {
	es, err := os.ReadDir(dir)
	sort.Slice(es, func(i, j int) bool { return es[i].Name() < es[j].Name() })
	return es, err
}

func size(d fs.DirEntry) int64 {
	fi, err := d.Info()
	if err != nil {
		return -1
	}
	return fi.Size()
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// syncDir fsyncs a directory so that a rename or create in it survives a
// crash.
func (s *FileStore) syncDir(dir string) error {
	if s.noSync {
		return nil
	}
	return s.fs().SyncDir(dir)
}

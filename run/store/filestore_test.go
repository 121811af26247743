package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentlab/agentlab/hashid"
)

func newStore(t testing.TB) *FileStore {
	t.Helper()
	s, err := OpenFileStore(filepath.Join(t.TempDir(), "artifacts"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPutGetRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"small", []byte("hello")},
		{"binary", []byte{0, 1, 2, 255, '\n'}},
		{"large", bytes.Repeat([]byte("abcdefgh"), 300_000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			id, err := s.Put(tt.data)
			if err != nil {
				t.Fatal(err)
			}
			if id != hashid.Sum(tt.data) {
				t.Fatalf("id %s is not the BLAKE3 of the data", id)
			}
			got, err := s.Get(id)
			if err != nil || !bytes.Equal(got, tt.data) {
				t.Fatalf("Get = %d bytes, %v", len(got), err)
			}
			rid, n, err := s.PutReader(bytes.NewReader(tt.data))
			if err != nil || rid != id || n != int64(len(tt.data)) {
				t.Fatalf("PutReader = %s, %d, %v", rid, n, err)
			}
			rc, err := s.Open(id)
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil || !bytes.Equal(b, tt.data) {
				t.Fatalf("Open read %d bytes, %v", len(b), err)
			}
			if ok, err := s.Has(id); !ok || err != nil {
				t.Fatalf("Has = %v, %v", ok, err)
			}
			// Layout: artifacts/ab/cdef…, read-only.
			h := id.Hex()
			fi, err := os.Stat(filepath.Join(s.Dir(), h[:2], h[2:]))
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm()&0o222 != 0 {
				t.Errorf("blob is writable: %v", fi.Mode())
			}
			rep, err := s.Check(map[hashid.ID]bool{id: true})
			if err != nil || !rep.OK() || rep.Blobs != 1 || len(rep.Stray) != 0 || len(rep.Orphans) != 0 {
				t.Fatalf("Check = %s, %v", rep, err)
			}
		})
	}
}

func TestPutReaderStreamsLargeInput(t *testing.T) {
	s := newStore(t)
	const n = 8 << 20
	src := io.LimitReader(zeroReader{}, n)
	id, got, err := s.PutReader(src)
	if err != nil || got != n {
		t.Fatal(got, err)
	}
	if want := hashid.Sum(make([]byte, n)); id != want {
		t.Fatalf("id %s, want %s", id, want)
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestPutReaderError(t *testing.T) {
	s := newStore(t)
	boom := errors.New("boom")
	_, _, err := s.PutReader(io.MultiReader(strings.NewReader("abc"), errReader{boom}))
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	rep, _ := s.Check(nil)
	if len(rep.Stray) != 0 || rep.Blobs != 0 {
		t.Fatalf("failed write left files behind: %s", rep)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// TestDamaged damages stored blobs on purpose and asserts the exact
// complaint of every read path and of Check.
func TestDamaged(t *testing.T) {
	data := []byte("the quick brown fox jumps over the lazy dog")
	tests := []struct {
		name    string
		damage  func(t *testing.T, s *FileStore, id hashid.ID)
		wantErr error
		check   func(r *CheckReport) []Finding
	}{
		{"flipped byte", func(t *testing.T, s *FileStore, id hashid.ID) {
			rewrite(t, s.Path(id), func(b []byte) []byte { b[5] ^= 0x20; return b })
		}, ErrCorrupt, func(r *CheckReport) []Finding { return r.Corrupt }},
		{"truncated", func(t *testing.T, s *FileStore, id hashid.ID) {
			rewrite(t, s.Path(id), func(b []byte) []byte { return b[:len(b)/2] })
		}, ErrCorrupt, func(r *CheckReport) []Finding { return r.Corrupt }},
		{"emptied", func(t *testing.T, s *FileStore, id hashid.ID) {
			rewrite(t, s.Path(id), func(b []byte) []byte { return nil })
		}, ErrCorrupt, func(r *CheckReport) []Finding { return r.Corrupt }},
		{"deleted", func(t *testing.T, s *FileStore, id hashid.ID) {
			if err := os.Remove(s.Path(id)); err != nil {
				t.Fatal(err)
			}
		}, ErrNotFound, func(r *CheckReport) []Finding { return r.Missing }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			id, err := s.Put(data)
			if err != nil {
				t.Fatal(err)
			}
			tt.damage(t, s, id)
			_, err = s.Get(id)
			assertBlobErr(t, "Get", err, tt.wantErr, id)
			if rc, err := s.Open(id); err != nil {
				assertBlobErr(t, "Open", err, tt.wantErr, id)
			} else {
				_, err = io.ReadAll(rc)
				rc.Close()
				assertBlobErr(t, "Open+Read", err, tt.wantErr, id)
			}
			rep, err := s.Check(map[hashid.ID]bool{id: true})
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK() {
				t.Fatalf("Check says OK: %s", rep)
			}
			fs := tt.check(rep)
			if len(fs) != 1 || fs[0].ID != id || fs[0].Blob != id.String() {
				t.Fatalf("Check findings = %+v (%s)", fs, rep)
			}
		})
	}
}

func assertBlobErr(t *testing.T, op string, err, want error, id hashid.ID) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: err = %v, want %v", op, err, want)
	}
	var be *BlobError
	if !errors.As(err, &be) || be.ID != id || !strings.Contains(err.Error(), id.String()) {
		t.Fatalf("%s: error does not name the blob: %v", op, err)
	}
}

func rewrite(t *testing.T, path string, f func([]byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, f(b), 0o444); err != nil {
		t.Fatal(err)
	}
}

func TestCheckStrayAndOrphans(t *testing.T) {
	s := newStore(t)
	a, _ := s.Put([]byte("a"))
	b, _ := s.Put([]byte("b"))
	missing := hashid.Sum([]byte("never stored"))
	// Remains of interrupted writes, in the root and in a shard, and a foreign file.
	h := a.Hex()
	for _, p := range []string{
		filepath.Join(s.Dir(), ".tmp-123"),
		filepath.Join(s.Dir(), h[:2], ".tmp-456"),
		filepath.Join(s.Dir(), h[:2], "README"),
	} {
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := s.Check(map[hashid.ID]bool{a: true, missing: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Stray) != 3 {
		t.Errorf("stray = %+v", rep.Stray)
	}
	temps := 0
	for _, f := range rep.Stray {
		if strings.Contains(f.Message, "interrupted write") {
			temps++
		}
	}
	if temps != 2 {
		t.Errorf("temp files reported: %d, want 2: %+v", temps, rep.Stray)
	}
	if len(rep.Orphans) != 1 || rep.Orphans[0].ID != b {
		t.Errorf("orphans = %+v", rep.Orphans)
	}
	if len(rep.Missing) != 1 || rep.Missing[0].ID != missing {
		t.Errorf("missing = %+v", rep.Missing)
	}
	if rep.OK() {
		t.Error("a missing blob must make the store not OK")
	}
	// Without a referenced set there are no orphans and nothing is missing.
	rep, _ = s.Check(nil)
	if !rep.OK() || len(rep.Orphans) != 0 || rep.Blobs != 2 {
		t.Errorf("Check(nil) = %s", rep)
	}
	// List skips everything that is not a blob, in id order.
	var ids []hashid.ID
	if err := s.List(func(id hashid.ID, size int64) error {
		if size != 1 {
			t.Errorf("size %d", size)
		}
		ids = append(ids, id)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 2 || ids[0].Hex() > ids[1].Hex() {
		t.Errorf("List = %v", ids)
	}
	stop := errors.New("stop")
	if err := s.List(func(hashid.ID, int64) error { return stop }); err != stop {
		t.Errorf("List did not stop: %v", err)
	}
}

func TestPutRepairsWrongSize(t *testing.T) {
	s := newStore(t)
	id, _ := s.Put([]byte("0123456789"))
	rewrite(t, s.Path(id), func(b []byte) []byte { return b[:3] })
	if _, err := s.Put([]byte("0123456789")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(id); err != nil {
		t.Fatalf("Put over a truncated blob did not repair it: %v", err)
	}
}

func TestPermanentErrors(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores permissions")
	}
	s := newStore(t)
	if err := os.Chmod(s.Dir(), 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(s.Dir(), 0o755)
	_, err := s.Put([]byte("x"))
	if err == nil || !IsPermanent(err) || !strings.Contains(err.Error(), "permanent") {
		t.Fatalf("err = %v, want a permanent error", err)
	}
}

func TestConcurrentPut(t *testing.T) {
	s := newStore(t)
	const workers = 8
	same := bytes.Repeat([]byte("same blob "), 10_000)
	var wg sync.WaitGroup
	errs := make(chan error, workers*20)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				if _, err := s.Put(same); err != nil {
					errs <- err
				}
				if _, _, err := s.PutReader(bytes.NewReader(same)); err != nil {
					errs <- err
				}
				if _, err := s.Put(fmt.Appendf(nil, "blob %d/%d", w, i)); err != nil {
					errs <- err
				}
				if b, err := s.Get(hashid.Sum(same)); err != nil && !errors.Is(err, ErrNotFound) {
					errs <- err
				} else if err == nil && !bytes.Equal(b, same) {
					errs <- fmt.Errorf("read wrong bytes")
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	rep, err := s.Check(nil)
	if err != nil || !rep.OK() || rep.Blobs != 1+workers*10 || len(rep.Stray) != 0 {
		t.Fatalf("after concurrent puts: %s, %v", rep, err)
	}
}

package faultfs_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/run/store"
	"github.com/agentlab/agentlab/run/store/faultfs"
)

// blobs are the payloads each trial stores: small, empty and streamed.
var blobs = [][]byte{[]byte("alpha"), {}, bytes.Repeat([]byte("b"), 70000), []byte("gamma")}

// putAll stores every blob through s, the big one streamed, and returns
// the ids that were stored without error.
func putAll(s *store.FileStore) (map[hashid.ID][]byte, error) {
	ok := map[hashid.ID][]byte{}
	var first error
	for i, b := range blobs {
		var id hashid.ID
		var err error
		if i == 2 {
			id, _, err = s.PutReader(bytes.NewReader(b))
		} else {
			id, err = s.Put(b)
		}
		if err == nil {
			ok[id] = b
		} else if first == nil {
			first = err
		}
	}
	return ok, first
}

// TestStoreWriteFaults fails every write-side operation of a few Puts in
// turn, for every kind of fault: a Put either succeeds with a blob that
// reads back, or fails naming the fault; no final name ever holds bytes
// that do not hash to it, and a later Put over the real disk repairs all.
func TestStoreWriteFaults(t *testing.T) {
	for _, kind := range []faultfs.Kind{faultfs.NoSpace, faultfs.IOError, faultfs.ShortWrite, faultfs.SyncFail, faultfs.RenameFail, faultfs.Denied} {
		t.Run(kind.String(), func(t *testing.T) {
			counter := faultfs.New(t.TempDir(), kind, 0)
			s, err := store.OpenFileStore(counter.Root)
			if err != nil {
				t.Fatal(err)
			}
			s.SetFS(counter)
			if _, err := putAll(s); err != nil {
				t.Fatal(err)
			}
			n := counter.Count()
			if n == 0 {
				t.Fatalf("no operation for %s", kind)
			}
			for at := 1; at <= n; at++ {
				dir := t.TempDir()
				ffs := faultfs.New(dir, kind, at)
				s, _ := store.OpenFileStore(dir)
				s.SetFS(ffs)
				stored, err := putAll(s)
				if ffs.Fired() == 0 || err == nil {
					t.Fatalf("%s at %d: fired %d, err %v", kind, at, ffs.Fired(), err)
				}
				want := map[faultfs.Kind]error{faultfs.NoSpace: syscall.ENOSPC, faultfs.Denied: syscall.EACCES}[kind]
				if want != nil && (!errors.Is(err, want) || !store.IsPermanent(err)) {
					t.Fatalf("%s at %d: %v is not the permanent %v", kind, at, err, want)
				}
				s.SetFS(store.OSFS{})
				for id, b := range stored {
					got, err := s.Get(id)
					if err != nil || !bytes.Equal(got, b) {
						t.Fatalf("%s at %d: a Put that succeeded reads back %v", kind, at, err)
					}
				}
				rep, err := s.Check(nil)
				if err != nil || !rep.OK() || len(rep.Transient) > 0 {
					t.Fatalf("%s at %d: %v %s", kind, at, err, rep)
				}
				if _, err := putAll(s); err != nil {
					t.Fatalf("%s at %d: retry over the real disk: %v", kind, at, err)
				}
			}
		})
	}
}

// TestStoreReadFaults: a read that fails once is retried and goes
// unnoticed; one that fails twice is an error that names the blob and is
// not mistaken for corruption. Check tells the two apart.
func TestStoreReadFaults(t *testing.T) {
	dir := t.TempDir()
	s, _ := store.OpenFileStore(dir)
	id, err := s.Put([]byte("evidence"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		kind faultfs.Kind
		ok   bool
	}{{faultfs.ReadFlaky, true}, {faultfs.ReadBroken, false}} {
		ffs := faultfs.New(dir, tc.kind, 1)
		s.SetFS(ffs)
		b, err := s.Get(id)
		if tc.ok != (err == nil) || (tc.ok && string(b) != "evidence") {
			t.Errorf("%s: Get = %q, %v", tc.kind, b, err)
		}
		if err != nil && (errors.Is(err, store.ErrCorrupt) || !errors.Is(err, syscall.EIO)) {
			t.Errorf("%s: want an EIO error, not corruption: %v", tc.kind, err)
		}
		s.SetFS(faultfs.New(dir, tc.kind, 1))
		rep, err := s.Check(nil)
		if err != nil {
			t.Fatal(err)
		}
		if tc.ok && (len(rep.Transient) != 1 || !rep.OK()) {
			t.Errorf("%s: check: %s", tc.kind, rep)
		}
		if !tc.ok && len(rep.Unreadable) != 1 {
			t.Errorf("%s: check: %s", tc.kind, rep)
		}
		if len(rep.Corrupt) != 0 {
			t.Errorf("%s: a read error was reported as corruption: %s", tc.kind, rep)
		}
	}
	// Real corruption still fails twice and is reported as such.
	s.SetFS(store.OSFS{})
	p := s.Path(id)
	os.Chmod(p, 0o644)
	if err := os.WriteFile(p, []byte("evidencE"), 0o444); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(id); !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("corrupt blob: %v", err)
	}
}

// TestOutsideRootUntouched: operations outside Root are neither counted
// nor failed, so one test's faults cannot leak into another's files.
func TestOutsideRootUntouched(t *testing.T) {
	root, other := t.TempDir(), t.TempDir()
	ffs := faultfs.New(root, faultfs.NoSpace, 1)
	f, err := ffs.CreateTemp(other, "x")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("fine")); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if ffs.Count() != 0 {
		t.Errorf("counted %d operations outside root", ffs.Count())
	}
	if _, err := ffs.CreateTemp(filepath.Join(root), "y"); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("inside root: %v", err)
	}
	if _, err := ffs.CreateTemp(root, "z"); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("a full disk stays full: %v", err)
	}
	if fmt.Sprint(faultfs.ReadBroken) != "read-eio-twice" {
		t.Errorf("kind name %s", faultfs.ReadBroken)
	}
}

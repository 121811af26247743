//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentlab/agentlab/bench"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/run/store"
)

// storeWork writes size blobs of 1 MiB to a new store (hash, temp file,
// write, fsync unless the stage is store-nosync, rename) and reads every
// one back verified. Generating the blobs is not timed. The store is left
// in place for the floor's b3sum; the parent removes it.
func storeWork(a *childArgs) (*sample, error) {
	st, err := store.OpenFileStore(filepath.Join(a.dir, "store"))
	if err != nil {
		return nil, err
	}
	st.SetSync(a.stage != "store-nosync")
	buf := make([]byte, 1<<20)
	var put, get time.Duration
	ns, n, err := measure(&childArgs{min: 0, cpuprofile: a.cpuprofile}, func() (time.Duration, error) {
		ids := make([]hashid.ID, a.size)
		for i := range a.size {
			setup(func() { bench.Blob(i, buf) })
			t := time.Now()
			id, err := st.Put(buf)
			put += time.Since(t)
			if err != nil {
				return 0, err
			}
			ids[i] = id
		}
		for _, id := range ids {
			t := time.Now()
			b, err := st.Get(id)
			get += time.Since(t)
			if err != nil {
				return 0, err
			}
			if len(b) != len(buf) {
				return 0, fmt.Errorf("blob %s read back %d bytes", id.Short(), len(b))
			}
		}
		return put + get, nil
	})
	return &sample{NsPerOp: ns, Ops: n, Bytes: int64(a.size) << 20, Units: a.size,
		Extra: map[string]float64{"put_ns": float64(put), "get_ns": float64(get)}}, err
}

// storeFloor is the store's floor: the same blobs written durably and
// read back with no hash — temp file, write, fsync, rename, fsync of the
// directory, read — which is what any store that keeps blobs in files
// must do (store-nosync's floor leaves out the two fsyncs). As references
// it hashes the bytes in memory with BLAKE3 on one core, writes and reads
// them as plain files (no fsync, no rename), and runs b3sum over the
// files the work left, when b3sum is installed.
func storeFloor(a *childArgs) (*sample, error) {
	buf := make([]byte, 1<<20)
	durable := filepath.Join(a.dir, "durable")
	if err := os.MkdirAll(durable, 0o755); err != nil {
		return nil, err
	}
	defer os.RemoveAll(durable)
	sync := a.stage != "store-nosync"
	var floor time.Duration
	for i := range a.size {
		bench.Blob(i, buf)
		t := time.Now()
		if err := durableWriteRead(durable, fmt.Sprint(i), buf, sync); err != nil {
			return nil, err
		}
		floor += time.Since(t)
	}
	extra := map[string]float64{}
	var raw time.Duration
	for i := range a.size {
		bench.Blob(i, buf)
		t := time.Now()
		_ = hashid.Sum(buf)
		raw += time.Since(t)
	}
	extra["raw_ns"] = float64(raw)
	plain := filepath.Join(a.dir, "plain")
	if err := os.MkdirAll(plain, 0o755); err != nil {
		return nil, err
	}
	var pf time.Duration
	for i := range a.size {
		bench.Blob(i, buf)
		p := filepath.Join(plain, fmt.Sprint(i))
		t := time.Now()
		if err := os.WriteFile(p, buf, 0o444); err != nil {
			return nil, err
		}
		if _, err := os.ReadFile(p); err != nil {
			return nil, err
		}
		pf += time.Since(t)
		os.Remove(p)
	}
	os.RemoveAll(plain)
	extra["plainfile_ns"] = float64(pf)
	if b3, err := exec.LookPath("b3sum"); err == nil {
		files, _ := storeFiles(filepath.Join(a.dir, "store"))
		if len(files) > 0 {
			t := time.Now()
			out, err := exec.Command(b3, append([]string{"--no-names"}, files...)...).Output()
			if err != nil {
				return nil, fmt.Errorf("b3sum: %w", err)
			}
			extra["b3sum_ns"] = float64(time.Since(t))
			extra["b3sum_files"] = float64(strings.Count(string(out), "\n"))
		}
	}
	return &sample{NsPerOp: float64(floor), Ops: 1, Bytes: int64(a.size) << 20, Units: a.size, Extra: extra}, nil
}

// durableWriteRead writes b to dir/name the way a crash-safe store must
// (a temp file, written, fsynced, renamed into place, the directory
// fsynced), then reads the file back; with sync false, without the fsyncs.
func durableWriteRead(dir, name string, b []byte, sync bool) error {
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if sync {
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	final := filepath.Join(dir, name)
	if err := os.Rename(f.Name(), final); err != nil {
		return err
	}
	if sync {
		d, err := os.Open(dir)
		if err != nil {
			return err
		}
		err = d.Sync()
		d.Close()
		if err != nil {
			return err
		}
	}
	got, err := os.ReadFile(final)
	if err != nil {
		return err
	}
	if len(got) != len(b) {
		return fmt.Errorf("%s read back %d bytes of %d", final, len(got), len(b))
	}
	return nil
}

// storeFiles lists the blob files of a store directory (two-level shards).
func storeFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && !strings.HasPrefix(d.Name(), ".") && len(d.Name()) == 62 {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

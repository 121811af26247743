//go:build unix

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agentlab/agentlab/bench"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/verify"
)

func verifyRunDir(a *childArgs) (string, *bench.GeneratedRun, error) {
	b, err := os.ReadFile(filepath.Join(a.dir, "run.json"))
	if err != nil {
		return "", nil, err
	}
	var g bench.GeneratedRun
	if err := json.Unmarshal(b, &g); err != nil {
		return "", nil, err
	}
	return g.Dir, &g, nil
}

// verifyWork runs verify.Verify on the generated run directory, as
// `agentlab verify RUN_DIR` does.
func verifyWork(a *childArgs) (*sample, error) {
	dir, g, err := verifyRunDir(a)
	if err != nil {
		return nil, err
	}
	ns, n, err := measure(a, func() (time.Duration, error) {
		t := time.Now()
		res, err := verify.Verify(dir, verify.Options{})
		d := time.Since(t)
		if err != nil {
			return 0, err
		}
		if !res.OK {
			b, _ := json.Marshal(res.Checks)
			return 0, fmt.Errorf("verify failed: %s", b)
		}
		return d, nil
	})
	if err != nil {
		return nil, err
	}
	smp := &sample{NsPerOp: ns, Ops: n, Bytes: g.LogBytes + g.BlobBytes, Units: a.size, Extra: map[string]float64{}}
	// the same through the built binary, when bench/run.sh says where it is
	if bin := os.Getenv("AGENTLAB_BIN"); bin != "" && a.cpuprofile == "" {
		t := time.Now()
		out, err := exec.Command(bin, "verify", dir, "--format", "json").CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("agentlab verify %s: %v\n%s", dir, err, out)
		}
		smp.Extra["cli_ns"] = float64(time.Since(t))
	}
	return smp, nil
}

// verifyFloor is verify's floor: b3sum (every core, memory-mapped files)
// hashing the same files, events.jsonl and every artifact, from the page
// cache — the hashing verify cannot avoid, done by the reference BLAKE3
// tool. Without b3sum the floor is the mmap ceiling below. As references
// it also hashes the same bytes from memory on every core (nothing read),
// and from the files on every core with read(2) into a 1 MiB buffer and
// through mmap.
func verifyFloor(a *childArgs) (*sample, error) {
	dir, g, err := verifyRunDir(a)
	if err != nil {
		return nil, err
	}
	paths, err := storeFiles(g.Artifacts)
	if err != nil {
		return nil, err
	}
	paths = append(paths, filepath.Join(dir, "events.jsonl"))
	bufs := make([][]byte, len(paths))
	var total int64
	for i, p := range paths {
		if bufs[i], err = os.ReadFile(p); err != nil {
			return nil, err
		}
		total += int64(len(bufs[i]))
	}
	workers := runtime.NumCPU()
	mem, _, err := measureLoop(&childArgs{min: a.min}, func() (time.Duration, error) {
		t := time.Now()
		err := parallel(len(bufs), workers, func(i int) error { _ = hashid.Sum(bufs[i]); return nil })
		return time.Since(t), err
	})
	if err != nil {
		return nil, err
	}
	bufs = nil
	extra := map[string]float64{"workers": float64(workers), "mem_ns": mem}
	for name, hashFile := range map[string]func(string) error{"read_ns": hashRead, "mmap_ns": hashMmap} {
		rns, _, err := measureLoop(&childArgs{min: a.min}, func() (time.Duration, error) {
			t := time.Now()
			err := parallel(len(paths), workers, func(i int) error { return hashFile(paths[i]) })
			return time.Since(t), err
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		extra[name] = rns
	}
	b3, err := exec.LookPath("b3sum")
	if err != nil {
		extra["floor_mmap"] = 1
		return &sample{NsPerOp: extra["mmap_ns"], Ops: 1, Bytes: total, Units: a.size, Extra: extra}, nil
	}
	var childCPU time.Duration
	calls := 0
	ns, n, err := measure(a, func() (time.Duration, error) {
		cmd := exec.Command(b3, append([]string{"--no-names"}, paths...)...)
		t := time.Now()
		out, err := cmd.Output()
		d := time.Since(t)
		if err != nil {
			return 0, fmt.Errorf("b3sum: %w", err)
		}
		childCPU += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		calls++
		if got := strings.Count(string(out), "\n"); got != len(paths) {
			return 0, fmt.Errorf("b3sum printed %d hashes for %d files", got, len(paths))
		}
		return d, nil
	})
	if err != nil {
		return nil, err
	}
	lastCPU = float64(childCPU) / float64(calls) // b3sum's own CPU time, not this process's
	return &sample{NsPerOp: ns, Ops: n, Bytes: total, Units: a.size, Extra: extra}, nil
}

// parallel calls f(0…n-1) on workers goroutines and returns the first error.
func parallel(n, workers int, f func(i int) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n || errs[w] != nil {
					return
				}
				errs[w] = f(i)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func hashRead(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := readBufs.Get().(*[]byte)
	defer readBufs.Put(buf)
	_, _, err = hashid.SumReaderBuffer(f, *buf)
	return err
}

// readBufs holds the 1 MiB read buffers of hashRead, one per core in use,
// reused from blob to blob as verify's hashing workers reuse theirs.
var readBufs = sync.Pool{New: func() any { b := make([]byte, 1<<20); return &b }}

func hashMmap(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return err
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return err
	}
	_ = hashid.Sum(b)
	return syscall.Munmap(b)
}

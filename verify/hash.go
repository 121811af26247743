package verify

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"sync"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/hashid"
)

func canonicalize(b []byte) ([]byte, error) { return canon.Canonicalize(b) }

func decodeB64(s string) ([]byte, error) { return base64.StdEncoding.DecodeString(s) }

// hashArtifacts re-hashes the blobs ids from the store directory dir,
// streaming each file (no artifact is held in memory) on Options.Workers
// goroutines, and records a failure per missing or altered blob. It
// returns the ids that are present and intact. Large blobs are the cost of
// verifying a run, so they are spread over every core; BLAKE3 itself uses
// SIMD within each.
func (v *verifier) hashArtifacts(dir string, ids []string) map[string]bool {
	ok, errs := hashAll(dir, ids, v.opt.Workers, v.opt.MaxBytes)
	for _, err := range errs {
		v.fail(CheckArtifacts, "%v", err)
	}
	return ok
}

// hashAll re-hashes the blobs ids from dir on workers goroutines; it
// returns the intact ids and one error per missing or altered blob, in id
// order; a blob over maxBytes (when > 0) is refused without being read. It
// touches no shared state, so it can run while the events are checked.
func hashAll(dir string, ids []string, workers int, maxBytes int64) (map[string]bool, []error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type result struct {
		id  string
		err error
	}
	// Each distinct id is hashed once, into its own result slot.
	seen := make(map[string]bool, len(ids))
	uniq := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			uniq = append(uniq, id)
		}
	}
	jobs := make(chan int)
	results := make([]result, len(uniq))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 1<<20)
			for i := range jobs {
				results[i] = result{uniq[i], hashOne(dir, uniq[i], buf, maxBytes)}
			}
		}()
	}
	for i := range uniq {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	ok := map[string]bool{}
	var fails []result
	for _, r := range results {
		if r.err == nil {
			ok[r.id] = true
		} else {
			fails = append(fails, r)
		}
	}
	sort.Slice(fails, func(i, j int) bool { return fails[i].id < fails[j].id })
	errs := make([]error, len(fails))
	for i, r := range fails {
		errs[i] = r.err
	}
	return ok, errs
}

// hashOne re-hashes one blob, reading it through the worker's buffer buf.
//
// The bytes are read with read(2) into that one reused buffer rather than
// hashed through a memory map: the copy lands in the core's cache, where
// BLAKE3 reads it at full speed, while a map of the page cache is touched
// 4 KiB page by page through fresh page-table entries, each a nested page
// walk on a virtual machine. Measured on the benchmark's 1,000 × 1 MiB
// blobs (docs/performance.md, Verify), reading was 2.2–2.5× the speed of
// mapping. hashid.SumReaderBuffer calls Read itself: io.CopyBuffer would
// hand the file to os.File.WriteTo, which ignores buf and copies through a
// fresh 32 KiB buffer per blob.
func hashOne(dir, s string, buf []byte, maxBytes int64) error {
	id, err := hashid.Parse(s)
	if err != nil {
		return fmt.Errorf("artifact id %q is not a hash id", s)
	}
	f, size, err := fsutil.OpenRegular(artifactPath(dir, id))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("artifact %s is missing", id.Short())
		}
		return fmt.Errorf("artifact %s: %v", id.Short(), err)
	}
	defer f.Close()
	if maxBytes > 0 && size > maxBytes {
		// a sparse file claims terabytes at no cost on disk; hashing them
		// would take hours
		return fmt.Errorf("artifact %s is %d bytes, over the limit of %d (%s)", id.Short(), size, maxBytes, verifyCapHint())
	}
	// a file that another process keeps appending to, or one that reports
	// no size and yields bytes without end (/proc/self/pagemap), is read up
	// to one byte past the size it had when opened, not for hours
	got, _, err := hashid.SumReaderBuffer(io.LimitReader(f, size+1), buf)
	if err != nil {
		return fmt.Errorf("artifact %s: %v", id.Short(), err)
	}
	if got != id {
		return fmt.Errorf("artifact %s is altered: its bytes hash to %s", id.Short(), got.Short())
	}
	return nil
}

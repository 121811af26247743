package verify

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/internal/evfixture"
)

// The verify benchmark runs on a generated sealed run: small by default;
// AGENTLAB_BENCH_VERIFY=large gives the docs/performance.md form, 100,000 events and
// 1 GiB of artifacts (256 × 4 MiB). Both benchmarks hash exactly the same
// bytes (events.jsonl and every artifact) so that their ratio is the
// budget: verify against raw BLAKE3 on both cores.

var (
	largeOnce sync.Once
	largeRun  *evfixture.Run
	largeErr  error
)

func benchRun(b *testing.B) *evfixture.Run {
	b.Helper()
	largeOnce.Do(func() {
		l := evfixture.Large{Events: 5000, Artifacts: 32, ArtifactBytes: 1 << 20}
		if os.Getenv("AGENTLAB_BENCH_VERIFY") == "large" {
			l = evfixture.Large{Events: 100_000, Artifacts: 256, ArtifactBytes: 4 << 20}
		}
		dir, err := os.MkdirTemp("", "agentlab-verify-bench-")
		if err != nil {
			largeErr = err
			return
		}
		largeRun, largeErr = evfixture.BuildLarge(dir, l)
	})
	if largeErr != nil {
		b.Fatal(largeErr)
	}
	return largeRun
}

// benchFiles lists events.jsonl and every blob of the run's store.
func benchFiles(b *testing.B, r *evfixture.Run) ([]string, int64) {
	files := []string{filepath.Join(r.Dir, "events.jsonl")}
	_ = filepath.Walk(filepath.Join(r.DataDir, "artifacts"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && !strings.HasPrefix(fi.Name(), ".") {
			files = append(files, p)
		}
		return nil
	})
	var n int64
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			b.Fatal(err)
		}
		n += fi.Size()
	}
	return files, n
}

// rawHash is the floor: BLAKE3 of the same files on GOMAXPROCS goroutines.
func rawHash(b *testing.B, files []string) {
	jobs := make(chan string)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 1<<20)
			for p := range jobs {
				f, err := os.Open(p)
				if err != nil {
					b.Error(err)
					continue
				}
				_, _, _ = hashid.SumReaderBuffer(f, buf)
				f.Close()
			}
		}()
	}
	for _, f := range files {
		jobs <- f
	}
	close(jobs)
	wg.Wait()
}

func BenchmarkVerifyRawBLAKE3(b *testing.B) {
	r := benchRun(b)
	files, n := benchFiles(b, r)
	b.SetBytes(n)
	b.ResetTimer()
	for b.Loop() {
		rawHash(b, files)
	}
	reportRSS(b)
}

func BenchmarkVerifyRunDir(b *testing.B) {
	r := benchRun(b)
	files, n := benchFiles(b, r)
	rawHash(b, files) // warm the page cache like the floor
	b.SetBytes(n)
	b.ResetTimer()
	var verify, raw time.Duration
	for b.Loop() {
		t0 := time.Now()
		res, err := Verify(r.Dir, Options{})
		verify += time.Since(t0)
		if err != nil || !res.OK {
			b.Fatalf("verify: %v %+v", err, res)
		}
		b.StopTimer()
		t1 := time.Now()
		rawHash(b, files)
		raw += time.Since(t1)
		b.StartTimer()
	}
	b.ReportMetric(float64(raw)/float64(verify), "raw/verify")
	reportRSS(b)
}

// reportRSS reports the process's peak resident set (Linux), in MiB.
func reportRSS(b *testing.B) {
	s, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for _, l := range strings.Split(string(s), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			f := strings.Fields(l)
			if len(f) >= 2 {
				if kb, err := strconv.ParseFloat(f[1], 64); err == nil {
					b.ReportMetric(kb/1024, "peak-RSS-MiB")
				}
			}
		}
	}
}

package store

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/agentlab/agentlab/hashid"
)

// The two benchmarks below run on the same 1 MiB of bytes so that their
// MB/s can be compared within one run (docs/performance.md: store write + read-back
// must reach at least 50% of raw BLAKE3).

func benchBytes() []byte {
	b := make([]byte, 1<<20)
	r := rand.NewChaCha8([32]byte{1})
	r.Read(b)
	return b
}

func BenchmarkBLAKE3Raw1MiB(b *testing.B) {
	data := benchBytes()
	b.SetBytes(int64(len(data)))
	for i := 0; b.Loop(); i++ {
		binary.LittleEndian.PutUint64(data, uint64(i))
		_ = hashid.Sum(data)
	}
}

// BenchmarkStorePutGet1MiB writes a new 1 MiB blob (one counter changes the
// first bytes so every iteration really writes) and reads it back verified.
func BenchmarkStorePutGet1MiB(b *testing.B) {
	s := newStore(b)
	data := benchBytes()
	b.SetBytes(int64(len(data)))
	for i := 0; b.Loop(); i++ {
		binary.LittleEndian.PutUint64(data, uint64(i))
		id, err := s.Put(data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Get(id); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStorePutGet1MiBNoSync is the same without fsync: it separates
// the store's own cost from the disk's flush latency.
func BenchmarkStorePutGet1MiBNoSync(b *testing.B) {
	s := newStore(b)
	s.SetSync(false)
	data := benchBytes()
	b.SetBytes(int64(len(data)))
	for i := 0; b.Loop(); i++ {
		binary.LittleEndian.PutUint64(data, uint64(i))
		id, err := s.Put(data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Get(id); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFileWriteRead1MiB is a second floor: plain os.WriteFile and
// os.ReadFile of the same bytes, no hashing, no fsync, no rename. The gap
// between it and BenchmarkStorePutGet1MiBNoSync is the store's own cost.
func BenchmarkFileWriteRead1MiB(b *testing.B) {
	dir := b.TempDir()
	data := benchBytes()
	b.SetBytes(int64(len(data)))
	for i := 0; b.Loop(); i++ {
		binary.LittleEndian.PutUint64(data, uint64(i))
		p := filepath.Join(dir, strconv.Itoa(i))
		if err := os.WriteFile(p, data, 0o444); err != nil {
			b.Fatal(err)
		}
		if _, err := os.ReadFile(p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStoreRatio1MiB interleaves the raw hash and the store round trip
// on the same bytes in every iteration and reports their throughput ratio
// (store MB/s ÷ raw MB/s), which stays meaningful on a machine whose load
// drifts between separate benchmarks. The docs/performance.md budget is ≥ 0.5.
// file/raw is the same ratio for a plain os.WriteFile + os.ReadFile of the
// bytes (no hash, no fsync, no rename): the ceiling of any file-based store
// on the machine at hand.
func BenchmarkStoreRatio1MiB(b *testing.B) {
	for _, sync := range []bool{true, false} {
		name := "sync"
		if !sync {
			name = "nosync"
		}
		b.Run(name, func(b *testing.B) {
			s := newStore(b)
			s.SetSync(sync)
			data := benchBytes()
			b.SetBytes(int64(len(data)))
			var raw, st, plain time.Duration
			dir := b.TempDir()
			for i := 0; b.Loop(); i++ {
				binary.LittleEndian.PutUint64(data, uint64(i))
				t0 := time.Now()
				_ = hashid.Sum(data)
				t1 := time.Now()
				id, err := s.Put(data)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Get(id); err != nil {
					b.Fatal(err)
				}
				t2 := time.Now()
				p := filepath.Join(dir, strconv.Itoa(i))
				if err := os.WriteFile(p, data, 0o444); err != nil {
					b.Fatal(err)
				}
				if _, err := os.ReadFile(p); err != nil {
					b.Fatal(err)
				}
				raw += t1.Sub(t0)
				st += t2.Sub(t1)
				plain += time.Since(t2)
			}
			b.ReportMetric(float64(raw)/float64(st), "store/raw")
			b.ReportMetric(float64(raw)/float64(plain), "file/raw")
		})
	}
}

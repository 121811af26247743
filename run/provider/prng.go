package provider

import (
	"encoding/binary"
	"math"

	"github.com/zeebo/blake3"
)

// rng is the mock's only source of variation: a stream of bytes read from
// the BLAKE3 extendable output of a domain tag, the seed and the canonical
// encoding of the request. It depends on nothing else (no clock, no global
// state, no Go-version-specific generator), so the same request and seed
// give the same answer on every machine and in every release.
type rng struct {
	d   *blake3.Digest
	buf [8]byte
}

// mockDomain separates the mock's hash inputs from every other use of
// BLAKE3 in agentlab. Changing it changes every mock answer.
const mockDomain = "agentlab/mock/v1\x00"

func newRNG(seed int64, material []byte) *rng {
	h := blake3.New()
	h.WriteString(mockDomain)
	var sb [8]byte
	binary.LittleEndian.PutUint64(sb[:], uint64(seed))
	h.Write(sb[:])
	h.Write(material)
	return &rng{d: h.Digest()}
}

func (r *rng) uint64() uint64 {
	// Digest.Read never fails: the output is unbounded.
	_, _ = r.d.Read(r.buf[:])
	return binary.LittleEndian.Uint64(r.buf[:])
}

// intn returns a value in [0, n); n <= 0 yields 0. Rejection sampling
// keeps the result unbiased.
func (r *rng) intn(n int) int {
	if n <= 1 {
		return 0
	}
	un := uint64(n)
	limit := math.MaxUint64 - math.MaxUint64%un
	for {
		v := r.uint64()
		if v < limit {
			return int(v % un)
		}
	}
}

// between returns a value in [lo, hi] (inclusive); lo > hi yields lo.
func (r *rng) between(lo, hi int) int {
	if hi <= lo {
		return lo
	}
	return lo + r.intn(hi-lo+1)
}

// float returns a value in [0, 1).
func (r *rng) float() float64 {
	return float64(r.uint64()>>11) / (1 << 53)
}

// chance returns true with probability p.
func (r *rng) chance(p float64) bool { return r.float() < p }

// pick returns one element of xs (the zero value when empty).
func pick[T any](r *rng, xs []T) T {
	var zero T
	if len(xs) == 0 {
		return zero
	}
	return xs[r.intn(len(xs))]
}

// hex returns n lowercase hex digits.
func (r *rng) hex(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[r.intn(16)]
	}
	return string(b)
}

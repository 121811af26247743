package eval

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentlab/agentlab/hashid"
)

// ParseShard reads "i/n" (1 ≤ i ≤ n ≤ 10000).
func ParseShard(s string) (*Shard, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || n > 10000 || i < 1 || i > n {
		return nil, fmt.Errorf("--shard %q must be i/n with 1 ≤ i ≤ n, as in --shard 2/4", s)
	}
	return &Shard{Index: i, Count: n}, nil
}

// String returns "i/n".
func (s *Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Has reports whether question id falls into this shard. The split is by
// the BLAKE3 hash of the id (its first 8 bytes, big-endian, modulo n), so
// it depends on nothing but the id and n: every CI job computes the same
// split, adding a question never moves the others, and the shards of a
// suite are disjoint and cover it.
func (s *Shard) Has(id string) bool {
	if s == nil || s.Count <= 1 {
		return true
	}
	return ShardOf(id, s.Count) == s.Index
}

// ShardOf returns the 1-based shard of question id among n.
func ShardOf(id string, n int) int {
	h := hashid.Sum([]byte(id))
	return int(binary.BigEndian.Uint64(h[:8])%uint64(n)) + 1
}

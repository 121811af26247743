package eval

import (
	"fmt"
	"testing"
)

func TestParseShard(t *testing.T) {
	for _, bad := range []string{"", "1", "0/2", "3/2", "a/b", "1/0", "-1/2", "1/20000"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
	s, err := ParseShard(" 2/4 ")
	if err != nil || s.Index != 2 || s.Count != 4 || s.String() != "2/4" {
		t.Errorf("ParseShard = %+v, %v", s, err)
	}
}

// TestShardPartition checks that the shards of a suite are disjoint, cover
// it, are reasonably even, and that the split is the same everywhere
// (fixed values of the hash).
func TestShardPartition(t *testing.T) {
	const n = 4
	count := make([]int, n+1)
	for i := 0; i < 1000; i++ {
		id := fmt.Sprintf("q%d", i)
		hits := 0
		for k := 1; k <= n; k++ {
			if (&Shard{k, n}).Has(id) {
				hits++
				count[k]++
			}
		}
		if hits != 1 {
			t.Fatalf("%s is in %d shards", id, hits)
		}
	}
	for k := 1; k <= n; k++ {
		if count[k] < 200 || count[k] > 300 {
			t.Errorf("shard %d has %d of 1000 questions", k, count[k])
		}
	}
	var nilShard *Shard
	if !nilShard.Has("x") || !(&Shard{1, 1}).Has("x") {
		t.Error("no sharding must keep every question")
	}
	// Pinned values: a change here moves questions between CI jobs.
	want := map[string][2]int{"total-revenue": {4, 2}, "q0": {1, 1}, "north-revenue": {4, 2}, "orders-per-week": {3, 1}}
	for id, w := range want {
		if got4, got2 := ShardOf(id, 4), ShardOf(id, 2); got4 != w[0] || got2 != w[1] {
			t.Errorf("ShardOf(%q) = %d of 4, %d of 2; want %v", id, got4, got2, w)
		}
	}
}

// FuzzParseShard checks that ParseShard never panics and accepts only
// parts inside their count.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"1/2", "0/0", " 3/4", "a/b", "1/", "/2", "99999999999999999999/1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			return
		}
		if sh.Index < 1 || sh.Index > sh.Count {
			t.Fatalf("ParseShard(%q) = %+v", s, sh)
		}
		if got := ShardOf("x", sh.Count); got < 1 || got > sh.Count {
			t.Fatalf("ShardOf out of range: %d of %d", got, sh.Count)
		}
	})
}

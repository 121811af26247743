package retrieve

import (
	"reflect"
	"testing"
)

// TestFeatureSet counts repeats, keeps first-seen order across a growth
// of the table, and empties on reset.
func TestFeatureSet(t *testing.T) {
	var s featureSet
	type kv struct {
		h uint64
		n int
	}
	collect := func() []kv {
		var out []kv
		s.each(func(h uint64, n int) { out = append(out, kv{h, n}) })
		return out
	}
	for round := range 3 {
		s.reset()
		var want []kv
		// 3000 features force growth past 1024 slots; hashes that share
		// low bits collide in the table and must stay apart.
		for i := range 3000 {
			h := uint64(i)<<20 | uint64(round)
			s.add(h)
			if i%3 == 0 {
				s.add(h)
				want = append(want, kv{h, 2})
			} else {
				want = append(want, kv{h, 1})
			}
		}
		if got := collect(); !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: %d features, first %v, want first %v", round, len(got), got[:3], want[:3])
		}
	}
	s.reset()
	if got := collect(); len(got) != 0 {
		t.Errorf("after reset: %v", got[:1])
	}
}

package retrieve

// featureSet counts the distinct features of one text by their 64-bit
// hashes, in an open-addressing table reused from text to text (a
// generation number empties it in O(1)). It keeps the features in the
// order first seen, which fixes the order of the vector's floating-point
// sums by the text alone. It replaces sorting each passage's hashes,
// which took half of the indexing time.
type featureSet struct {
	keys  []uint64
	count []int32
	gen   []uint32
	cur   uint32
	order []int32 // slots, first seen first
}

func (s *featureSet) reset() {
	s.cur++
	if s.cur == 0 { // wrapped: old generations could look current
		clear(s.gen)
		s.cur = 1
	}
	s.order = s.order[:0]
}

// add counts one occurrence of h.
func (s *featureSet) add(h uint64) {
	if 2*(len(s.order)+1) > len(s.keys) {
		s.grow()
	}
	mask := uint64(len(s.keys) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		if s.gen[i] != s.cur {
			s.gen[i], s.keys[i], s.count[i] = s.cur, h, 1
			s.order = append(s.order, int32(i))
			return
		}
		if s.keys[i] == h {
			s.count[i]++
			return
		}
	}
}

// grow doubles the table (at least 1024 slots) and re-inserts the current
// text's features in their order.
func (s *featureSet) grow() {
	n := max(1024, 2*len(s.keys))
	old := *s
	*s = featureSet{keys: make([]uint64, n), count: make([]int32, n), gen: make([]uint32, n), cur: 1,
		order: make([]int32, 0, cap(old.order))}
	for _, i := range old.order {
		h, c := old.keys[i], old.count[i]
		s.add(h)
		s.count[s.order[len(s.order)-1]] = c
	}
}

// each calls fn for every distinct feature, first seen first.
func (s *featureSet) each(fn func(h uint64, count int)) {
	for _, i := range s.order {
		fn(s.keys[i], int(s.count[i]))
	}
}

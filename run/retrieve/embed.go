package retrieve

import (
	"math"
	"unicode/utf8"
)

// The embedding is feature hashing: every token of a passage (a word, or a
// CJK bigram) and every character trigram of every segment (padded with a
// space at both ends, so " in", "inv", …, "ce ") adds its weight to one of
// Dims dimensions, chosen by the 64-bit FNV-1a hash of a kind byte and the
// feature's UTF-8 bytes, modulo Dims; the hash's top bit gives the sign
// (signed feature hashing: two unrelated features that collide cancel out
// on average instead of always adding up, which halves the similarity
// unrelated texts get by chance). The vector is then L2-normalised, and
// similarity is the cosine (a dot product of unit vectors), clamped to
// [0, 1] since a negative similarity carries no meaning here.
//
// Tokens carry weight 1 and trigrams 0.5: whole words should dominate, and
// trigrams add the partial matches (plural forms, compound words, a Chinese
// word sharing characters with the query) that BM25 cannot see.
const (
	tokenWeight   = 1.0
	trigramWeight = 0.5
	fnvOffset     = 14695981039346656037
	fnvPrime      = 1099511628211
)

// embedder accumulates the hashed features of one text.
type embedder struct {
	vec  []float64
	bbuf []byte
}

func newEmbedder(dims int) *embedder { return &embedder{vec: make([]float64, dims)} }

func (e *embedder) reset() { clear(e.vec) }

func (e *embedder) add(kind byte, b []byte, w float64) {
	h := uint64(fnvOffset)
	h ^= uint64(kind)
	h *= fnvPrime
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	if h>>63 != 0 {
		w = -w
	}
	e.vec[h%uint64(len(e.vec))] += w
}

// segment adds the features of one segment.
func (e *embedder) segment(seg []rune, cjk bool) {
	e.bbuf = segmentTokens(seg, cjk, e.bbuf, func(tok []byte) { e.add('w', tok, tokenWeight) })
	// Trigrams over " seg ": n+2 runes give n trigrams.
	n := len(seg)
	at := func(i int) rune { // rune i of the padded segment
		if i == 0 || i == n+1 {
			return ' '
		}
		return seg[i-1]
	}
	for i := 0; i+2 <= n+1; i++ {
		b := utf8.AppendRune(e.bbuf[:0], at(i))
		b = utf8.AppendRune(b, at(i+1))
		b = utf8.AppendRune(b, at(i+2))
		e.bbuf = b
		e.add('t', b, trigramWeight)
	}
}

// normalised returns the unit vector as float32 (the index stores
// float32 to halve its memory; cosines are summed in float64). A text
// without features gives the zero vector.
func (e *embedder) normalised(dst []float32) {
	var ss float64
	for _, v := range e.vec {
		ss += float64(v * v) // the conversion forbids fused multiply-add, which would change the bits across platforms
	}
	if ss == 0 {
		clear(dst)
		return
	}
	inv := 1 / math.Sqrt(ss)
	for i, v := range e.vec {
		dst[i] = float32(v * inv)
	}
}

package retrieve

import (
	"math"
	"unicode/utf8"
)

// The embedding is weighted feature hashing. The features of a text are
// its tokens as BM25 sees them (stemmed words, CJK bigrams) and the
// character n-grams of every segment (padded with a space at both ends, so
// " in", "inv", …, "ce " for n = 3), which catch what the tokens miss:
// other word forms the stemmer does not join, compounds, a Chinese word
// sharing characters with the query, a misspelling.
//
// Each feature gets the weight
//
//	kind weight × (1 + ln tf) × idf(feature)
//
// — sublinear in its count, so a word repeated ten times does not drown the
// rest, and scaled by its inverse document frequency over the passages of
// the index, so the features every passage has ("the", " th", "ing") count
// for little and an identifier's pieces for much. The weight is added to
// one of Dims dimensions, chosen by the 64-bit FNV-1a hash of the feature
// modulo Dims, with the sign of the hash's top bit (signed feature hashing:
// unrelated features that collide cancel out on average instead of always
// adding up). The vector is L2-normalised and similarity is the cosine,
// clamped to [0, 1] since a negative similarity carries no meaning here.
//
// Document frequencies are counted per hashed feature in a table of
// counters, a power of two of about four slots per character of the
// corpus and at most maxDFSlots (4 MiB), so two features rarely share a
// slot; when they do, both look a little more common than they are. A
// query feature that no passage has cannot raise any passage's similarity
// and is left out.
const (
	tokenWeight = 1.0
	ngramWeight = 0.5
	fnvOffset   = 14695981039346656037
	fnvPrime    = 1099511628211
	maxDFSlots  = 1 << 20
)

// ngramSizes are the character n-gram lengths taken from every segment.
var ngramSizes = [...]int{3, 4}

// embedder collects the hashed features of one text with their counts:
// tokens and n-grams apart, since they weigh differently.
type embedder struct {
	toks, grams featureSet
	bbuf        []byte
	st          *stemmer
	idfs        []float64 // idf by document frequency, filled as needed
	n           int       // passages the idfs are for
}

func newEmbedder(st *stemmer) *embedder { return &embedder{st: st} }

func (e *embedder) reset() {
	e.toks.reset()
	e.grams.reset()
}

func hashFeature(kind byte, b []byte) uint64 {
	h := uint64(fnvOffset)
	h ^= uint64(kind)
	h *= fnvPrime
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

// segment adds the features of one segment.
func (e *embedder) segment(seg []rune, cjk bool) {
	e.bbuf = segmentTokens(seg, cjk, e.st, e.bbuf, func(tok []byte) { e.toks.add(hashFeature('w', tok)) })
	// n-grams over " seg ": len(seg)+2 runes give len(seg)+3−n n-grams.
	padded := len(seg) + 2
	at := func(i int) rune {
		if i == 0 || i == padded-1 {
			return ' '
		}
		return seg[i-1]
	}
	for _, n := range ngramSizes {
		for i := 0; i+n <= padded; i++ {
			b := e.bbuf[:0]
			for j := i; j < i+n; j++ {
				b = utf8.AppendRune(b, at(j))
			}
			e.bbuf = b
			e.grams.add(hashFeature('0'+byte(n), b))
		}
	}
}

// countDF adds one to the document frequency of each distinct feature.
func (e *embedder) countDF(df []uint32) {
	count := func(h uint64, _ int) { df[h%uint64(len(df))]++ }
	e.toks.each(count)
	e.grams.each(count)
}

// idf is the inverse document frequency of a feature found in d of n
// passages, from a table (the same few small counts recur all the time).
func (e *embedder) idf(d uint32, n int) float64 {
	if e.n != n {
		e.idfs, e.n = e.idfs[:0], n
	}
	if int(d) >= len(e.idfs) {
		if d > 4096 {
			return idf(n, int(d))
		}
		for i := len(e.idfs); i <= int(d); i++ {
			e.idfs = append(e.idfs, idf(n, i))
		}
	}
	return e.idfs[d]
}

// vector writes the unit vector of the collected features into dst (the
// index stores float32 to halve its memory; cosines are summed in
// float64), given the document frequencies df over n passages; vec is
// scratch space of the same length. A text without features known to the
// index gives the zero vector.
func (e *embedder) vector(dst []float32, vec []float64, df []uint32, n int) {
	clear(vec)
	dims := uint64(len(vec))
	add := func(kindWeight float64) func(h uint64, tf int) {
		return func(h uint64, tf int) {
			d := df[h%uint64(len(df))]
			if d == 0 {
				return
			}
			w := float64(float64(kindWeight*sublinear(tf)) * e.idf(d, n)) // conversions forbid fused multiply-add
			if h>>63 != 0 {
				w = -w
			}
			vec[h%dims] += w
		}
	}
	e.toks.each(add(tokenWeight))
	e.grams.each(add(ngramWeight))
	var ss float64
	for _, v := range vec {
		ss += float64(v * v) // the conversion forbids fused multiply-add, which would change the bits across platforms
	}
	if ss == 0 {
		clear(dst)
		return
	}
	inv := 1 / math.Sqrt(ss)
	for i, v := range vec {
		dst[i] = float32(v * inv)
	}
}

// sublinear is 1 + ln tf, from a table for the small counts.
func sublinear(tf int) float64 {
	if tf < len(sublinearTable) {
		return sublinearTable[tf]
	}
	return 1 + math.Log(float64(tf))
}

var sublinearTable = func() []float64 {
	t := make([]float64, 64)
	for i := 1; i < len(t); i++ {
		t[i] = 1 + math.Log(float64(i))
	}
	return t
}()

// dfTableSize is the number of document-frequency slots for a corpus of
// the given size in bytes: a power of two, 1024 to maxDFSlots.
func dfTableSize(textBytes int) int {
	n := 1024
	for n < maxDFSlots && n < 4*textBytes {
		n *= 2
	}
	return n
}

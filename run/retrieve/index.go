package retrieve

import (
	"math"
	"sort"
)

// BM25 parameters (the usual defaults: k1 saturates term frequency, b
// normalises by passage length).
const (
	K1 = 1.2
	B  = 0.75
)

// DefaultDims is the embedding size: large enough that collisions between
// the few hundred features of a passage are rare, small enough that the
// index of a 5 MB corpus stays in tens of megabytes.
const DefaultDims = 512

// Options shape the index. Zero or negative fields take the defaults.
type Options struct {
	// MaxPassageChars caps a passage, in characters (runes).
	MaxPassageChars int
	// Dims is the number of embedding dimensions (capped at 65536).
	Dims int
}

func (o Options) withDefaults() Options {
	if o.MaxPassageChars <= 0 {
		o.MaxPassageChars = DefaultMaxPassageChars
	}
	if o.Dims <= 0 {
		o.Dims = DefaultDims
	}
	o.Dims = min(o.Dims, 1<<16)
	return o
}

type passage struct {
	doc        int
	start, end int
	length     int // tokens
}

type posting struct {
	passage int32
	tf      int32
}

// Index is an immutable search index over a set of documents. It is safe
// for concurrent use by several goroutines once Build has returned.
type Index struct {
	docs     []Doc
	passages []passage
	terms    map[string]int32 // token → term id
	postings [][]posting      // by term id, each in passage order
	vecs     []float32        // len(passages) × dims, unit vectors
	df       []uint32         // embedding features' document frequencies, by hash slot
	dims     int
	avgLen   float64
}

// Build indexes docs. The documents are taken in byte order of their
// paths (ties in input order), so the index, and every score it gives,
// does not depend on the order of docs.
func Build(docs []Doc, opt Options) *Index {
	opt = opt.withDefaults()
	ix := &Index{docs: append([]Doc(nil), docs...), terms: map[string]int32{}, dims: opt.Dims}
	sort.SliceStable(ix.docs, func(i, j int) bool { return ix.docs[i].Path < ix.docs[j].Path })

	// Term frequencies of the current passage: counts by term id, and the
	// ids seen, in first-seen order (reset after each passage).
	var counts []int32
	var seen []int32
	st := newStemmer()
	emb := newEmbedder(st)
	var runes []rune
	var bbuf []byte
	var totalLen int
	// Split first, so that the embedding matrix is allocated once at its
	// final size rather than copied as it grows; then count the embedding
	// features' document frequencies, which weigh every vector.
	spans := make([][]span, len(ix.docs))
	total, size := 0, 0
	for d, doc := range ix.docs {
		spans[d] = passages(doc.Text, opt.MaxPassageChars)
		total += len(spans[d])
		size += len(doc.Text)
	}
	ix.df = make([]uint32, dfTableSize(size))
	for d, doc := range ix.docs {
		for _, s := range spans[d] {
			emb.reset()
			runes = segments(doc.Text[s.start:s.end], runes, emb.segment)
			emb.countDF(ix.df)
		}
	}
	ix.passages = make([]passage, 0, total)
	ix.vecs = make([]float32, total*opt.Dims)
	vec := make([]float64, opt.Dims)
	for d, doc := range ix.docs {
		for _, s := range spans[d] {
			emb.reset()
			length := 0
			runes = segments(doc.Text[s.start:s.end], runes, func(seg []rune, cjk bool) {
				bbuf = segmentTokens(seg, cjk, st, bbuf, func(tok []byte) {
					id, ok := ix.terms[string(tok)]
					if !ok {
						id = int32(len(ix.postings))
						ix.terms[string(tok)] = id
						ix.postings = append(ix.postings, nil)
						counts = append(counts, 0)
					}
					if counts[id] == 0 {
						seen = append(seen, id)
					}
					counts[id]++
					length++
				})
				emb.segment(seg, cjk)
			})
			p := int32(len(ix.passages))
			for _, id := range seen {
				ix.postings[id] = append(ix.postings[id], posting{passage: p, tf: counts[id]})
				counts[id] = 0
			}
			seen = seen[:0]
			ix.passages = append(ix.passages, passage{doc: d, start: s.start, end: s.end, length: length})
			emb.vector(ix.vecs[int(p)*opt.Dims:int(p+1)*opt.Dims], vec, ix.df, total)
			totalLen += length
		}
	}
	if len(ix.passages) > 0 {
		ix.avgLen = float64(totalLen) / float64(len(ix.passages))
	}
	return ix
}

// Len is the number of passages in the index.
func (ix *Index) Len() int { return len(ix.passages) }

// idf is the BM25 inverse document frequency in the form that is never
// negative (as in Lucene): ln(1 + (N − n + 0.5) / (n + 0.5)), where N is
// the number of passages and n the number that contain the term.
func idf(total, n int) float64 {
	return math.Log(1 + (float64(total)-float64(n)+0.5)/(float64(n)+0.5))
}

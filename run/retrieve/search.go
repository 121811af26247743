package retrieve

import (
	"math"
	"slices"
	"sort"

	"github.com/kljensen/snowball/english"
)

// Search defaults, used when a caller passes an out-of-range value.
const (
	DefaultTopK  = 5
	DefaultAlpha = 0.5
)

// Hit is one ranked passage. Text is exactly the document's text from
// byte Start to byte End. BM25 is the raw BM25 score and Embed the raw
// cosine in [0, 1]; Score is the mixed score in [0, 1] that orders hits.
type Hit struct {
	Path       string
	Start, End int
	Text       string
	BM25       float64
	Embed      float64
	Score      float64
}

// Search ranks the passages for query and returns the best topK:
//
//	score = (1 − alpha) × bm25 / max_bm25 + alpha × cosine
//
// where max_bm25 is the highest BM25 score of any passage in the index for
// this query (0/0 is taken as 0, when no passage shares a token with the
// query), so both parts lie in [0, 1] and alpha = 0 is pure keyword (BM25),
// alpha = 1 pure vector (embedding), the usual hybrid-search convention.
// Only passages with a score above zero are returned: at alpha = 0 a
// passage must share a token with the query. Hits are
// ordered by score (descending), then path, then start offset, so equal
// scores never come out in a random order.
//
// topK ≤ 0 means DefaultTopK; alpha is clamped to [0, 1], and NaN means
// DefaultAlpha. Each distinct query token counts once.
func (ix *Index) Search(query string, topK int, alpha float64) []Hit {
	return ix.search(query, topK, alpha, nil)
}

// Vectors are embeddings made elsewhere (a remote embeddings model) that
// take the local embedding's place in a search: Query for the query,
// Passages one per passage in the order of Index.Passages. They need not
// be unit vectors. Cosines are rounded to six decimals, so that the
// last-bit jitter of a model server does not reorder hits or change the
// recorded scores between two runs.
type Vectors struct {
	Query    []float32
	Passages [][]float32
}

// SearchVectors is Search with v as the vector side. It panics if v does
// not hold one vector per passage.
func (ix *Index) SearchVectors(query string, topK int, alpha float64, v *Vectors) []Hit {
	if len(v.Passages) != len(ix.passages) {
		panic("retrieve: SearchVectors needs one vector per passage")
	}
	return ix.search(query, topK, alpha, v)
}

func (ix *Index) search(query string, topK int, alpha float64, ext *Vectors) []Hit {
	if topK <= 0 {
		topK = DefaultTopK
	}
	switch {
	case math.IsNaN(alpha):
		alpha = DefaultAlpha
	case alpha < 0:
		alpha = 0
	case alpha > 1:
		alpha = 1
	}
	n := len(ix.passages)
	if n == 0 {
		return nil
	}

	// BM25 over the postings of the distinct query tokens, in sorted order
	// so that the floating-point sums are always added in the same order.
	terms := queryTerms(query)
	bm25 := make([]float64, n)
	matched := make([]int32, n)
	for _, t := range terms {
		id, ok := ix.terms[t]
		if !ok {
			continue
		}
		ps := ix.postings[id]
		w := idf(n, len(ps))
		for _, p := range ps {
			tf := float64(p.tf)
			norm := K1 * (1 - B + B*float64(ix.passages[p.passage].length)/ix.avgLen)
			bm25[p.passage] += float64(w * float64(tf*(K1+1)/(tf+norm)))
			matched[p.passage]++
		}
	}
	// Coordination: a passage's BM25 is scaled by the share of the query's
	// terms it holds, so a passage holding the code and the subject of a
	// question beats one that repeats the code alone (or the subject alone)
	// several times.
	for p := range bm25 {
		bm25[p] = float64(bm25[p]*float64(matched[p])) / float64(len(terms))
	}
	maxBM25 := 0.0
	for _, s := range bm25 {
		maxBM25 = max(maxBM25, s)
	}

	// The query's unit vector is sparse: only its non-zero dimensions are
	// visited for each passage.
	var q []float32
	var nz []int
	if ext == nil {
		emb := newEmbedder(newStemmer())
		segments(query, nil, emb.segment)
		q = make([]float32, ix.dims)
		emb.vector(q, make([]float64, ix.dims), ix.df, n)
		for i, v := range q {
			if v != 0 {
				nz = append(nz, i)
			}
		}
	}

	type cand struct {
		p                  int
		bm25, embed, score float64
	}
	var cands []cand
	for p := range n {
		var cos float64
		if ext != nil {
			cos = roundedCosine(ext.Query, ext.Passages[p])
		} else {
			vec := ix.vecs[p*ix.dims : (p+1)*ix.dims]
			for _, i := range nz {
				cos += float64(float64(q[i]) * float64(vec[i]))
			}
		}
		cos = min(max(cos, 0), 1)
		norm := 0.0
		if maxBM25 > 0 {
			norm = bm25[p] / maxBM25
		}
		score := min(float64((1-alpha)*norm)+float64(alpha*cos), 1)
		if score > 0 {
			cands = append(cands, cand{p: p, bm25: bm25[p], embed: cos, score: score})
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if a.score != b.score {
			return a.score > b.score
		}
		pa, pb := ix.passages[a.p], ix.passages[b.p]
		if da, db := ix.docs[pa.doc].Path, ix.docs[pb.doc].Path; da != db {
			return da < db
		}
		if pa.start != pb.start {
			return pa.start < pb.start
		}
		return a.p < b.p // the same path twice in the input: index order
	})
	hits := make([]Hit, 0, min(topK, len(cands)))
	for _, c := range cands[:min(topK, len(cands))] {
		p := ix.passages[c.p]
		doc := ix.docs[p.doc]
		hits = append(hits, Hit{Path: doc.Path, Start: p.start, End: p.end, Text: doc.Text[p.start:p.end],
			BM25: c.bm25, Embed: c.embed, Score: c.score})
	}
	return hits
}

// Scoring names the scoring convention of this package: alpha weights the
// embedding (0 pure keyword, 1 pure vector), BM25 reads stemmed tokens.
// The compiler writes it into every retrieve node of a plan, so the plan
// says which convention its alpha follows; a plan without it was compiled
// when alpha weighted BM25, and the engine reads its alpha as 1 − alpha.
const Scoring = "2"

// queryTerms returns the distinct BM25 terms of a query, sorted (so that
// the floating-point sums are always added in the same order), without
// English stop words ("how", "do", "my", …) unless the query has nothing
// else. BM25's IDF makes such words cheap in a large folder, but in a
// folder of a few dozen notes each is rare enough to weigh like a subject
// word, and a how-to that repeats the question's wording would outrank the
// passage about the question's subject.
func queryTerms(query string) []string {
	terms := Tokens(query)
	slices.Sort(terms)
	terms = slices.Compact(terms)
	content := slices.DeleteFunc(slices.Clone(terms), english.IsStopWord)
	if len(content) > 0 {
		return content
	}
	return terms
}

// roundedCosine is the cosine of a and b rounded to six decimals; 0 when
// either is the zero vector or their lengths differ.
func roundedCosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += float64(x * y) // conversions forbid fused multiply-add
		na += float64(x * x)
		nb += float64(y * y)
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return math.Round(dot/math.Sqrt(na*nb)*1e6) / 1e6
}

// Passage is one passage of the index, as a remote embeddings model reads it.
type Passage struct {
	Path       string
	Start, End int
	Text       string
}

// Passages returns the index's passages in index order.
func (ix *Index) Passages() []Passage {
	out := make([]Passage, len(ix.passages))
	for i, p := range ix.passages {
		d := ix.docs[p.doc]
		out[i] = Passage{Path: d.Path, Start: p.start, End: p.end, Text: d.Text[p.start:p.end]}
	}
	return out
}

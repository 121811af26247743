package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/agentlab/agentlab/run/retrieve"
)

// RetrievalDir is the labelled retrieval corpus, relative to the
// repository root: corpus/ holds one short passage per file, queries.yml
// the queries and the passages (paths under corpus/) that answer them.
const RetrievalDir = "bench/testdata/retrieval"

// RetrievalDepth is how deep the ranking is read: recall is taken at 5, the
// reciprocal rank of the first relevant passage within the first 10.
const (
	RecallDepth = 5
	RankDepth   = 10
)

// RetrievalQuery is one labelled query.
type RetrievalQuery struct {
	Kind     string   `yaml:"kind"`
	Query    string   `yaml:"query"`
	Relevant []string `yaml:"relevant"`
}

// RetrievalSet is the corpus and its queries.
type RetrievalSet struct {
	Docs    []retrieve.Doc
	Queries []RetrievalQuery
}

// LoadRetrievalSet reads the corpus and the queries under dir and checks
// that every relevant path names a document, so a typo in the labels
// cannot pass for a retrieval failure.
func LoadRetrievalSet(dir string) (*RetrievalSet, error) {
	docs, err := retrieve.LoadDir(filepath.Join(dir, "corpus"), retrieve.LoadOptions{})
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(dir, "queries.yml"))
	if err != nil {
		return nil, err
	}
	var qs []RetrievalQuery
	if err := yaml.Unmarshal(b, &qs); err != nil {
		return nil, fmt.Errorf("queries.yml: %v", err)
	}
	paths := map[string]bool{}
	for _, d := range docs {
		paths[d.Path] = true
	}
	for i, q := range qs {
		if q.Query == "" || q.Kind == "" || len(q.Relevant) == 0 {
			return nil, fmt.Errorf("queries.yml: query %d needs kind, query and relevant", i+1)
		}
		for _, r := range q.Relevant {
			if !paths[r] {
				return nil, fmt.Errorf("queries.yml: query %q: no passage %s in the corpus", q.Query, r)
			}
		}
	}
	return &RetrievalSet{Docs: docs, Queries: qs}, nil
}

// RetrievalScore is the quality of one ranking over a set of queries:
// mean recall@5 (the share of a query's relevant passages among its first
// five hits) and mean reciprocal rank (1/rank of the first relevant hit,
// 0 when none is in the first ten).
type RetrievalScore struct {
	Queries   int
	RecallAt5 float64
	MRR       float64
}

// Searcher ranks passages for a query and returns their paths, best first.
type Searcher func(query string, k int) []string

// IndexSearcher searches ix at alpha.
func IndexSearcher(ix *retrieve.Index, alpha float64) Searcher {
	return func(query string, k int) []string {
		var out []string
		for _, h := range ix.Search(query, k, alpha) {
			out = append(out, h.Path)
		}
		return out
	}
}

// ScoreRetrieval measures search over qs, overall ("all") and by kind.
func ScoreRetrieval(search Searcher, qs []RetrievalQuery) map[string]RetrievalScore {
	type sums struct {
		n         int
		recall, r float64
	}
	acc := map[string]*sums{}
	add := func(kind string, recall, rr float64) {
		s := acc[kind]
		if s == nil {
			s = &sums{}
			acc[kind] = s
		}
		s.n++
		s.recall += recall
		s.r += rr
	}
	for _, q := range qs {
		got := search(q.Query, RankDepth)
		found := 0
		for _, p := range got[:min(RecallDepth, len(got))] {
			if slices.Contains(q.Relevant, p) {
				found++
			}
		}
		recall := float64(found) / float64(len(q.Relevant))
		rr := 0.0
		for i, p := range got {
			if slices.Contains(q.Relevant, p) {
				rr = 1 / float64(i+1)
				break
			}
		}
		add("all", recall, rr)
		add(q.Kind, recall, rr)
	}
	out := map[string]RetrievalScore{}
	for k, s := range acc {
		out[k] = RetrievalScore{Queries: s.n, RecallAt5: s.recall / float64(s.n), MRR: s.r / float64(s.n)}
	}
	return out
}

// RetrievalMode is one ranking measured: pure keyword, hybrid, pure vector.
type RetrievalMode struct {
	Name  string
	Alpha float64
}

// RetrievalModes are the rankings the quality table shows.
var RetrievalModes = []RetrievalMode{
	{"keyword (BM25)", 0}, {"hybrid", 0.3}, {"hybrid", 0.5}, {"hybrid", 0.7}, {"vector (embedding)", 1},
}

package engine

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/run/retrieve"
)

func init() {
	registerExecutor("retrieve", executor{leaf: true, run: execRetrieve})
}

// execRetrieve searches the documents under `from` (relative to the flow
// file) for the rendered `query`, mixing BM25 and the embedding by `alpha`
// (the local one, or `embed_model`'s), reorders the best
// `rerank_candidates` with `rerank_model` when set, and keeps the best
// `top_k` passages. Each hit is stored as a
// KnowledgeHit artifact and numbered K1, K2… in the ledger, at the node's
// turn in the commit order. The output is {hits: [{id, path, score}]};
// the full hits are stored as the node's hits_artifact.
func execRetrieve(ctx context.Context, t *task) (any, effects, error) {
	n := t.node
	from := n.Str("from")
	if from == "" {
		return nil, effects{}, fmt.Errorf("node %q: from: names no folder", t.id)
	}
	dir := from
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(t.r.cfg.BaseDir, dir)
	}
	query, err := render(n.Str("query"), t.sc.env())
	if err != nil {
		return nil, effects{}, fmt.Errorf("node %q: query: %v", t.id, err)
	}
	ix, err := t.r.retrieveIndex(dir)
	if err != nil {
		return nil, effects{}, fmt.Errorf("node %q: from %q: %v", t.id, from, err)
	}
	topK := retrieve.DefaultTopK
	if _, ok := n.Spec["top_k"]; ok {
		topK = n.Int("top_k")
	}
	alpha := retrieve.DefaultAlpha
	if _, ok := n.Spec["alpha"]; ok {
		alpha = n.Float("alpha")
		// A plan compiled before alpha was reversed carries no scoring
		// mark; its alpha weighted BM25, so it keeps its intended mix.
		if _, marked := n.Spec["scoring"]; !marked {
			alpha = 1 - alpha
		}
	}
	// What the ranking used goes into the node's record (sealed with the
	// run's events), so the hits can be accounted for.
	audit := map[string]any{"scoring": "1", "alpha": alpha} // "1": a plan from before the mark
	if s, ok := n.Spec["scoring"].(string); ok {
		audit["scoring"] = s
	}
	rerankModel := n.Str("rerank_model")
	want := topK
	if rerankModel != "" {
		want = DefaultRerankCandidates
		if _, ok := n.Spec["rerank_candidates"]; ok {
			want = n.Int("rerank_candidates")
		}
		want = max(want, topK)
	}
	var found []retrieve.Hit
	if model := n.Str("embed_model"); model != "" {
		vecs, rec, err := t.remoteVectors(ctx, dir, ix, model, query)
		if err != nil {
			return nil, effects{}, fmt.Errorf("node %q: %v", t.id, err)
		}
		for k, v := range rec {
			audit[k] = v
		}
		found = ix.SearchVectors(query, want, alpha, vecs)
	} else {
		found = ix.Search(query, want, alpha)
	}
	var reranked []float64
	if rerankModel != "" {
		var rec map[string]any
		var err error
		if found, reranked, rec, err = t.rerank(ctx, rerankModel, query, found, topK); err != nil {
			return nil, effects{}, fmt.Errorf("node %q: %v", t.id, err)
		}
		for k, v := range rec {
			audit[k] = v
		}
	}
	hits := make([]evidence.KnowledgeHit, len(found))
	for i, h := range found {
		hits[i] = h.Knowledge("", t.id)
		if reranked != nil {
			hits[i].Rerank = &reranked[i]
		}
	}
	if err := t.recordHits(ctx, hits); err != nil {
		return nil, effects{}, err
	}
	list := make([]any, len(hits))
	for i, h := range hits {
		list[i] = map[string]any{"id": h.ID, "path": h.Path, "score": h.Score}
	}
	art, err := storeJSON(t, hits)
	if err != nil {
		return nil, effects{}, err
	}
	return map[string]any{"hits": list, "query": query}, effects{record: map[string]any{"hits_artifact": art, "retrieval": audit}}, nil
}

// retrieveIndex loads and indexes a folder once per run.
func (r *runner) retrieveIndex(dir string) (*retrieve.Index, error) {
	key := "retrieve\x00" + dir
	if ix, ok := r.cache.Load(key); ok {
		return ix.(*retrieve.Index), nil
	}
	docs, err := retrieve.LoadDir(dir, retrieve.LoadOptions{})
	if err != nil {
		return nil, err
	}
	ix := retrieve.Build(docs, retrieve.Options{})
	r.cache.Store(key, ix)
	return ix, nil
}

package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/run/retrieve"
)

// RetrievalModels are the optional model endpoints of the retrieve node:
// an embeddings model that replaces the local embedding, and a rerank
// model that reorders the best candidates (provider.RetrievalModels).
type RetrievalModels interface {
	Embed(ctx context.Context, model string, texts []string) ([][]float32, error)
	Rerank(ctx context.Context, model, query string, docs []string) ([]float64, error)
	EmbeddingsEndpoint() string
	RerankEndpoint() string
}

// DefaultRerankCandidates is how many of the best hits a rerank model
// reorders when the node does not say.
const DefaultRerankCandidates = 20

// remoteVectors embeds the folder's passages (once per folder and model
// in a run) and the query with model. The record says what was used: the
// model, the endpoint, the dimensions and a BLAKE3 hash of every vector in
// index order (passages, then the query), so an audit can tell two runs
// that saw the same embeddings from two that did not.
func (t *task) remoteVectors(ctx context.Context, dir string, ix *retrieve.Index, model, query string) (*retrieve.Vectors, map[string]any, error) {
	m := t.r.cfg.Retrieval
	if m == nil {
		return nil, nil, fmt.Errorf("embed_model %q: this run has no embeddings endpoint", model)
	}
	key := "retrieve-embed\x00" + dir + "\x00" + model
	var passages [][]float32
	if v, ok := t.r.cache.Load(key); ok {
		passages = v.([][]float32)
	} else {
		ps := ix.Passages()
		texts := make([]string, len(ps))
		for i, p := range ps {
			texts[i] = p.Text
		}
		var err error
		if passages, err = m.Embed(ctx, model, texts); err != nil {
			return nil, nil, err
		}
		t.r.cache.Store(key, passages)
	}
	q, err := m.Embed(ctx, model, []string{query})
	if err != nil {
		return nil, nil, err
	}
	if len(passages) > 0 && len(q[0]) != len(passages[0]) {
		return nil, nil, fmt.Errorf("embeddings (%s): wrong dimensions: the query has %d, the passages %d", model, len(q[0]), len(passages[0]))
	}
	h := hashid.New()
	var b [4]byte
	for _, v := range append(passages[:len(passages):len(passages)], q[0]) {
		for _, x := range v {
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(x))
			h.Write(b[:])
		}
	}
	rec := map[string]any{
		"embed_model": model, "embeddings_endpoint": m.EmbeddingsEndpoint(),
		"dims": len(q[0]), "vectors": len(passages) + 1, "vectors_b3": hashid.FromHasher(h).String(),
	}
	return &retrieve.Vectors{Query: q[0], Passages: passages}, rec, nil
}

// rerank reorders hits by model's relevance scores, best first (a hit the
// model left unscored goes last; ties keep the search's order), and keeps
// topK. Scores are rounded to six decimals, as remote cosines are, so a
// server's last-bit jitter changes neither the order nor the record.
func (t *task) rerank(ctx context.Context, model, query string, hits []retrieve.Hit, topK int) ([]retrieve.Hit, []float64, map[string]any, error) {
	m := t.r.cfg.Retrieval
	if m == nil {
		return nil, nil, nil, fmt.Errorf("rerank_model %q: this run has no rerank endpoint", model)
	}
	if len(hits) == 0 {
		return hits, nil, map[string]any{"rerank_model": model, "rerank_endpoint": m.RerankEndpoint(), "candidates": 0}, nil
	}
	texts := make([]string, len(hits))
	for i, h := range hits {
		texts[i] = h.Text
	}
	raw, err := m.Rerank(ctx, model, query, texts)
	if err != nil {
		return nil, nil, nil, err
	}
	order := make([]int, len(hits))
	scores := make([]float64, len(hits))
	for i, s := range raw {
		order[i] = i
		scores[i] = math.Round(s*1e6) / 1e6
	}
	sort.SliceStable(order, func(a, b int) bool {
		sa, sb := scores[order[a]], scores[order[b]]
		if math.IsNaN(sb) {
			return !math.IsNaN(sa)
		}
		return sa > sb
	})
	out := make([]retrieve.Hit, 0, min(topK, len(hits)))
	kept := make([]float64, 0, cap(out))
	for _, i := range order[:min(topK, len(order))] {
		if math.IsNaN(scores[i]) {
			break // the model did not score it: not a hit it vouched for
		}
		out = append(out, hits[i])
		kept = append(kept, scores[i])
	}
	cands := make([]any, len(hits))
	for i, h := range hits {
		var s any
		if !math.IsNaN(scores[i]) {
			s = scores[i]
		}
		cands[i] = map[string]any{"path": h.Path, "start": h.Start, "end": h.End, "score": s}
	}
	rec := map[string]any{"rerank_model": model, "rerank_endpoint": m.RerankEndpoint(), "candidates": len(hits), "rerank_scores": cands}
	return out, kept, rec, nil
}

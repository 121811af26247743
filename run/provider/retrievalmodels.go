package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
)

// RetrievalModels calls the two optional model endpoints of the retrieve
// node on the server the openai provider is configured for (the same
// OPENAI_API_KEY, OPENAI_BASE_URL and [providers.openai] table, so a key
// goes only where its configuration sends it, and with the same timeouts
// and retries):
//
//   - POST {base}/embeddings, the OpenAI embeddings protocol:
//     {"model", "input": [texts], "encoding_format": "float"} →
//     {"data": [{"index", "embedding": [floats]}]};
//   - POST {base}/rerank, the rerank protocol of Jina, Cohere v2, vLLM,
//     llama.cpp and TEI-style gateways: {"model", "query", "documents":
//     [texts], "top_n"} → {"results": [{"index", "relevance_score"}]}.
//
// Nothing is resolved until the first call, so a run whose retrieve nodes
// use neither never needs a key or a config file.
type RetrievalModels struct {
	opts Options
	once sync.Once
	emb  *remote
	rr   *remote
	err  error
}

// NewRetrievalModels returns the client for a flow in opts.BaseDir.
func NewRetrievalModels(opts Options) *RetrievalModels { return &RetrievalModels{opts: opts} }

// EmbedBatch is how many texts one embeddings request carries.
const EmbedBatch = 64

func (m *RetrievalModels) init() error {
	m.once.Do(func() {
		opts := m.opts
		if err := applyConfigFiles(&opts); err != nil {
			m.err = err
			return
		}
		key := setting("OPENAI_API_KEY", opts.Remote.OpenAIKey, "")
		base := setting("OPENAI_BASE_URL", opts.Remote.OpenAIBaseURL, DefaultOpenAIBaseURL)
		base = strings.TrimSuffix(strings.TrimRight(base, "/"), "/chat/completions")
		if m.emb, m.err = newRemote("openai", "OPENAI_API_KEY", "OPENAI_BASE_URL", key, base, "/embeddings", opts, nil); m.err != nil {
			return
		}
		m.rr, m.err = newRemote("openai", "OPENAI_API_KEY", "OPENAI_BASE_URL", key, base, "/rerank", opts, nil)
	})
	return m.err
}

// Ready reports what would make every call fail (no API key for a remote
// server, a base URL that is not http(s), an unreadable config file), so
// that a run can refuse to start instead of failing at its retrieve node.
func (m *RetrievalModels) Ready() error { return m.init() }

// EmbeddingsEndpoint and RerankEndpoint name the URLs the calls go to
// (passwords redacted), for the run's record; "" before a call or when
// the configuration is unusable.
func (m *RetrievalModels) EmbeddingsEndpoint() string {
	if m.init() != nil {
		return ""
	}
	return m.emb.endpoint.Redacted()
}

func (m *RetrievalModels) RerankEndpoint() string {
	if m.init() != nil {
		return ""
	}
	return m.rr.endpoint.Redacted()
}

// Embed returns one vector per text, in order, all of the same length.
// An answer that lacks a text, repeats one, changes dimension between
// texts or holds a non-finite number is an error, never a silent zero.
func (m *RetrievalModels) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	if err := m.init(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	dims := -1
	for lo := 0; lo < len(texts); lo += EmbedBatch {
		batch := texts[lo:min(lo+EmbedBatch, len(texts))]
		body, err := marshalBody(map[string]any{"model": model, "input": batch, "encoding_format": "float"})
		if err != nil {
			return nil, err
		}
		var resp struct {
			Data []struct {
				Index     *int      `json:"index"`
				Embedding []float64 `json:"embedding"`
			} `json:"data"`
		}
		if err := m.emb.postJSON(ctx, body, &resp); err != nil {
			return nil, fmt.Errorf("embeddings (%s): %w", model, err)
		}
		if len(resp.Data) != len(batch) {
			return nil, fmt.Errorf("embeddings (%s): the server returned %d vectors for %d texts", model, len(resp.Data), len(batch))
		}
		for i, d := range resp.Data {
			at := i
			if d.Index != nil {
				at = *d.Index
			}
			if at < 0 || at >= len(batch) || out[lo+at] != nil {
				return nil, fmt.Errorf("embeddings (%s): the server returned index %d twice or out of range", model, at)
			}
			if len(d.Embedding) == 0 {
				return nil, fmt.Errorf("embeddings (%s): the server returned an empty vector for text %d", model, lo+at)
			}
			if dims == -1 {
				dims = len(d.Embedding)
			}
			if len(d.Embedding) != dims {
				return nil, fmt.Errorf("embeddings (%s): wrong dimensions: text %d has %d, earlier texts %d", model, lo+at, len(d.Embedding), dims)
			}
			v := make([]float32, dims)
			for j, x := range d.Embedding {
				if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > math.MaxFloat32 {
					return nil, fmt.Errorf("embeddings (%s): text %d has a non-finite value", model, lo+at)
				}
				v[j] = float32(x)
			}
			out[lo+at] = v
		}
	}
	return out, nil
}

// Rerank returns one relevance score per document, in order. Documents
// the server leaves out of its answer get no score (NaN), so a caller
// can rank them last; a score that is not a finite number is an error.
func (m *RetrievalModels) Rerank(ctx context.Context, model, query string, docs []string) ([]float64, error) {
	if err := m.init(); err != nil {
		return nil, err
	}
	body, err := marshalBody(map[string]any{"model": model, "query": query, "documents": docs, "top_n": len(docs)})
	if err != nil {
		return nil, err
	}
	var resp struct {
		Results []struct {
			Index *int     `json:"index"`
			Score *float64 `json:"relevance_score"`
		} `json:"results"`
	}
	if err := m.rr.postJSON(ctx, body, &resp); err != nil {
		return nil, fmt.Errorf("rerank (%s): %w", model, err)
	}
	scores := make([]float64, len(docs))
	for i := range scores {
		scores[i] = math.NaN()
	}
	for _, r := range resp.Results {
		if r.Index == nil || r.Score == nil {
			return nil, fmt.Errorf("rerank (%s): a result without index or relevance_score", model)
		}
		if *r.Index < 0 || *r.Index >= len(docs) || !math.IsNaN(scores[*r.Index]) {
			return nil, fmt.Errorf("rerank (%s): the server returned index %d twice or out of range", model, *r.Index)
		}
		if math.IsNaN(*r.Score) || math.IsInf(*r.Score, 0) {
			return nil, fmt.Errorf("rerank (%s): a score that is not a finite number", model)
		}
		scores[*r.Index] = *r.Score
	}
	return scores, nil
}

// postJSON sends body and decodes the JSON answer into out, retrying as
// the provider's calls do: rate limits, server errors, timeouts and broken
// connections, up to MaxAttempts, honouring Retry-After.
func (r *remote) postJSON(ctx context.Context, body []byte, out any) error {
	for attempt := 1; ; attempt++ {
		err := r.postOnce(ctx, body, out)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var ae *attemptError
		if !errors.As(err, &ae) {
			return errors.New(r.redact(err.Error()))
		}
		if !ae.retryable || attempt >= r.opts.MaxAttempts {
			msg := ae.msg
			if ae.retryable && attempt > 1 {
				msg += fmt.Sprintf(" (gave up after %d attempts)", attempt)
			}
			return errors.New(r.redact(msg))
		}
		wait := backoff(attempt, r.opts.BaseDelay, r.opts.MaxDelay)
		if ae.hasAfter {
			wait = min(ae.retryAfter, r.opts.MaxRetryAfter)
		}
		if r.opts.OnRetry != nil {
			r.opts.OnRetry(attempt, wait, ae.msg)
		}
		if err := r.sleep(ctx, wait); err != nil {
			return err
		}
	}
}

func (r *remote) postOnce(ctx context.Context, body []byte, out any) error {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	tctx, cancelT := context.WithTimeoutCause(actx, r.opts.Timeout, errRequestTimeout)
	defer cancelT()
	hresp, err := r.send(ctx, tctx, cancel, body, "application/json", func(h http.Header) {
		if r.key != "" {
			h.Set("Authorization", "Bearer "+r.key)
		}
	})
	if err != nil {
		return err
	}
	defer hresp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(hresp.Body, maxWholeBody+1))
	if err != nil {
		return r.readError(ctx, tctx, err)
	}
	if len(raw) > maxWholeBody {
		return failf(false, "the server's answer is larger than %d bytes", maxWholeBody)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return failf(false, "the server's answer is not the JSON expected from %s: %s", r.endpoint.Redacted(), excerpt(string(raw)))
	}
	return nil
}

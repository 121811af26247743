package engine

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run/provider"
	"github.com/agentlab/agentlab/run/retrieve"
)

// conceptServer is a model server speaking the OpenAI embeddings and the
// rerank protocols whose "model" knows meaning the local embedding cannot:
// each vector has one dimension per concept, lit by any of its words, so
// "charged twice" lands on the passage about a duplicate charge. The
// rerank model prefers passages naming the invoice. dims, when not zero,
// makes the server answer queries with that many dimensions (a server
// whose model changed between two calls).
func conceptServer(t *testing.T, dims *int) *httptest.Server {
	concepts := [][]string{
		{"charged twice", "duplicate", "double"},
		{"parcel", "package", "delivery", "shipping"},
		{"money back", "refund"},
		{"password", "sign in", "login"},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/embeddings":
			var data []any
			inputs := body["input"].([]any)
			for i, in := range inputs {
				s := strings.ToLower(in.(string))
				v := make([]float64, len(concepts))
				if *dims != 0 && len(inputs) == 1 {
					v = make([]float64, *dims)
				}
				for c, words := range concepts {
					for _, wd := range words {
						if c < len(v) && strings.Contains(s, wd) {
							v[c]++
						}
					}
				}
				data = append(data, map[string]any{"index": i, "embedding": v})
			}
			json.NewEncoder(w).Encode(map[string]any{"data": data})
		case "/v1/rerank":
			var res []any
			for i, d := range body["documents"].([]any) {
				score := 0.1 + 0.000000001*float64(i) // jitter below the rounding
				if strings.Contains(d.(string), "INV-") {
					score = 0.9
				}
				res = append(res, map[string]any{"index": i, "relevance_score": score})
			}
			json.NewEncoder(w).Encode(map[string]any{"results": res})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func retrievalFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"dup.md":      "A duplicate charge happens when a payment is retried after a timeout; the second authorisation is released within seven days.\n",
		"shipping.md": "Standard shipping takes three to five working days.\n",
		"refund.md":   "Refunds are paid to the original payment method within five days.\n",
		"inv.md":      "Invoice INV-7781 was refunded in full.\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestRetrieveWithRemoteModels runs retrieve nodes against a local model
// server: the embeddings model ranks by its own vectors, the rerank model
// reorders the candidates (its sub-rounding jitter changes nothing), the node's record
// says what was used, and two runs give byte-identical hits.
func TestRetrieveWithRemoteModels(t *testing.T) {
	for _, v := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL"} {
		t.Setenv(v, "")
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dims := 0
	srv := conceptServer(t, &dims)
	dir := retrievalFolder(t)
	withModels := func(c *Config) {
		c.BaseDir = dir
		c.Retrieval = provider.NewRetrievalModels(provider.Options{BaseDir: dir, Remote: provider.RemoteOptions{
			OpenAIBaseURL: srv.URL + "/v1", Timeout: 5 * time.Second, MaxAttempts: 1}})
	}
	search := func(spec ...any) (*Result, map[string]any, []evidence.KnowledgeHit) {
		t.Helper()
		args := append([]any{"from", ".", "query", "I was charged twice", "scoring", retrieve.Scoring}, spec...)
		p := mkPlan([]plan.Node{nd("search", "retrieve", args...)}, nil)
		res, rec := run(t, p, nil, withModels)
		if res.Status != StatusSucceeded {
			return res, nil, nil
		}
		d := finishedData(t, rec, "search")
		return res, d, artifact[[]evidence.KnowledgeHit](t, rec, d["hits_artifact"].(string))
	}

	_, d, hits := search("alpha", 1.0, "embed_model", "concepts-1")
	if len(hits) == 0 || hits[0].Path != "dup.md" || hits[0].Embed != 1 {
		t.Fatalf("remote embeddings: %+v", hits)
	}
	audit := d["retrieval"].(map[string]any)
	if audit["embed_model"] != "concepts-1" || audit["embeddings_endpoint"] != srv.URL+"/v1/embeddings" ||
		audit["dims"] != float64(4) || audit["vectors"] != float64(5) || !strings.HasPrefix(audit["vectors_b3"].(string), "b3:") ||
		audit["scoring"] != retrieve.Scoring || audit["alpha"] != float64(1) {
		t.Errorf("record %v", audit)
	}
	_, _, again := search("alpha", 1.0, "embed_model", "concepts-1")
	a, _ := json.Marshal(hits)
	b, _ := json.Marshal(again)
	if string(a) != string(b) {
		t.Errorf("two runs differ:\n%s\n%s", a, b)
	}

	// Rerank: the invoice passage comes first whatever the search said.
	_, d, hits = search("query", "refund", "top_k", 2, "rerank_model", "rr-1", "rerank_candidates", 4)
	if len(hits) != 2 || hits[0].Path != "inv.md" || hits[0].Rerank == nil || *hits[0].Rerank != 0.9 || *hits[1].Rerank != 0.1 {
		t.Fatalf("reranked hits %+v", hits)
	}
	audit = d["retrieval"].(map[string]any)
	if audit["rerank_model"] != "rr-1" || audit["candidates"] != float64(4) || len(audit["rerank_scores"].([]any)) != 4 {
		t.Errorf("rerank record %v", audit)
	}

	// A server whose query vectors have other dimensions than its passage
	// vectors fails the node, saying so.
	dims = 7
	res, _, _ := search("alpha", 1.0, "embed_model", "concepts-2")
	if res.Status != StatusFailed || !strings.Contains(fmt.Sprint(res.Err), "wrong dimensions") {
		t.Errorf("wrong dimensions: %s %v", res.Status, res.Err)
	}
}

// TestRetrieveModelNamedWithoutEndpoint: a plan naming an embeddings model
// run where no endpoint is wired fails the node instead of silently
// falling back to the local embedding.
func TestRetrieveModelNamedWithoutEndpoint(t *testing.T) {
	dir := retrievalFolder(t)
	p := mkPlan([]plan.Node{nd("search", "retrieve", "from", ".", "query", "refund", "embed_model", "e")}, nil)
	res, _ := run(t, p, nil, func(c *Config) { c.BaseDir = dir })
	if res.Status != StatusFailed || !strings.Contains(fmt.Sprint(res.Err), "no embeddings endpoint") {
		t.Errorf("%s %v", res.Status, res.Err)
	}
}

package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// embeddingsServer speaks the OpenAI embeddings and the rerank protocol;
// misbehave, when set, answers instead for the request it is given.
func embeddingsServer(t *testing.T, misbehave func(w http.ResponseWriter, body map[string]any) bool) (*httptest.Server, *[]map[string]any) {
	t.Helper()
	var seen []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
			return
		}
		body["_path"] = r.URL.Path
		body["_auth"] = r.Header.Get("Authorization")
		seen = append(seen, body)
		if misbehave != nil && misbehave(w, body) {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/embeddings":
			var data []map[string]any
			for i, in := range body["input"].([]any) {
				s := in.(string)
				data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": []float64{float64(len(s)), 1, float64(strings.Count(s, "a"))}})
			}
			json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": body["model"]})
		case "/v1/rerank":
			var res []map[string]any
			for i, d := range body["documents"].([]any) {
				res = append(res, map[string]any{"index": i, "relevance_score": 1 / float64(1+len(d.(string)))})
			}
			json.NewEncoder(w).Encode(map[string]any{"results": res})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &seen
}

func testModels(srv *httptest.Server, key string) *RetrievalModels {
	ro := fastRemote()
	ro.OpenAIKey, ro.OpenAIBaseURL = key, srv.URL+"/v1"
	return NewRetrievalModels(Options{Remote: ro})
}

func TestRetrievalModelsSpeakTheProtocols(t *testing.T) {
	clearRemoteEnv(t)
	srv, seen := embeddingsServer(t, nil)
	m := testModels(srv, testKey)
	texts := make([]string, EmbedBatch+3) // two requests
	for i := range texts {
		texts[i] = strings.Repeat("a", i)
	}
	vecs, err := m.Embed(context.Background(), "text-embedding-3-small", texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(texts) || vecs[66][0] != 66 || vecs[65][2] != 65 {
		t.Fatalf("vectors out of order: %v … %v", vecs[0], vecs[len(vecs)-1])
	}
	if len(*seen) != 2 {
		t.Fatalf("%d requests, want 2 batches", len(*seen))
	}
	first := (*seen)[0]
	if first["_path"] != "/v1/embeddings" || first["model"] != "text-embedding-3-small" || first["encoding_format"] != "float" ||
		first["_auth"] != "Bearer "+testKey || len(first["input"].([]any)) != EmbedBatch {
		t.Errorf("embeddings request %v", first)
	}
	scores, err := m.Rerank(context.Background(), "rerank-v1", "q", []string{"aaaa", "a"})
	if err != nil {
		t.Fatal(err)
	}
	if scores[0] != 0.2 || scores[1] != 0.5 {
		t.Errorf("rerank scores %v", scores)
	}
	last := (*seen)[len(*seen)-1]
	if last["_path"] != "/v1/rerank" || last["query"] != "q" || last["top_n"] != float64(2) || last["model"] != "rerank-v1" {
		t.Errorf("rerank request %v", last)
	}
	if got := m.EmbeddingsEndpoint(); got != srv.URL+"/v1/embeddings" {
		t.Errorf("endpoint %q", got)
	}
}

// TestRetrievalModelsMisbehavingServer: a server that answers wrongly in
// each way a real one can is reported, never turned into silent zeros.
func TestRetrievalModelsMisbehavingServer(t *testing.T) {
	clearRemoteEnv(t)
	tests := []struct {
		name   string
		rerank bool
		serve  func(w http.ResponseWriter, body map[string]any) bool
		want   string
	}{
		{"wrong dimensions", false, func(w http.ResponseWriter, body map[string]any) bool {
			fmt.Fprint(w, `{"data":[{"index":0,"embedding":[1,2,3]},{"index":1,"embedding":[1,2]}]}`)
			return true
		}, "wrong dimensions: text 1 has 2, earlier texts 3"},
		{"too few vectors", false, func(w http.ResponseWriter, body map[string]any) bool {
			fmt.Fprint(w, `{"data":[{"index":0,"embedding":[1,2,3]}]}`)
			return true
		}, "returned 1 vectors for 2 texts"},
		{"index twice", false, func(w http.ResponseWriter, body map[string]any) bool {
			fmt.Fprint(w, `{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[2]}]}`)
			return true
		}, "index 0 twice or out of range"},
		{"empty vector", false, func(w http.ResponseWriter, body map[string]any) bool {
			fmt.Fprint(w, `{"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[]}]}`)
			return true
		}, "empty vector"},
		{"not JSON", false, func(w http.ResponseWriter, body map[string]any) bool {
			fmt.Fprint(w, `<html>gateway</html>`)
			return true
		}, "not the JSON expected"},
		{"unknown model", false, func(w http.ResponseWriter, body map[string]any) bool {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":{"message":"model not found"}}`)
			return true
		}, "HTTP 404 Not Found: model not found; check the model name"},
		{"key echoed in a 401", false, func(w http.ResponseWriter, body map[string]any) bool {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"error":{"message":"bad key %s"}}`, testKey)
			return true
		}, "bad key [REDACTED]; check OPENAI_API_KEY"},
		{"rerank index out of range", true, func(w http.ResponseWriter, body map[string]any) bool {
			fmt.Fprint(w, `{"results":[{"index":5,"relevance_score":0.9}]}`)
			return true
		}, "index 5 twice or out of range"},
		{"rerank without score", true, func(w http.ResponseWriter, body map[string]any) bool {
			fmt.Fprint(w, `{"results":[{"index":0}]}`)
			return true
		}, "without index or relevance_score"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := embeddingsServer(t, tt.serve)
			m := testModels(srv, testKey)
			var err error
			if tt.rerank {
				_, err = m.Rerank(context.Background(), "r", "q", []string{"a", "b"})
			} else {
				_, err = m.Embed(context.Background(), "e", []string{"a", "b"})
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), testKey) {
				t.Errorf("the key leaked: %v", err)
			}
		})
	}
}

// TestRetrievalModelsRetriesAndTimeouts: a rate limit is waited out; a
// server that never answers fails after the header timeout, every attempt.
func TestRetrievalModelsRetriesAndTimeouts(t *testing.T) {
	clearRemoteEnv(t)
	var calls atomic.Int32
	srv, _ := embeddingsServer(t, func(w http.ResponseWriter, body map[string]any) bool {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"error":{"message":"slow down"}}`)
			return true
		}
		return false
	})
	m := testModels(srv, testKey)
	if _, err := m.Embed(context.Background(), "e", []string{"a"}); err != nil || calls.Load() != 2 {
		t.Fatalf("after a 429: err %v, %d calls", err, calls.Load())
	}

	block := make(chan struct{})
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-block }))
	t.Cleanup(silent.Close)
	t.Cleanup(func() { close(block) }) // runs first: the handlers return, then the server closes
	ro := fastRemote()
	ro.OpenAIBaseURL, ro.HeaderTimeout, ro.MaxAttempts = silent.URL+"/v1", 50*time.Millisecond, 2
	start := time.Now()
	_, err := NewRetrievalModels(Options{Remote: ro}).Rerank(context.Background(), "r", "q", []string{"a"})
	if err == nil || !strings.Contains(err.Error(), "header timeout") || !strings.Contains(err.Error(), "gave up after 2 attempts") {
		t.Errorf("silent server: %v", err)
	}
	if time.Since(start) > 4*time.Second {
		t.Errorf("silent server took %v", time.Since(start))
	}
}

// TestRetrievalModelsNeedAKey: a remote base URL without a key is refused
// before any request, naming the variable; a server on this machine needs none.
func TestRetrievalModelsNeedAKey(t *testing.T) {
	clearRemoteEnv(t)
	ro := fastRemote()
	ro.OpenAIKey, ro.OpenAIBaseURL = "", "https://embeddings.example/v1"
	_, err := NewRetrievalModels(Options{Remote: ro}).Embed(context.Background(), "e", []string{"a"})
	if err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Errorf("err = %v", err)
	}
	srv, seen := embeddingsServer(t, nil)
	if _, err := testModels(srv, "").Embed(context.Background(), "e", []string{"a"}); err != nil {
		t.Fatal(err)
	}
	if auth := (*seen)[0]["_auth"]; auth != "" {
		t.Errorf("Authorization %q sent without a key", auth)
	}
}

// FuzzRetrievalModelsAnswer serves any body as the embeddings and the
// rerank answer: nothing panics, and a call either fails or returns one
// finite vector per text, all of one length, and one score per document.
func FuzzRetrievalModelsAnswer(f *testing.F) {
	f.Add(`{"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[3,4]}]}`)
	f.Add(`{"data":[{"index":1,"embedding":[1]},{"index":0,"embedding":[2,3]}]}`)
	f.Add(`{"results":[{"index":1,"relevance_score":0.5},{"index":0,"relevance_score":-2}]}`)
	f.Add(`{"data":[{"embedding":[1e39]},{"embedding":[1]}]}`)
	f.Add(`null`)
	for _, v := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL"} {
		f.Setenv(v, "")
	}
	f.Setenv("XDG_CONFIG_HOME", f.TempDir())
	var body atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body.Load().(string))
	}))
	defer srv.Close()
	ro := fastRemote()
	ro.OpenAIBaseURL, ro.MaxAttempts = srv.URL+"/v1", 1
	m := NewRetrievalModels(Options{Remote: ro})
	f.Fuzz(func(t *testing.T, answer string) {
		body.Store(answer)
		if vecs, err := m.Embed(context.Background(), "e", []string{"a", "b"}); err == nil {
			if len(vecs) != 2 || len(vecs[0]) == 0 || len(vecs[0]) != len(vecs[1]) {
				t.Fatalf("vectors %v from %q", vecs, answer)
			}
		}
		if scores, err := m.Rerank(context.Background(), "r", "q", []string{"a", "b"}); err == nil && len(scores) != 2 {
			t.Fatalf("scores %v from %q", scores, answer)
		}
	})
}

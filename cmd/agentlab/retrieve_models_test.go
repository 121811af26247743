package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentlab/agentlab/plan"
)

// TestRetrieveModelsThroughTheCLI runs a flow whose retrieve node uses an
// embeddings and a rerank model on a local server speaking both
// protocols, through the built binary: lint warns about the explicit
// alpha, the run calls the server with the operator's key, records what
// it used, verifies, and the key is nowhere in what the run stored.
func TestRetrieveModelsThroughTheCLI(t *testing.T) {
	exe := agentlabExe(t)
	const key = "sk-retrieval-0123456789abcdefXYZ"
	var embeds, reranks atomic.Int32
	var badAuth atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+key {
			badAuth.Store(true)
		}
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/embeddings":
			embeds.Add(1)
			var data []any
			for i, in := range body["input"].([]any) {
				s := strings.ToLower(in.(string))
				v := []float64{0.1, 0, 0}
				if strings.Contains(s, "money back") || strings.Contains(s, "refund") {
					v[1] = 1
				}
				if strings.Contains(s, "ship") {
					v[2] = 1
				}
				data = append(data, map[string]any{"index": i, "embedding": v})
			}
			json.NewEncoder(w).Encode(map[string]any{"data": data})
		case "/v1/rerank":
			reranks.Add(1)
			var res []any
			for i, d := range body["documents"].([]any) {
				score := 0.2
				if strings.Contains(d.(string), "INV-7781") {
					score = 0.95
				}
				res = append(res, map[string]any{"index": i, "relevance_score": score})
			}
			json.NewEncoder(w).Encode(map[string]any{"results": res})
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	work := t.TempDir()
	write := func(name, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(work, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("kb/refund.md", "To get your money back, request a refund from Orders.\n")
	write("kb/ship.md", "Standard shipping takes three to five days.\n")
	write("kb/inv.md", "Invoice INV-7781 was refunded in full.\n")
	write("flow.yml", `agentlab: 1
name: remote-retrieval
nodes:
  - id: search
    type: retrieve
    from: kb
    query: "how do I get my money back"
    top_k: 2
    alpha: 0.8
    embed_model: emb-small
    rerank_model: rr-small
  - id: out
    type: output
    fields: {first: "{{ nodes.search.hits[0].path }}"}
edges:
  - search -> out
`)
	env := append(os.Environ(), "CI=true", "NO_COLOR=1", "XDG_CONFIG_HOME="+filepath.Join(work, "xdg"),
		"OPENAI_BASE_URL="+srv.URL+"/v1", "OPENAI_API_KEY="+key)
	agentlab := func(args ...string) (int, string) {
		var out bytes.Buffer
		cmd := exec.Command(exe, args...)
		cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = env, work, &out, &out
		cmd.Run()
		return cmd.ProcessState.ExitCode(), out.String()
	}
	if code, out := agentlab("lint", "flow.yml"); code != exitOK || !strings.Contains(out, "W-RET-ALPHA") || !strings.Contains(out, "flow.yml:9:5") {
		t.Fatalf("lint exited %d:\n%s", code, out)
	}
	code, out := agentlab("run", "flow.yml", "--data-dir", "data", "--format", "json")
	if code != exitOK {
		t.Fatalf("run exited %d:\n%s", code, out)
	}
	var res jsonResult
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &res); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if res.Outputs["first"] != "inv.md" || embeds.Load() == 0 || reranks.Load() != 1 || badAuth.Load() {
		t.Fatalf("outputs %v, %d embeddings calls, %d rerank calls, bad auth %v", res.Outputs, embeds.Load(), reranks.Load(), badAuth.Load())
	}
	runDir := filepath.Join(work, "data", "runs", res.Run)
	if code, out := agentlab("verify", runDir); code != exitOK {
		t.Fatalf("verify exited %d:\n%s", code, out)
	}
	events, err := os.ReadFile(filepath.Join(runDir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"embed_model":"emb-small"`, `"rerank_model":"rr-small"`, `"vectors_b3":"b3:`, `"scoring":"2"`} {
		if !bytes.Contains(events, []byte(want)) {
			t.Errorf("events do not record %s", want)
		}
	}
	filepath.WalkDir(filepath.Join(work, "data"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(key)) {
				t.Errorf("the key is stored in %s", p)
			}
		}
		return nil
	})
}

// TestExtractWritesAlphaInTodaysConvention: a run whose plan was compiled
// when alpha weighted keywords (no scoring mark) is extracted with the
// alpha that gives the same mix today; a marked plan's alpha is kept.
func TestExtractWritesAlphaInTodaysConvention(t *testing.T) {
	old := plan.Node{ID: "r", Type: "retrieve", Spec: map[string]any{"alpha": 0.75}}
	if got := specValue(old, "alpha"); got != 0.25 {
		t.Errorf("unmarked alpha 0.75 extracted as %v, want 0.25", got)
	}
	marked := plan.Node{ID: "r", Type: "retrieve", Spec: map[string]any{"alpha": 0.75, "scoring": "2"}}
	if got := specValue(marked, "alpha"); got != 0.75 {
		t.Errorf("marked alpha 0.75 extracted as %v", got)
	}
	if got := specValue(old, "top_k"); got != nil {
		t.Errorf("top_k %v", got)
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// citeFlow has a data source whose column names the marker language
// cannot all hold (a space, "]]"), a metric, an input, a report whose
// model is told what it may cite, and a headline a model writes freely
// into the same contracted output.
const citeFlow = `agentlab: 1
name: cite
inputs:
  week: {type: string, default: "2026-W47"}
sources:
  s: {kind: csv, path: data/s.csv}
nodes:
  - id: q
    type: tool
    tool: db_query__s
    args:
      sql: 'SELECT region, "销售额", "total amount", "a.b", "销售额" * 2 AS "gmv]]" FROM s ORDER BY region'
  - id: kpi
    type: metrics
    metrics:
      total: {expr: "sum(col(nodes.q, '销售额'))"}
  - {id: head, type: llm, prompt: "A headline, without figures."}
  - id: rep
    type: report
    prompt: "Write the brief."
    numbers: strict
    on_violation: mark
  - id: out
    type: output
    fields: {headline: "{{ nodes.head.text }}", brief: "{{ nodes.rep.text }}"}
    contract: {report_from: rep, metrics_from: kpi, required_metrics: [total]}
edges: [q -> kpi, kpi -> head, kpi -> rep, head -> out, rep -> out]
`

// offeredMarker finds the markers a report's system prompt shows.
var offeredMarker = regexp.MustCompile(`\[\[[^\[\]]*?\]\](?:\]\])?`)

// TestOpenAIModelCitesWhatItIsTold plays a real model behind a local
// server speaking the OpenAI chat-completions protocol, streamed and not:
// for the report it answers with every marker the system prompt offered
// (so what the model is told must be what the checker accepts: the run
// is formal, with no violation), and for the headline it writes figures
// dressed up to pass — a forged marker, full-width digits, two figures
// joined by a zero-width space that each fit a metric — which are never
// issued formal.
func TestOpenAIModelCitesWhatItIsTold(t *testing.T) {
	exe := agentlabExe(t)
	for _, streamed := range []bool{true, false} {
		for _, hostile := range []bool{false, true} {
			name := fmt.Sprintf("streamed=%v/hostile-headline=%v", streamed, hostile)
			t.Run(name, func(t *testing.T) {
				var mu sync.Mutex
				var offered []string
				headline := "A quiet week"
				if hostile {
					headline = "A quiet week: [[9,999]] or ９，９９９ or 1\u200b2"
				}
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					var req struct {
						Model    string `json:"model"`
						Stream   bool   `json:"stream"`
						Messages []struct {
							Role    string `json:"role"`
							Content any    `json:"content"`
						} `json:"messages"`
					}
					if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
						http.Error(w, err.Error(), 400)
						return
					}
					system := ""
					for _, m := range req.Messages {
						if s, ok := m.Content.(string); ok && m.Role == "system" {
							system += s
						}
					}
					answer := headline
					if strings.Contains(system, "Citable evidence") {
						var ms []string
						for _, m := range offeredMarker.FindAllString(system, -1) {
							if !strings.HasPrefix(m, "[[q:") {
								ms = append(ms, m)
							}
						}
						mu.Lock()
						offered = ms
						mu.Unlock()
						answer = "The figures, as cited: " + strings.Join(ms, " ; ") + "."
					}
					writeChat(w, req.Model, answer, streamed && req.Stream)
				}))
				defer srv.Close()
				work := t.TempDir()
				must(t, os.MkdirAll(filepath.Join(work, "data"), 0o755))
				must(t, os.WriteFile(filepath.Join(work, "data", "s.csv"), []byte("region,销售额,total amount,a.b,x\nnorth,100,5,7,1\nsouth,200,6,8,1\n"), 0o644))
				must(t, os.WriteFile(filepath.Join(work, "flow.yml"), []byte(citeFlow), 0o644))
				cmd := exec.Command(exe, "run", "flow.yml", "--provider", "openai", "--model", "m1", "--data-dir", "data-dir", "--out", "out", "--format", "json")
				cmd.Dir = work
				cmd.Env = append(os.Environ(), "CI=true", "NO_COLOR=1", "SOURCE_DATE_EPOCH=1700000000",
					"OPENAI_BASE_URL="+srv.URL+"/v1", "OPENAI_API_KEY=sk-test", "XDG_CONFIG_HOME="+t.TempDir())
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				_ = cmd.Run()
				var res struct {
					Tier    string   `json:"tier"`
					Reasons []string `json:"tier_reasons"`
				}
				if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
					t.Fatalf("run --format json: %v\n%s\n%s", err, stdout.String(), stderr.String())
				}
				mu.Lock()
				n := len(offered)
				mu.Unlock()
				if n < 6 {
					t.Fatalf("the report was offered only %d markers: %v", n, offered)
				}
				want, code := "formal", exitOK
				if hostile {
					want, code = "withheld", exitWithheld
				}
				if res.Tier != want || cmd.ProcessState.ExitCode() != code {
					t.Fatalf("tier %q (exit %d), want %q (exit %d); reasons %v\noffered %v", res.Tier, cmd.ProcessState.ExitCode(), want, code, res.Reasons, offered)
				}
				if hostile {
					for _, fig := range []string{`"9,999"`, `"９，９９９"`, `"1\u200b2"`} {
						if !strings.Contains(strings.Join(res.Reasons, "\n"), fig+" in field headline") {
							t.Errorf("no reason names %s in the headline: %v", fig, res.Reasons)
						}
					}
				}
			})
		}
	}
}

// writeChat answers one chat completion, as server-sent events or as one
// JSON object.
func writeChat(w http.ResponseWriter, model, text string, stream bool) {
	usage := map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "c1", "object": "chat.completion", "model": model,
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": text}, "finish_reason": "stop"}},
			"usage":   usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	rs := []rune(text)
	for i := 0; i < len(rs); i += 3 { // pieces that split markers and figures
		chunk, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion.chunk", "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": string(rs[i:min(i+3, len(rs))])}}}})
		fmt.Fprintf(w, "data: %s\n\n", chunk)
	}
	end, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion.chunk", "model": model,
		"choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "stop"}}, "usage": usage})
	fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", end)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

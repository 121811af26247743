package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync/atomic"
	"testing"
)

// secretEnv are provider-key-like variables with recognisable values; none
// of the values may reach anything agentlab writes.
var secretEnv = map[string]string{
	"OPENAI_API_KEY":       "sk-proj-LEAKCHECKopenai0123456789",
	"ANTHROPIC_API_KEY":    "sk-ant-LEAKCHECKanthropic0123456789",
	"AGENTLAB_API_KEY":     "LEAKCHECKagentlab0123456789",
	"ACME_WAREHOUSE_TOKEN": "LEAKCHECKcustom0123456789",
}

// TestSecretsNeverWritten runs an example flow (compile, run, runs show,
// runs events, report) with provider keys and a custom secret in the
// environment, then searches every file of the data dir, the out dir, the
// plan, report.html and bundle.html (and, in the bundle, every embedded
// artifact once decoded), and everything printed, for the secret values.
func TestSecretsNeverWritten(t *testing.T) {
	exe := agentlabExe(t)
	work := t.TempDir()
	data := filepath.Join(work, "data")
	out := filepath.Join(work, "out")
	env := append(os.Environ(), "CI=true", "NO_COLOR=1", "SOURCE_DATE_EPOCH=1700000000")
	for k, v := range secretEnv {
		env = append(env, k+"="+v)
	}
	// The search itself must work: a planted value is found.
	if got := leaks([]byte("token=" + secretEnv["ACME_WAREHOUSE_TOKEN"][:20] + "…")); len(got) != 0 {
		t.Fatalf("a prefix too short to be distinctive matched: %v", got)
	}
	if got := leaks([]byte(`{"h":"Bearer ` + secretEnv["OPENAI_API_KEY"] + `"}`)); len(got) != 1 {
		t.Fatalf("a planted key was not found: %v", got)
	}
	var printed bytes.Buffer
	agentlab := func(args ...string) int {
		cmd := exec.Command(exe, args...)
		cmd.Env, cmd.Dir = env, work
		cmd.Stdout, cmd.Stderr = &printed, &printed
		cmd.Run()
		return cmd.ProcessState.ExitCode()
	}
	flow, err := filepath.Abs("testdata/kill/flow.yml")
	if err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(work, "plan.json")
	if code := agentlab("compile", flow, "-o", plan); code != exitOK {
		t.Fatalf("compile exited %d:\n%s", code, printed.String())
	}
	if code := agentlab("run", flow, "--data-dir", data, "--out", out, "--input", "topic=keys in the environment", "--format", "json"); code != exitOK {
		t.Fatalf("run exited %d:\n%s", code, printed.String())
	}
	// The same flow on the OpenAI-compatible provider, against a local
	// server that checks the key arrives (so it really is used) and
	// answers with a fixed completion.
	var authed atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+secretEnv["OPENAI_API_KEY"] {
			http.Error(w, `{"error":{"message":"bad key"}}`, http.StatusUnauthorized)
			return
		}
		authed.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"model\":\"fake-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"A fixed answer.\"}}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":3}}\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()
	env = append(env, "OPENAI_BASE_URL="+srv.URL+"/v1")
	data2 := filepath.Join(work, "data-openai")
	if code := agentlab("run", flow, "--data-dir", data2, "--out", out+"-openai", "--provider", "openai", "--model", "fake-1", "--format", "json"); code != exitOK {
		t.Fatalf("run --provider openai exited %d:\n%s", code, printed.String())
	}
	if authed.Load() == 0 {
		t.Fatalf("the provider never sent the key")
	}
	id := findRun(t, data)
	agentlab("runs", "show", id, "--data-dir", data, "--format", "json")
	agentlab("runs", "events", id, "--data-dir", data, "--format", "json")
	reportDir := filepath.Join(work, "report")
	if code := agentlab("report", id, "--data-dir", data, "-o", reportDir); code != exitOK {
		t.Fatalf("report exited %d:\n%s", code, printed.String())
	}
	files := 0
	pages := map[string]int{} // report.html and bundle.html searched
	for _, root := range []string{data, out, plan, data2, out + "-openai", reportDir} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			files++
			leakCheck(t, p, b)
			if name := filepath.Base(p); name == "report.html" || name == "bundle.html" {
				pages[name]++
				embedded := decodedBlocks(t, p, b)
				for i, e := range embedded {
					leakCheck(t, fmt.Sprintf("%s (embedded data block %d, decoded)", p, i), e)
				}
			}
			return nil
		})
	}
	leakCheck(t, "the output of the commands", printed.Bytes())
	if files < 5 {
		t.Fatalf("only %d files searched", files)
	}
	// Two runs and one report command: each wrote both pages.
	if pages["report.html"] < 3 || pages["bundle.html"] < 3 {
		t.Fatalf("searched %d report.html and %d bundle.html files, want 3 of each", pages["report.html"], pages["bundle.html"])
	}
	t.Logf("RESULT secrets files=%d values=%d provider-calls=%d leaked=0", files, len(secretEnv), authed.Load())
}

func leakCheck(t *testing.T, where string, b []byte) {
	t.Helper()
	for _, k := range leaks(b) {
		t.Errorf("%s contains the value of %s", where, k)
	}
}

// leaks names the variables whose value appears in b, whole or by its
// distinctive middle (a partial copy counts).
func leaks(b []byte) []string {
	var out []string
	for k, v := range secretEnv {
		if bytes.Contains(b, []byte(v)) || bytes.Contains(b, []byte(v[len(v)-16:])) {
			out = append(out, k)
		}
	}
	return out
}

// jsonBlock is a data block of report.html or bundle.html.
var jsonBlock = regexp.MustCompile(`(?s)<script type="application/json"[^>]*>(.*?)</script>`)

// decodedBlocks returns every string inside the JSON data blocks of an
// HTML page, JSON-unescaped, with base64 artifacts ("b64") decoded, so
// that a secret cannot hide in an escaped or encoded form.
func decodedBlocks(t *testing.T, where string, page []byte) [][]byte {
	t.Helper()
	var out [][]byte
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch x := v.(type) {
		case string:
			out = append(out, []byte(x))
			if key == "b64" {
				b, err := base64.StdEncoding.DecodeString(x)
				if err != nil {
					t.Errorf("%s: a b64 artifact does not decode: %v", where, err)
				}
				out = append(out, b)
			}
			if key == "text" {
				var inner any
				if json.Unmarshal([]byte(x), &inner) == nil {
					walk("", inner)
				}
			}
		case map[string]any:
			for k, e := range x {
				walk(k, e)
			}
		case []any:
			for _, e := range x {
				walk(key, e)
			}
		}
	}
	blocks := jsonBlock.FindAllSubmatch(page, -1)
	if len(blocks) == 0 {
		t.Errorf("%s has no data block", where)
	}
	for _, m := range blocks {
		var v any
		if err := json.Unmarshal(m[1], &v); err != nil {
			t.Errorf("%s: a data block is not JSON: %v", where, err)
			continue
		}
		walk("", v)
	}
	return out
}

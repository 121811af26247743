package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
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
// runs events, and report when it exists) with provider keys and a custom
// secret in the environment, then searches every file of the data dir, the
// out dir, the plan and the bundle, and everything printed, for the
// secret values.
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
	if agentlab("report", id, "--data-dir", data, "-o", out) != exitOK {
		t.Logf("no report/bundle written (report command unavailable)")
	}
	files := 0
	for _, root := range []string{data, out, plan, data2, out + "-openai"} {
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
			return nil
		})
	}
	leakCheck(t, "the output of the commands", printed.Bytes())
	if files < 5 {
		t.Fatalf("only %d files searched", files)
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

package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// echoed are the secrets of TestEchoingServersNeverGetSecretsRecorded: a
// custom tool's bearer token (with characters JSON and URLs escape), a
// Basic credential (base64 of user:password) and a provider key.
var echoed = map[string]string{
	"ECHO_TOKEN":     `tok-"quoted"<&>\slash/+=4242`,
	"ECHO_BASIC":     base64.StdEncoding.EncodeToString([]byte("alice:s3cret-Passw0rd")),
	"OPENAI_API_KEY": "sk-proj-ECHOKEY0123456789abcdef",
}

// echoedForms are the forms of the secrets the servers send back.
func echoedForms() map[string]string {
	out := map[string]string{}
	for k, v := range echoed {
		js, _ := json.Marshal(v)
		out[k] = v
		out[k+" json-escaped"] = string(js[1 : len(js)-1])
		out[k+" url-encoded"] = url.QueryEscape(v)
		out[k+" base64"] = base64.StdEncoding.EncodeToString([]byte(v))
	}
	out["ECHO_BASIC decoded"] = "alice:s3cret-Passw0rd"
	out["ECHO_BASIC password"] = "s3cret-Passw0rd"
	return out
}

// echoAll writes every form of each value to w, as a hostile server would.
func echoAll(values ...string) string {
	var b strings.Builder
	for _, v := range values {
		js, _ := json.Marshal(v)
		fmt.Fprintf(&b, "as-is %s | json %s | url %s | b64 %s | ", v, js, url.QueryEscape(v), base64.StdEncoding.EncodeToString([]byte(v)))
		if d, err := base64.StdEncoding.DecodeString(v); err == nil {
			user, pass, _ := strings.Cut(string(d), ":")
			fmt.Fprintf(&b, "decoded %s user %s password %s | ", d, user, pass)
		}
	}
	return b.String()
}

// TestEchoingServersNeverGetSecretsRecorded runs a flow whose custom HTTP
// tool (from a tool node and from an agent) sends secret headers to a
// server that echoes them back in every encoding, in the body of a 200
// and of a 500, and whose model (the OpenAI-compatible provider against a
// local server) answers with its own API key in every encoding. Nothing
// agentlab stores or prints may hold any form of any of the values: the
// data dir, the out dir, report.html and bundle.html (with every embedded
// block decoded), and the output of run, runs show, runs events, report.
func TestEchoingServersNeverGetSecretsRecorded(t *testing.T) {
	exe := agentlabExe(t)
	var echoes atomic.Int32
	tool := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		echoes.Add(1)
		auth := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		basic := strings.TrimPrefix(r.Header.Get("X-Basic"), "Basic ")
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/fail" {
			w.WriteHeader(http.StatusInternalServerError)
		}
		b, _ := json.Marshal(map[string]any{"headers": r.Header, "echo": echoAll(auth, basic)})
		w.Write(b)
	}))
	defer tool.Close()
	var modelCalls atomic.Int32
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		modelCalls.Add(1)
		key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		w.Header().Set("Content-Type", "text/event-stream")
		chunk, _ := json.Marshal(map[string]any{"model": "fake-1", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": "your key: " + echoAll(key)}}}})
		fmt.Fprintf(w, "data: %s\n\n", chunk)
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":3}}\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer model.Close()
	work := t.TempDir()
	writeFile := func(name, s string) {
		if err := os.WriteFile(filepath.Join(work, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	host := tool.Listener.Addr().String()
	writeFile("agentlab.toml", "[http_fetch]\nallow_nets = [\"127.0.0.1/32\"]\n\n[[permissions.rules]]\ntool = \"echo_*\"\ndecision = \"allow\"\n\n"+
		// The operator binds each secret to the echoing host; the test is
		// about what that host sends back.
		"[secrets.ECHO_TOKEN]\nhosts = [\""+host+"\"]\n\n[secrets.ECHO_BASIC]\nhosts = [\""+host+"\"]\n")
	tools := ""
	for _, p := range []string{"ok", "fail"} {
		tools += fmt.Sprintf(`  echo_%s:
    description: Echo the request.
    args: {type: object}
    http:
      url: "%s/%s"
      headers: {Authorization: "Bearer {{ secret.ECHO_TOKEN }}", X-Basic: "Basic {{ secret.ECHO_BASIC }}"}
`, p, tool.URL, p)
	}
	writeFile("flow.yml", `agentlab: 1
name: echo
tools:
`+tools+`nodes:
  - id: call
    type: tool
    tool: echo_ok
  - id: fail
    type: tool
    tool: echo_fail
  - id: ask
    type: agent
    prompt: "Call the echo tools."
    tools: [echo_ok, echo_fail]
  - id: say
    type: llm
    prompt: "Say something."
  - id: out
    type: output
    fields: {call: "{{ nodes.call.body }}", fail: "{{ nodes.fail.body }}", answer: "{{ nodes.ask.text }}", said: "{{ nodes.say.text }}"}
edges:
  - call -> fail
  - fail -> ask
  - ask -> say
  - say -> out
`)
	writeFile("calls.yml", `nodes:
  ask:
    - tool_calls: [{id: c1, name: echo_ok, args: {}}, {id: c2, name: echo_fail, args: {}}]
    - done
  say:
    - hello
`)
	env := append(os.Environ(), "CI=true", "NO_COLOR=1", "SOURCE_DATE_EPOCH=1700000000", "OPENAI_BASE_URL="+model.URL+"/v1")
	for k, v := range echoed {
		env = append(env, k+"="+v)
	}
	var printed bytes.Buffer
	agentlab := func(args ...string) int {
		cmd := exec.Command(exe, args...)
		cmd.Env, cmd.Dir = env, work
		cmd.Stdout, cmd.Stderr = &printed, &printed
		cmd.Run()
		return cmd.ProcessState.ExitCode()
	}
	data := filepath.Join(work, "data")
	if code := agentlab("run", "flow.yml", "--data-dir", data, "--provider", "script:calls.yml", "--format", "json"); code != exitOK {
		t.Fatalf("run exited %d:\n%s", code, printed.String())
	}
	// The model echoes its key: a second flow of llm nodes only.
	writeFile("llm.yml", "agentlab: 1\nname: llm-echo\nnodes:\n  - id: say\n    type: llm\n    prompt: \"Say something.\"\n  - id: out\n    type: output\n    fields: {said: \"{{ nodes.say.text }}\"}\nedges:\n  - say -> out\n")
	if code := agentlab("run", "llm.yml", "--data-dir", data, "--provider", "openai", "--model", "fake-1"); code != exitOK {
		t.Fatalf("run --provider openai exited %d:\n%s", code, printed.String())
	}
	if echoes.Load() < 4 || modelCalls.Load() == 0 {
		t.Fatalf("the servers were not called: tool %d, model %d", echoes.Load(), modelCalls.Load())
	}
	if !strings.Contains(printed.String(), "[REDACTED]") {
		t.Fatalf("nothing printed was redacted; did the echoes reach the outputs?\n%s", printed.String())
	}
	ents, _ := os.ReadDir(filepath.Join(data, "runs"))
	for _, e := range ents {
		agentlab("runs", "show", e.Name(), "--data-dir", data, "--format", "json")
		agentlab("runs", "show", e.Name(), "--data-dir", data)
		agentlab("runs", "events", e.Name(), "--data-dir", data, "--format", "json")
		agentlab("report", e.Name(), "--data-dir", data, "-o", filepath.Join(work, "report-"+e.Name()))
	}
	forms := echoedForms()
	check := func(where string, b []byte) {
		t.Helper()
		for name, f := range forms {
			if bytes.Contains(b, []byte(f)) {
				t.Errorf("%s holds %s", where, name)
			}
		}
	}
	files, pages := 0, 0
	filepath.WalkDir(work, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Dir(p) == work {
			return err // the flow files themselves name no values
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files++
		check(p, b)
		if name := filepath.Base(p); name == "report.html" || name == "bundle.html" {
			pages++
			for i, e := range decodedBlocks(t, p, b) {
				check(fmt.Sprintf("%s (embedded data block %d, decoded)", p, i), e)
			}
		}
		return nil
	})
	check("the output of the commands", printed.Bytes())
	if pages < 8 {
		t.Fatalf("searched %d pages, want 8 (two runs and two report commands)", pages)
	}
	t.Logf("RESULT secrets-echoed files=%d values=%d forms=%d tool-echoes=%d model-echoes=%d leaked=0", files, len(echoed), len(forms), echoes.Load(), modelCalls.Load())
}

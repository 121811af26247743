package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/run/redact"
)

// echoSecrets are the values a hostile server echoes back: a token with
// characters JSON and URLs escape, and a Basic credential (base64 of
// user:password) whose decoded parts must not come back either.
var echoSecrets = map[string]string{
	"ECHO_TOKEN": `tok-"quoted"<&>\slash/+=42`,
	"ECHO_BASIC": base64.StdEncoding.EncodeToString([]byte("alice:s3cret-Passw0rd")),
}

// echoForms are the forms of the secrets the server sends back; none may
// be in a tool result.
func echoForms() []string {
	tok := echoSecrets["ECHO_TOKEN"]
	js, _ := json.Marshal(tok)
	return []string{
		tok, string(js[1 : len(js)-1]), url.QueryEscape(tok), url.PathEscape(tok),
		base64.StdEncoding.EncodeToString([]byte(tok)), base64.RawURLEncoding.EncodeToString([]byte(tok)),
		echoSecrets["ECHO_BASIC"], "alice:s3cret-Passw0rd", "s3cret-Passw0rd",
	}
}

// echoServer answers every request with its Authorization and X-Basic
// headers in every form: as-is, in JSON (escaped), URL-encoded, base64
// and, for the Basic credential, decoded.
func echoServer(t *testing.T) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		basic := strings.TrimPrefix(r.Header.Get("X-Basic"), "Basic ")
		dec, _ := base64.StdEncoding.DecodeString(basic)
		user, pass, _ := strings.Cut(string(dec), ":")
		body := map[string]any{
			"headers": r.Header, "token": auth, "basic": basic, "decoded": string(dec), "password": pass, "user": user,
			"query": url.QueryEscape(auth), "path": url.PathEscape(auth),
			"b64": base64.StdEncoding.EncodeToString([]byte(auth)), "b64url": base64.RawURLEncoding.EncodeToString([]byte(auth)),
		}
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/fail" {
			w.WriteHeader(http.StatusInternalServerError)
		}
		b, _ := json.Marshal(body)
		fmt.Fprintf(w, "%s\nraw: %s %s", b, auth, dec)
	}))
}

// TestEchoingServerSecretsRedactedFromToolResults: a server that echoes
// the secret headers a custom tool sent, in every encoding, gets none of
// them into the tool's result — so none reaches the model, the event log
// or anything built from the result.
func TestEchoingServerSecretsRedactedFromToolResults(t *testing.T) {
	srv := echoServer(t)
	defer srv.Close()
	ap := netip.MustParseAddrPort(srv.Listener.Addr().String())
	f, _ := NewFetcher(FetchConfig{AllowNets: []netip.Prefix{netip.PrefixFrom(ap.Addr(), 32)}})
	lookup := func(n string) (string, bool) { v, ok := echoSecrets[n]; return v, ok }
	r := NewRegistry()
	for _, path := range []string{"ok", "fail"} {
		spec, err := DecodeCustom(map[string]any{
			"name": "echo_" + path, "description": "echoes",
			"params": map[string]any{"type": "object"},
			"http": map[string]any{
				"url":     "http://" + srv.Listener.Addr().String() + "/" + path,
				"headers": map[string]any{"Authorization": "Bearer {{ secret.ECHO_TOKEN }}", "X-Basic": "Basic {{ secret.ECHO_BASIC }}"},
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		bound := SecretBindings{"ECHO_TOKEN": {srv.Listener.Addr().String()}, "ECHO_BASIC": {srv.Listener.Addr().String()}}
		tool, err := NewCustom(spec, CustomDeps{Fetcher: f, Secret: lookup, SecretHosts: bound})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"echo_ok", "echo_fail"} {
		res, err := r.Call(context.Background(), FromAgent, name, json.RawMessage(`{}`))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Text, redact.Mark) {
			t.Fatalf("%s: nothing was redacted; the server did not echo? %s", name, res.Text)
		}
		for _, form := range echoForms() {
			if strings.Contains(res.Text, form) || strings.Contains(string(b), form) {
				t.Errorf("%s: the result holds %q:\n%s", name, form, b)
			}
		}
	}
}

// TestRefusalNamingASecretStaysARefusal: a refusal whose reason quotes a
// secret (the URL of a denied fetch, with its ?api-key=) comes back
// redacted and still a refusal with its code, so the engine records it as
// one; an error that wraps a refusal in more text becomes that text,
// redacted.
func TestRefusalNamingASecretStaysARefusal(t *testing.T) {
	redact.Add("refusal-secret-0007")
	_, err := redactResult(nil, &Refusal{Tool: "http_fetch", Code: "E-TOOL-DENIED", Reason: "https://x.example/?api-key=refusal-secret-0007 is denied", Fix: "ask the operator"})
	var rf *Refusal
	if !errors.As(err, &rf) || rf.Code != "E-TOOL-DENIED" || rf.Fix != "ask the operator" {
		t.Fatalf("got %#v; want a refusal with its code and fix", err)
	}
	if strings.Contains(err.Error(), "refusal-secret-0007") || !strings.Contains(rf.Reason, "[REDACTED]") {
		t.Errorf("reason %q, error %q; want the secret redacted", rf.Reason, err)
	}
	wrapped := fmt.Errorf("calling with refusal-secret-0007: %w", &Refusal{Tool: "t", Code: "E", Reason: "no"})
	_, err = redactResult(nil, wrapped)
	if strings.Contains(err.Error(), "refusal-secret-0007") || !strings.Contains(err.Error(), "calling with [REDACTED]") {
		t.Errorf("wrapped: %q", err)
	}
}

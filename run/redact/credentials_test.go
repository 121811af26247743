package redact

import (
	"strings"
	"testing"
)

func TestCredentialName(t *testing.T) {
	for name, want := range map[string]bool{
		"NOTES_TOKEN": true, "API_KEY": true, "APIKEY": true, "DB_PASSWORD": true, "GITHUB_PAT": true,
		"api-key": true, "sig": true, "AWS_SECRET_ACCESS_KEY": true, "SESSION_ID": true, "auth": true,
		"NOTES_DIR": false, "AUTHOR": false, "EXPAT_HOME": false, "DESIGN": false, "PASSAGE_DIR": false,
		"api-version": false, "PATH": false,
	} {
		if got := CredentialName(name); got != want {
			t.Errorf("CredentialName(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestBaseURLCredentialsRedacted: a base URL that carries a password or a
// key in its query (a gateway's ?api-key=) is quoted back in a
// connection error; neither credential survives, the settings do.
func TestBaseURLCredentialsRedacted(t *testing.T) {
	AddURL("https://bob:pw-in-the-base-url-42@gw.example/v1?api-key=query-key-in-url-43&api-version=2024-02-01")
	got := String(`cannot reach https://bob:xxxxx@gw.example/v1/chat/completions?api-key=query-key-in-url-43&api-version=2024-02-01 (password pw-in-the-base-url-42)`)
	for _, s := range []string{"query-key-in-url-43", "pw-in-the-base-url-42"} {
		if strings.Contains(got, s) {
			t.Errorf("%q survives: %s", s, got)
		}
	}
	if !strings.Contains(got, "api-version=2024-02-01") {
		t.Errorf("a setting was redacted: %s", got)
	}
}

package redact

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// TestEchoedFormsAreRedacted: a server that echoes a secret back chooses
// the encoding; each form a registered value can take is replaced, and
// JSON stays JSON whatever characters the value holds.
func TestEchoedFormsAreRedacted(t *testing.T) {
	tok := `k3y"with<html>&\back/slash+plus=`
	basic := base64.StdEncoding.EncodeToString([]byte("bob:hunter2-long"))
	Add(tok)
	Add(basic)
	Add("abc") // too short: never redacted
	js, _ := json.Marshal(tok)
	for _, tt := range []struct{ name, in string }{
		{"as-is", "token " + tok + " end"},
		{"json-escaped", `{"t":` + string(js) + `}`},
		{"url-query", "?t=" + url.QueryEscape(tok)},
		{"url-path", "/t/" + url.PathEscape(tok)},
		{"base64", base64.StdEncoding.EncodeToString([]byte(tok))},
		{"base64url-raw", base64.RawURLEncoding.EncodeToString([]byte(tok))},
		{"basic", "Basic " + basic},
		{"basic-decoded", "user bob:hunter2-long"},
		{"basic-password", "pw=hunter2-long"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := String(tt.in)
			if !strings.Contains(got, Mark) || strings.Contains(got, "hunter2") || strings.Contains(got, "k3y") {
				t.Errorf("String(%q) = %q", tt.in, got)
			}
		})
	}
	if got := String("abc is short"); got != "abc is short" {
		t.Errorf("a value under MinLen was redacted: %q", got)
	}
	// JSON keeps its shape: the decoded value is redacted, then encoded.
	in := []byte(`{"echo":` + string(js) + `,"n":1.50,"keep":"x"}`)
	out, err := JSON(in, json.Marshal)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil || v["echo"] != Mark || v["keep"] != "x" {
		t.Errorf("JSON(%s) = %s (%v)", in, out, err)
	}
	if !strings.Contains(string(out), `"n":1.50`) {
		t.Errorf("a number changed its text: %s", out)
	}
	// Without a secret, bytes come back untouched.
	plain := []byte(`{"a": 1}`)
	if got, _ := JSON(plain, json.Marshal); string(got) != string(plain) {
		t.Errorf("JSON changed text without a secret: %s", got)
	}
}

// TestUnfinishedHidesAKeyWhileItStreams: a model streams a key a few bytes
// at a time; every prefix of the text, as the live view draws it, shows
// no more than MinLen-1 bytes of the key, and the whole text shows none.
func TestUnfinishedHidesAKeyWhileItStreams(t *testing.T) {
	key := "sk-stream-split-9d8e7f6a5b4c"
	Add(key)
	text := "here it comes: " + key + " done"
	for i := 0; i <= len(text); i++ {
		got := Unfinished(text[:i])
		for k := MinLen; k <= len(key); k++ {
			if strings.Contains(got, key[:k]) {
				t.Fatalf("after %d bytes the view shows %q, the key's first %d bytes", i, got, k)
			}
		}
	}
	if got := Unfinished("an ordinary sentence"); got != "an ordinary sentence" {
		t.Errorf("ordinary text changed: %q", got)
	}
}

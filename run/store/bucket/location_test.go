package bucket

import (
	"strings"
	"testing"
)

func TestParseLocation(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{in: "s3://team-runs/agentlab", want: "s3://team-runs/agentlab"},
		{in: "s3://team-runs", want: "s3://team-runs/"},
		{in: "s3://b/p/q/?endpoint=http://127.0.0.1:7070&path_style=true&region=eu-west-1", want: "s3://b/p/q?endpoint=http://127.0.0.1:7070&path_style=true&region=eu-west-1"},
		{in: "s3://b/p?conditional=off", want: "s3://b/p?conditional=off"},
		// An attacker-shaped or mistyped URL is refused with the reason.
		{in: "s3://AKIAXXX:secret@b/p", err: "credentials do not belong in the store URL"},
		{in: "s3://b/p?endpoint=http://user:pw@host", err: "credentials do not belong in the endpoint"},
		{in: "https://b/p", err: "the scheme must be s3://"},
		{in: "s3:///p", err: "no bucket"},
		{in: "s3://b/p?endpoint=file:///etc", err: "is not an http(s) URL"},
		{in: "s3://b/p?path_style=maybe", err: "is not true or false"},
		{in: "s3://b/p?conditional=sometimes", err: "is not auto, on or off"},
		{in: "s3://b/p?access_key=x", err: `credentials do not belong in the store URL`},
		{in: "s3://b/p?aws_secret_access_key=TOPSECRET", err: `credentials do not belong in the store URL`},
		{in: "s3://b/p?X-Amz-Signature=TOPSECRET", err: `credentials do not belong in the store URL`},
		{in: "s3://b/p?endpoint=http://127.0.0.1:7090/?X-Amz-Signature=TOPSECRET", err: "scheme, host and port only"},
		{in: "s3://b/p?colour=blue", err: `unknown option "colour"`},
		// A fragment would drop the endpoint and send the request to AWS.
		{in: "s3://b/p#x?endpoint=http://127.0.0.1:7090&path_style=true", err: "no #fragment"},
		{in: "s3://b/q/../r", err: `has a ".." segment`},
		{in: "s3://b/./r", err: `has a "." segment`},
		{in: "s3://b/p?endpoint=http://a:1&endpoint=http://b:2", err: `option "endpoint" is given 2 times`},
		{in: "s3://b/p\x00", err: "cannot be read"},
	}
	for _, tt := range tests {
		l, err := ParseLocation(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err = %v, want %q", tt.in, err, tt.err)
			}
			if err != nil && (strings.Contains(err.Error(), "secret@") || strings.Contains(err.Error(), "TOPSECRET")) {
				t.Errorf("%s: the error repeats the secret: %v", tt.in, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if got := l.String(); got != tt.want {
			t.Errorf("%s: String() = %q, want %q", tt.in, got, tt.want)
		}
	}
	l, _ := ParseLocation("s3://b/runs/x")
	if got := l.Key("artifacts", "ab"); got != "runs/x/artifacts/ab" {
		t.Errorf("Key = %q", got)
	}
	l, _ = ParseLocation("s3://b")
	if got := l.Key("artifacts", "ab"); got != "artifacts/ab" {
		t.Errorf("Key at the root = %q", got)
	}
}

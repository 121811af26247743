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
		{in: "s3://b/p?access_key=x", err: `unknown option "access_key"`},
	}
	for _, tt := range tests {
		l, err := ParseLocation(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err = %v, want %q", tt.in, err, tt.err)
			}
			if err != nil && strings.Contains(err.Error(), "secret") && !strings.Contains(tt.err, "secret") {
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

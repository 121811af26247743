package engine

import (
	"encoding/json"
	"testing"
	"time"
)

// FuzzParseArgs feeds arbitrary bytes as a model's tool-call arguments:
// parseArgs must never panic, and whatever it accepts is one canonical JSON
// object that parses back to itself.
func FuzzParseArgs(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"sql": "SELECT 1"}`, `{not json`, `[1]`, `{"a":1} {"b":2}`, `null`, `{"a":{"b":[1,2.50,"\u00e9"]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, problem := parseArgs(b)
		if problem != "" {
			if got != nil {
				t.Fatalf("a refused call returned arguments %q", got)
			}
			return
		}
		var m map[string]any
		if err := json.Unmarshal(got, &m); err != nil || m == nil {
			t.Fatalf("accepted arguments %q are not an object: %v", got, err)
		}
		again, p2 := parseArgs(got)
		if p2 != "" || string(again) != string(got) {
			t.Fatalf("not canonical: %q → %q (%s)", got, again, p2)
		}
	})
}

// FuzzParseDeadline: any deadline text is either refused or a time not
// before the moment the node started waiting.
func FuzzParseDeadline(f *testing.F) {
	for _, s := range []string{"", "36h", "2d", "1d12h", "90m", "2026-12-01T17:00:00Z", "-1h", "d", "3dd", "9999999999d"} {
		f.Add(s)
	}
	since := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseDeadline(s, since)
		if err != nil || got.IsZero() {
			return
		}
		if _, rfc := time.Parse(time.RFC3339, s); rfc == nil {
			return // an absolute time may be in the past: evaluated on resume
		}
		if got.Before(since) {
			t.Fatalf("deadline %q = %v, before it started waiting", s, got)
		}
	})
}

// FuzzTally: no sequence of answers approves unless one is explicit.
func FuzzTally(f *testing.F) {
	f.Add("any", "yes", "no", "")
	f.Add("quorum:2", "approve", "lgtm", "同意")
	f.Add("all", "ok", "sure", "true")
	f.Fuzz(func(t *testing.T, mode, a, b, c string) {
		ds := []HumanDecision{dec("ann", a), dec("bob", b), dec("cy", c)}
		got, err := TallyDecisions(mode, []string{"ann", "bob", "cy"}, ds)
		if err != nil {
			return
		}
		if got.Verdict == VerdictApproved && !IsApproval(a) && !IsApproval(b) && !IsApproval(c) {
			t.Fatalf("approved without an explicit approval: %q %q %q (%s)", a, b, c, mode)
		}
	})
}

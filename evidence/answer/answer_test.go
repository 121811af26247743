package answer

import (
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	in := map[string]any{"question": "What was revenue in 2026?"}
	tests := []struct {
		out   map[string]any
		field string
		want  string
	}{
		{map[string]any{"answer": "12", "other": "34"}, "", "12"},
		{map[string]any{"brief": "12", "note": "34"}, "note", "34"},
		{map[string]any{"question": "What was revenue in 2026?", "text": "It was 12."}, "", "It was 12."},
		{map[string]any{"b": "two", "a": "one", "n": 3}, "", "one\ntwo"},
		{map[string]any{"answer": map[string]any{"x": 1}}, "", `{"x":1}`},
		{map[string]any{"answer": nil}, "", ""},
		{map[string]any{}, "missing", ""},
		{nil, "", ""},
	}
	for _, tt := range tests {
		if got := Text(tt.out, tt.field, in); got != tt.want {
			t.Errorf("Text(%v, %q) = %q, want %q", tt.out, tt.field, got, tt.want)
		}
	}
}

func TestCut(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdef", 3, "abc…"},
		{"aé", 2, "a…"}, // never half a character
		{"éé", 0, "…"},
	} {
		if got := Cut(tt.s, tt.n); got != tt.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
	if got := Cut(strings.Repeat("é", MaxBytes), MaxBytes); len(got) != MaxBytes+len("…") {
		t.Errorf("a cut at MaxBytes keeps %d bytes", len(got))
	}
}

func TestWorseTier(t *testing.T) {
	for _, tt := range []struct{ a, b, want string }{
		{"", "formal", "formal"}, {"formal", "", "formal"}, {"formal", "degraded", "degraded"},
		{"withheld", "formal", "withheld"}, {"degraded", "withheld", "withheld"}, {"degraded", "degraded", "degraded"},
	} {
		if got := WorseTier(tt.a, tt.b); got != tt.want {
			t.Errorf("WorseTier(%q, %q) = %q, want %q", tt.a, tt.b, got, tt.want)
		}
	}
}

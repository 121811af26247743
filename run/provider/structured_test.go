package provider

import "testing"

func TestExtractJSON(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{`{"a":1}`, `{"a":1}`, true},
		{"  [1, 2]\n", `[1, 2]`, true},
		{"```json\n{\"a\": 1}\n```", `{"a": 1}`, true},
		{"```\n[true]\n```", `[true]`, true},
		{"Sure! Here it is: {\"a\": {\"b\": 2}} Hope that helps.", `{"a": {"b": 2}}`, true},
		{`"just a string"`, `"just a string"`, true},
		{"no json here", "", false},
		{"{broken", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := extractJSON(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("extractJSON(%q) = %q %v, want %q %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestInstructions(t *testing.T) {
	got := instructions(Request{System: " Be brief. ", Labels: []string{"a", "b"}})
	if want := "Be brief.\n\nAnswer with exactly one of these labels and nothing else: a, b."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if instructions(Request{}) != "" {
		t.Error("no system prompt, no instructions")
	}
}

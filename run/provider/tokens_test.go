package provider

import (
	"strings"
	"testing"
)

func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		s    string
		want int
	}{
		{"", 0},
		{"a", 1},
		{"abcd", 1},
		{"abcde", 2},
		{"hello world!", 3},
		{"销售", 2},
		{"本周销售额", 5},
		{"gmv 增长", 2 + 1}, // two CJK + "gmv " (4 chars)
		{"こんにちは", 5},
		{"안녕", 2},
		{"，。", 2}, // CJK punctuation
		{strings.Repeat("x", 400), 100},
	}
	for _, tt := range tests {
		if got := EstimateTokens(tt.s); got != tt.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", tt.s, got, tt.want)
		}
	}
}

func TestChunks(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"", nil},
		{"Hello world.", []string{"Hello ", "world."}},
		{"Sales, then more", []string{"Sales, ", "then ", "more"}},
		{"At [[m:gmv]] now", []string{"At ", "[[m:gmv]]", " ", "now"}},
		{"[[q:K1|exact words here]].", []string{"[[q:K1|exact words here]]", "."}},
		{"销售增长", []string{"销", "售", "增", "长"}},
		{`{"a":1,"b":[2]}`, []string{"{", `"a":`, "1,", `"b":`, "[", "2", "]", "}"}},
		{"unclosed [[m:gmv here", []string{"unclosed ", "[", "[", "m:", "gmv ", "here"}},
		{strings.Repeat("x", 20), []string{strings.Repeat("x", 16), "xxxx"}},
	}
	for _, tt := range tests {
		got := chunks(tt.text)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("chunks(%q) = %q, want %q", tt.text, got, tt.want)
		}
		if strings.Join(got, "") != tt.text {
			t.Errorf("chunks(%q) do not concatenate back", tt.text)
		}
	}
}

func TestTruncateTokens(t *testing.T) {
	s, cut := truncateTokens("one two three four five six", 3)
	if !cut || EstimateTokens(s) > 3 || !strings.HasPrefix("one two three four five six", s) {
		t.Errorf("got %q cut=%v", s, cut)
	}
	if s, cut := truncateTokens("short", 10); cut || s != "short" {
		t.Errorf("got %q cut=%v", s, cut)
	}
}

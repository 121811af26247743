package provider

import (
	"strings"
	"testing"
)

func TestThinkFilter(t *testing.T) {
	tests := []struct {
		name      string
		pieces    []string
		text      string
		reasoning int
	}{
		{"plain", []string{"Hello", " world"}, "Hello world", 0},
		{"block then answer", []string{"<think>", "abc", "</think>", "\n\nAnswer"}, "Answer", 3},
		{"tags split across pieces", []string{"  <th", "ink>ab", "c</th", "ink>An", "swer"}, "Answer", 3},
		{"only thinking", []string{"<think>abc</think>"}, "", 3},
		{"unterminated", []string{"<think>abcd"}, "", 4},
		{"lookalike", []string{"<thi", "s is html>"}, "<this is html>", 0},
		{"think later is text", []string{"Hi <think>x</think>"}, "Hi <think>x</think>", 0},
		{"only spaces", []string{" ", "\n"}, " \n", 0},
		{"partial open at end", []string{"<thin"}, "<thin", 0},
		{"cjk reasoning", []string{"<think>想一想</think>好"}, "好", 3},
	}
	for _, tt := range tests {
		var f thinkFilter
		var out strings.Builder
		for _, p := range tt.pieces {
			out.WriteString(f.feed(p))
		}
		out.WriteString(f.flush())
		if out.String() != tt.text || f.reasoning != tt.reasoning {
			t.Errorf("%s: text %q reasoning %d, want %q %d", tt.name, out.String(), f.reasoning, tt.text, tt.reasoning)
		}
	}
}

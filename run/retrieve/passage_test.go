package retrieve

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// texts returns the passage texts of text.
func texts(text string, max int) []string {
	var out []string
	for _, s := range passages(text, max) {
		out = append(out, text[s.start:s.end])
	}
	return out
}

func TestPassages(t *testing.T) {
	tests := []struct {
		name string
		text string
		max  int
		want []string
	}{
		{"one paragraph", "hello world", 100, []string{"hello world"}},
		{"paragraphs packed", "aaa\n\nbbb\n\nccc", 100, []string{"aaa\n\nbbb\n\nccc"}},
		{"paragraphs split at cap", "aaaa\n\nbbbb\n\ncccc", 10, []string{"aaaa\n\nbbbb", "cccc"}},
		{"heading starts a passage", "intro\n\n# A\n\ntext a\n## B\ntext b", 100, []string{"intro", "# A\n\ntext a", "## B\ntext b"}},
		{"consecutive headings stay together", "# A\n\n## B\n\nbody", 100, []string{"# A\n\n## B\n\nbody"}},
		{"not a heading", "#hashtag\n\n####### seven", 100, []string{"#hashtag\n\n####### seven"}},
		{"fence keeps blank lines and #", "```\n# not\n\ncode\n```\n\nafter", 100, []string{"```\n# not\n\ncode\n```\n\nafter"}},
		{"long block cut at sentence", "One two three. Four five six seven.", 20, []string{"One two three.", "Four five six seven."}},
		{"sentence end in first half ignored", "One two. Three four five six seven.", 20, []string{"One two. Three four", "five six seven."}},
		{"long block cut at space", "aaaa bbbb cccc dddd", 10, []string{"aaaa bbbb", "cccc dddd"}},
		{"long word cut hard", "abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"chinese sentences", "第一句话。第二句话。第三句话。", 8, []string{"第一句话。", "第二句话。", "第三句话。"}},
		{"whitespace only", " \n\n \t\n", 10, nil},
		{"surrounding space trimmed", "\n\n  text  \n\n", 10, []string{"text"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := texts(tt.text, tt.max)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Errorf("passages = %q, want %q", got, tt.want)
			}
		})
	}
}

// checkPassages asserts the invariants every passage list keeps.
func checkPassages(t *testing.T, text string, max int) {
	t.Helper()
	prev := 0
	for _, s := range passages(text, max) {
		if s.start < prev || s.start >= s.end || s.end > len(text) {
			t.Fatalf("bad span %+v after %d in %q", s, prev, text)
		}
		p := text[s.start:s.end]
		if n := utf8.RuneCountInString(p); n > max {
			t.Fatalf("passage of %d runes > %d: %q", n, max, p)
		}
		if utf8.ValidString(text) && !utf8.ValidString(p) {
			t.Fatalf("passage cuts a character: %q", p)
		}
		r, _ := utf8.DecodeRuneInString(p)
		l, _ := utf8.DecodeLastRuneInString(p)
		if unicode.IsSpace(r) || unicode.IsSpace(l) {
			t.Fatalf("passage not trimmed: %q", p)
		}
		prev = s.end
	}
}

func TestPassageInvariants(t *testing.T) {
	text := strings.Repeat("Lorem ipsum dolor sit amet. 中文句子没有空格。\n\n# H\n", 40) + strings.Repeat("x", 3000)
	for _, max := range []int{1, 2, 7, 50, 800} {
		checkPassages(t, text, max)
	}
}

package engine

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// estimateTokens approximates how many tokens a model spends on s: about
// four characters a token for alphabetic text, one per CJK character.
// Guardrails only need a stable, slightly pessimistic estimate; the
// provider's own usage numbers are what budgets count.
func estimateTokens(s string) int {
	n, cjk := 0, 0
	for _, r := range s {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			cjk++
		} else {
			n++
		}
	}
	return (n+3)/4 + cjk
}

// requestTokens estimates the context a request fills.
func requestTokens(system string, msgs []Message, tools []ToolDecl) int {
	n := estimateTokens(system)
	for _, m := range msgs {
		n += 4 + estimateTokens(m.Content)
		for _, tc := range m.ToolCalls {
			n += estimateTokens(tc.Name) + estimateTokens(string(tc.Args))
		}
	}
	for _, d := range tools {
		n += estimateTokens(d.Name) + estimateTokens(d.Description) + 20*len(d.Schema)
	}
	return n
}

// truncateResult keeps a tool result within limit characters: the first
// 60% and the last 40% of the allowance, with a marker in between saying
// how much was cut. The head usually holds column names and first rows,
// the tail the totals and the end of a log.
func truncateResult(s string, limit int) (string, bool) {
	total := utf8.RuneCountInString(s)
	if limit <= 0 || total <= limit {
		return s, false
	}
	rs := []rune(s)
	head := limit * 6 / 10
	tail := limit - head
	cut := total - head - tail
	marker := fmt.Sprintf("\n…[agentlab: %d of %d characters were cut from the middle of this result]…\n", cut, total)
	return string(rs[:head]) + marker + string(rs[total-tail:]), true
}

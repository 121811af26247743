package provider

import (
	"strings"
	"unicode"
)

// thinkFilter separates a "<think>…</think>" block at the start of the
// answer text from the answer. Reasoning models served without a
// reasoning parser (DeepSeek-R1 or Qwen3 on vLLM, llama.cpp, older
// Ollama) put their reasoning there instead of in reasoning_content; it
// must not reach the answer, and an answer that is nothing but such a
// block must be explained like any other thinking-only answer.
type thinkFilter struct {
	state     int // thinkUndecided, thinkInside or thinkPass
	buf       strings.Builder
	scanned   int // bytes of buf already searched for the closing tag
	reasoning int // characters of reasoning seen so far
}

const (
	thinkUndecided = iota
	thinkInside
	thinkAfter // just after the block: blank lines are dropped
	thinkPass
)

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// feed takes the next piece of content and returns the part of it that
// is answer text (possibly empty while the filter is still deciding or
// inside the block).
func (f *thinkFilter) feed(s string) string {
	switch f.state {
	case thinkPass:
		return s
	case thinkAfter:
		return f.after(s)
	case thinkUndecided:
		f.buf.WriteString(s)
		b := strings.TrimLeftFunc(f.buf.String(), unicode.IsSpace)
		switch {
		case strings.HasPrefix(b, thinkOpen):
			f.state = thinkInside
			f.buf.Reset()
			f.scanned = 0
			return f.inside(b[len(thinkOpen):])
		case b == "" || strings.HasPrefix(thinkOpen, b):
			return "" // not yet known
		default:
			out := f.buf.String()
			f.buf.Reset()
			f.state = thinkPass
			return out
		}
	default:
		return f.inside(s)
	}
}

// inside buffers reasoning until the closing tag and returns what follows
// it, without the blank lines that usually separate the two.
func (f *thinkFilter) inside(s string) string {
	f.buf.WriteString(s)
	all := f.buf.String()
	from := max(0, f.scanned-len(thinkClose)+1)
	i := strings.Index(all[from:], thinkClose)
	if i < 0 {
		f.scanned = len(all)
		return ""
	}
	i += from
	f.reasoning += len([]rune(all[:i]))
	f.buf.Reset()
	f.state = thinkAfter
	return f.after(all[i+len(thinkClose):])
}

// after drops the white space between the block and the answer.
func (f *thinkFilter) after(s string) string {
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	if s != "" {
		f.state = thinkPass
	}
	return s
}

// flush ends the stream: text still undecided is answer text, an
// unterminated block is all reasoning.
func (f *thinkFilter) flush() string {
	switch f.state {
	case thinkUndecided:
		f.state = thinkPass
		out := f.buf.String()
		f.buf.Reset()
		return out
	case thinkInside:
		f.reasoning += len([]rune(f.buf.String()))
		f.buf.Reset()
		f.state = thinkPass
	}
	return ""
}

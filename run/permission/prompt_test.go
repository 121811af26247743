package permission

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

func TestTTYPrompter(t *testing.T) {
	tests := []struct {
		input  string
		want   Answer
		output string // substring of what was written
	}{
		{"y\n", AnswerYes, "[y]es / [n]o / [a]lways / [d]eny always: "},
		{"YES\n", AnswerYes, ""},
		{"n\n", AnswerNo, ""},
		{"a\n", AnswerAlways, ""},
		{"always\n", AnswerAlways, ""},
		{"d\n", AnswerDenyAlways, ""},
		{" d \n", AnswerDenyAlways, ""},
		{"maybe\ny\n", AnswerYes, `"maybe" is not an answer; type y, n, a or d.`},
		{"x\nx\nx\ny\n", AnswerNo, ""}, // three bad answers: no
		{"", AnswerNo, ""},             // end of input: no
		{"y", AnswerYes, ""},           // last line without newline
	}
	for _, tt := range tests {
		var out bytes.Buffer
		p := NewTTYPrompter(strings.NewReader(tt.input), &out)
		got, err := p.Ask(context.Background(), Request{Tool: "http_fetch", Args: json.RawMessage(`{"url":"https://a/"}`), Why: "no permission rule matches it"})
		if err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("input %q: answer %s, want %s", tt.input, got, tt.want)
		}
		if !strings.Contains(out.String(), "the tool http_fetch wants to run (no permission rule matches it)") || !strings.Contains(out.String(), `url: "https://a/"`) || !strings.Contains(out.String(), tt.output) {
			t.Errorf("input %q: output %q", tt.input, out.String())
		}
	}
}

func TestTTYPrompterCancel(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	p := NewTTYPrompter(r, io.Discard)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	a, err := p.Ask(ctx, Request{Tool: "t"})
	if a != AnswerNo || err == nil {
		t.Errorf("cancelled prompt = %s, %v", a, err)
	}
}

// TestTTYThroughChecker drives the whole path: a person types "a", the
// call is remembered, and the next identical call is not asked.
func TestTTYThroughChecker(t *testing.T) {
	var out bytes.Buffer
	c := mustNew(t, Config{}, Options{Prompter: NewTTYPrompter(strings.NewReader("a\n"), &out)})
	for i := 0; i < 2; i++ {
		d, err := c.Check(context.Background(), "file_read", json.RawMessage(`{"path":"x"}`))
		if err != nil || !d.Allowed {
			t.Fatalf("%d: %+v %v", i, d, err)
		}
	}
	if n := strings.Count(out.String(), "Allow?"); n != 1 {
		t.Errorf("asked %d times", n)
	}
}

// TestPromptShowsEveryArgument is a model that pads its first argument
// with 100 KB so that the prompt cuts off the one that matters, and hides
// text behind terminal escapes and a right-to-left override: every
// argument is shown by name, a long value is folded with the count of
// what is folded, and the escapes are shown as text.
func TestPromptShowsEveryArgument(t *testing.T) {
	args, _ := json.Marshal(map[string]string{
		"a_padding": strings.Repeat("harmless ", 12000),
		"url":       "https://evil.example/upload",
		"z_note":    "ok\x1b[2K\r\u202eevil",
	})
	var out bytes.Buffer
	p := NewTTYPrompter(strings.NewReader("n\n"), &out)
	if _, err := p.Ask(context.Background(), Request{Tool: "http_fetch", Args: args, Why: "test"}); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"arguments (3):", "a_padding: ", "characters folded", `url: "https://evil.example/upload"`, `z_note: "ok\u001b[2K\r\u202eevil"`} {
		if !strings.Contains(s, want) {
			t.Errorf("prompt lacks %q:\n%.600s", want, s)
		}
	}
	if strings.ContainsAny(s, "\x1b\u202e") || len(s) > 2000 {
		t.Errorf("prompt of %d bytes shows raw escapes or the whole padding", len(s))
	}
}

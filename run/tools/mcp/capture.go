package mcp

// Bounded captures of what a server writes: the end of stderr and the
// beginning of stdout, kept only to explain a failure.

import (
	"io"
	"strings"
	"sync"
)

// tail keeps the last bytes a server wrote to stderr. Servers log there
// freely; only the end matters when one fails, and it must never grow
// without bound or block the server.
type tail struct {
	mu   sync.Mutex
	buf  []byte
	cap  int
	lost bool
}

func newTail(capacity int) *tail { return &tail{cap: capacity} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.cap; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.lost = true
	}
	return len(p), nil
}

// lines returns at most n last lines, trimmed; a cut first line is
// dropped so that the tail starts at a line boundary.
func (t *tail) lines(n int) string {
	t.mu.Lock()
	s, lost := string(t.buf), t.lost
	t.mu.Unlock()
	s = strings.TrimRight(s, "\n\r\t ")
	ls := strings.Split(s, "\n")
	if lost && len(ls) > 1 {
		ls = ls[1:]
	}
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.TrimSpace(strings.Join(ls, "\n"))
}

// head keeps the first bytes a server wrote to stdout. When the handshake
// fails they usually say why: a server that logs to stdout, or a program
// that is not an MCP stdio server at all ("Listening on http://…").
type head struct {
	r   io.ReadCloser
	mu  sync.Mutex
	buf []byte
}

const headKeep = 200

func (h *head) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if n > 0 {
		h.mu.Lock()
		if room := headKeep - len(h.buf); room > 0 {
			h.buf = append(h.buf, p[:min(n, room)]...)
		}
		h.mu.Unlock()
	}
	return n, err
}

func (h *head) Close() error { return h.r.Close() }

// notJSON returns the first line of stdout when it cannot be the start of
// a JSON-RPC message, or "".
func (h *head) notJSON() string {
	h.mu.Lock()
	s := strings.TrimLeft(string(h.buf), " \t\r\n")
	h.mu.Unlock()
	if s == "" || s[0] == '{' || s[0] == '[' {
		return ""
	}
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(line)
}

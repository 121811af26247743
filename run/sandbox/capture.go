package sandbox

import (
	"fmt"
	"sync"
)

// capBuffer keeps the first cap bytes written to it and counts the rest.
// When the total passes killAt it calls onFlood once, so a program that
// prints a gigabyte is stopped early instead of being drained to the end:
// memory stays at cap, and the time spent stays short.
type capBuffer struct {
	cap, killAt int
	onFlood     func()

	mu      sync.Mutex
	buf     []byte
	total   int64
	flooded bool
}

func (b *capBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.cap - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	b.total += int64(len(p))
	if !b.flooded && b.total > int64(b.killAt) {
		b.flooded = true
		if b.onFlood != nil {
			go b.onFlood() // not under b.mu: the killer takes its own lock
		}
	}
	return len(p), nil
}

func (b *capBuffer) truncated() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total > int64(b.cap)
}

// bytes returns what was kept, with a marker saying how much was dropped.
func (b *capBuffer) bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := append([]byte(nil), b.buf...)
	if dropped := b.total - int64(len(b.buf)); dropped > 0 {
		out = append(out, fmt.Sprintf("\n[agentlab: output truncated at %d bytes; %d more bytes were dropped]\n", b.cap, dropped)...)
	}
	return out
}

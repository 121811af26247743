package bucket

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/agentlab/agentlab/internal/s3fake"
)

// TestServerThatNeverAnswers: a server that accepts the connection and
// never sends a byte must not hang a command; the request fails within
// the response-header bound.
func TestServerThatNeverAnswers(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never answered
		}
	}()
	for _, kv := range s3fake.Env {
		t.Setenv(kv[0], kv[1])
	}
	old := headerTimeout
	headerTimeout = 300 * time.Millisecond
	t.Cleanup(func() { headerTimeout = old })
	l, err := ParseLocation("s3://team/x?conditional=on&path_style=true&endpoint=http://" + ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(context.Background(), l)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = b.Exists(context.Background(), "runs/x/SEAL")
	if err == nil {
		t.Fatal("a silent server answered")
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the request took %s against a server that never answers", d)
	}
}

// TestProbeRetriesAConflict: another writer probing at the same instant
// makes the server answer 409 for a moment; the probe tries again instead
// of calling the store unwritable.
func TestProbeRetriesAConflict(t *testing.T) {
	srv := s3fake.Start(t, "team")
	srv.ConflictPuts.Store(2)
	l, _ := ParseLocation("s3://team/x?path_style=true&endpoint=" + srv.URL)
	b, err := Open(context.Background(), l)
	if err != nil {
		t.Fatal(err)
	}
	cond, err := b.Probe(context.Background())
	if err != nil || !cond {
		t.Fatalf("probe after two conflicts: %v %v", cond, err)
	}
	srv.ConflictPuts.Store(100)
	if _, err := b.Probe(context.Background()); err == nil || !strings.Contains(err.Error(), "409") {
		t.Errorf("a server that always conflicts: %v", err)
	}
}

package main

import (
	"strings"
	"testing"

	"github.com/agentlab/agentlab/run/engine"
	"github.com/agentlab/agentlab/run/redact"
)

// TestLiveViewNeverShowsAStreamedKey: a model streams the provider's key
// back two bytes at a time; no frame of the live view shows more than
// its first three bytes, while it arrives or once it is whole.
func TestLiveViewNeverShowsAStreamedKey(t *testing.T) {
	key := "sk-live-view-key-0a1b2c3d4e"
	redact.Add(key)
	var out strings.Builder
	p := &progress{w: &out, live: true, nodes: map[string]*nodeView{}}
	p.observe(engine.Update{Node: "draft", Type: "llm", State: engine.StateRunning})
	text := "the key is " + key + " and more"
	for i := 0; i < len(text); i += 2 {
		p.observe(engine.Update{Node: "draft", Token: text[i:min(i+2, len(text))]})
		p.draw()
	}
	for k := redact.MinLen; k <= len(key); k++ {
		if strings.Contains(out.String(), key[:k]) {
			t.Fatalf("a frame shows the key's first %d bytes:\n%s", k, out.String())
		}
	}
	if !strings.Contains(out.String(), "the key is") {
		t.Errorf("the streamed text is not shown at all:\n%s", out.String())
	}
}

package ptc

import (
	"os"
	"strings"
	"testing"
)

// TestDocsListKindsAndFrames keeps docs/ptc.md in step with the runtime:
// every failure kind and every frame type has its row.
func TestDocsListKindsAndFrames(t *testing.T) {
	b, err := os.ReadFile("../../docs/ptc.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, k := range []string{KindTimeout, KindProtocol, KindToolError, KindExit, KindOutputCap, KindSandbox} {
		if !strings.Contains(doc, "| `"+k+"` |") {
			t.Errorf("docs/ptc.md has no row for failure kind %q", k)
		}
	}
	for _, f := range []string{frameReady, frameBoot, frameCall, frameResult, frameStdout, frameDone} {
		if !strings.Contains(doc, "| `"+f+"` |") {
			t.Errorf("docs/ptc.md has no row for frame %q", f)
		}
	}
	if strings.Contains(doc, "not yet available") {
		t.Error("docs/ptc.md still says the runtime is not available")
	}
}

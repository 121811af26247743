package verify

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agentlab/agentlab/hashid"
)

// TestBlake3JSVectors runs the embedded JavaScript BLAKE3 under node
// against the official vectors (0 to 102,400 bytes; hash, keyed, derive
// key) and against the Go implementation on inputs fed in uneven pieces.
func TestBlake3JSVectors(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed; the browser test covers the same code")
	}
	type crossCase struct {
		Len int    `json:"len"`
		B3  string `json:"b3"`
	}
	var cross []crossCase
	for _, n := range []int{0, 1, 63, 64, 65, 1023, 1024, 1025, 2048, 3073, 8192, 31744, 65537, 200000} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i % 251)
		}
		cross = append(cross, crossCase{n, hashid.Sum(b).String()})
	}
	dir := t.TempDir()
	crossFile := filepath.Join(dir, "cross.json")
	data, _ := json.Marshal(cross)
	if err := os.WriteFile(crossFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	out, err := exec.Command(node, abs("testdata/blake3_vectors_check.js"), abs("assets/blake3.js"),
		abs("../testdata/blake3-test-vectors.json"), crossFile).CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("JavaScript BLAKE3 disagrees: %v", err)
	}
}

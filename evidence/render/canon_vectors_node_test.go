package render

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestCanonVectorsJavaScript runs the canonical-JSON vectors the Go
// canonicaliser is tested with (canon/testdata/vectors.json: boundary
// numbers, escapes, text that is not JSON) through the JavaScript one in
// assets/report.js, which the report and bundle pages hash with. A number
// written one way in Go and another in the browser would make an intact
// bundle fail to verify.
func TestCanonVectorsJavaScript(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed; the browser tests cover canon through whole bundles")
	}
	script := `const AL = require(process.argv[2]); const vs = require(process.argv[3]); let bad = 0;
for (const v of vs) { let out = "", e = false; try { out = AL.canon(JSON.parse(v.in)); } catch (x) { e = true; }
  if (e !== !!v.error || (!e && out !== v.out)) { bad++; console.log(v.name + ":", JSON.stringify(v.in), "gives", e ? "an error" : out, "want", v.error ? "an error" : v.out); } }
process.exit(bad ? 1 : 0);`
	sp := filepath.Join(t.TempDir(), "canon.js")
	if err := os.WriteFile(sp, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	js, _ := filepath.Abs("assets/report.js")
	vectors, _ := filepath.Abs("../../canon/testdata/vectors.json")
	if b, err := exec.Command(node, sp, js, vectors).CombinedOutput(); err != nil {
		t.Fatalf("the JavaScript canonicaliser disagrees with the Go one: %v\n%s", err, b)
	}
}

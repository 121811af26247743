package canon

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// vector is one case of testdata/vectors.json: JSON text and its canonical
// form, or an error. The same file is read by the test of the JavaScript
// canonicaliser that report and bundle pages verify with
// (evidence/render/canon_vectors_node_test.go), so the two sides hash alike.
type vector struct {
	Name  string `json:"name"`
	In    string `json:"in"`
	Out   string `json:"out"`
	Error bool   `json:"error"`
}

func loadVectors(t *testing.T) []vector {
	t.Helper()
	b, err := os.ReadFile("testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vs []vector
	if err := json.Unmarshal(b, &vs); err != nil {
		t.Fatal(err)
	}
	return vs
}

// TestCanonVectorsForgedText runs the shared vectors: boundary numbers
// (the 1e-6 and 1e21 switches, 2^53, out of range), escapes, and text a
// forger could hand the fast path (truncated, a key without a colon, a
// leading zero). Canonical output must be recognised by the fast path and
// be its own canonical form.
func TestCanonVectorsForgedText(t *testing.T) {
	for _, v := range loadVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			got, err := Canonicalize([]byte(v.In))
			if v.Error {
				if err == nil {
					t.Fatalf("Canonicalize(%s) = %s, want an error", v.In, got)
				}
				if isCanonical([]byte(v.In)) {
					t.Fatalf("the fast path accepts %s", v.In)
				}
				return
			}
			if err != nil || string(got) != v.Out {
				t.Fatalf("Canonicalize(%s) = %s, %v; want %s", v.In, got, err, v.Out)
			}
			if !isCanonical(got) {
				t.Errorf("the fast path refuses canonical %s", got)
			}
			if again, err := canonicalizeSlow(got); err != nil || string(again) != v.Out {
				t.Errorf("the canonical form %s is not its own canonical form: %s, %v", got, again, err)
			}
		})
	}
}

// TestFastPathNeverAcceptsWhatSlowPathRewrites checks each vector's input
// both ways: whenever the fast path accepts text, the slow path must give
// the same bytes back.
func TestFastPathNeverAcceptsWhatSlowPathRewrites(t *testing.T) {
	for _, v := range loadVectors(t) {
		if !isCanonical([]byte(v.In)) {
			continue
		}
		if got, err := canonicalizeSlow([]byte(v.In)); err != nil || string(got) != v.In {
			t.Errorf("fast path accepts %s, slow path writes %s, %v", v.In, got, err)
		}
	}
}

// TestFastPathAcceptsCommonCanonicalText pins what the one-pass check must
// accept, since every reader of a run re-checks each event through it: a
// lone zero, the replacement character written as is, and nesting up to
// MaxFastDepth (one level more takes the slow path).
func TestFastPathAcceptsCommonCanonicalText(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + "0" + strings.Repeat("]", n) }
	for _, s := range []string{`0`, `[0,-1,10]`, "\"\uFFFD\"", deep(MaxFastDepth)} {
		if !isCanonical([]byte(s)) {
			t.Errorf("the fast path refuses canonical %.40s", s)
		}
	}
	if isCanonical([]byte(deep(MaxFastDepth + 1))) {
		t.Errorf("the fast path follows nesting beyond %d", MaxFastDepth)
	}
}

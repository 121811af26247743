package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCodesDocumented keeps docs/evals.md in step with the codes.
func TestCodesDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "evals.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Codes {
		if !strings.Contains(string(doc), "`"+c+"`") {
			t.Errorf("%s is not documented in docs/evals.md", c)
		}
	}
}

package compile

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestLanguageDocExamples re-checks the YAML examples of docs/language.md:
// complete flows must compile without errors; node snippets (which refer
// to nodes around them) must pass the YAML and schema checks; the card
// example must pass the card schema.
func TestLanguageDocExamples(t *testing.T) {
	doc, err := os.ReadFile("../docs/language.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	if len(blocks) < 20 {
		t.Fatalf("found only %d yaml examples", len(blocks))
	}
	dir := t.TempDir()
	for _, f := range []string{"sub.flow.yml", "cards/weekly-gmv.card.yml", "data/sales.csv", "code/score.py"} {
		b, err := os.ReadFile(filepath.Join("testdata/ok", f))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(dir, f), b, 0o644)
	}
	// The operator's configuration the examples assume (language.md shows it).
	os.WriteFile(filepath.Join(dir, "agentlab.toml"), []byte("[secrets.SHOP_TOKEN]\nhosts = [\"shop.example.com\"]\n"), 0o644)
	for i, b := range blocks {
		src := b[1]
		var path, kind string
		switch {
		case strings.HasPrefix(src, "agentlab:"):
			kind = "flow"
		case strings.HasPrefix(src, "- "):
			kind = "snippet"
			src = "agentlab: 1\nname: doc\nsources: {sales: {kind: csv, path: data/sales.csv}}\nnodes:\n" + indent(src)
		case strings.HasPrefix(src, "name:"):
			kind = "card"
		default:
			continue // edges and fragments
		}
		path = filepath.Join(dir, "ex"+string(rune('a'+i%26))+strings.Repeat("x", i/26)+"."+map[string]string{"flow": "flow", "snippet": "flow", "card": "card"}[kind]+".yml")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, d := range LintFile(path, Options{}) {
			if d.Severity != "error" {
				continue
			}
			if kind == "snippet" && !strings.HasPrefix(d.Code, "E-YAML") && !strings.HasPrefix(d.Code, "E-SCHEMA") {
				continue
			}
			if kind == "card" && strings.HasPrefix(d.Code, "E-EXPR") {
				continue
			}
			t.Errorf("example %d (%s): %v\n%s", i, kind, d, src)
		}
	}
}

func indent(s string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if line != "" {
			b.WriteString("  ")
		}
		b.WriteString(line)
	}
	return b.String()
}

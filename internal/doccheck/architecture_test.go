package doccheck

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEveryPackageIsMapped keeps docs/architecture.md the map of the code:
// every Go package in the module is named there (in backticks), and its
// doc comment points to the section it is under, by an anchor that exists.
func TestEveryPackageIsMapped(t *testing.T) {
	root := repoRoot(t)
	page, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	anchors := headingAnchors(string(page))
	pointer := regexp.MustCompile(`docs/architecture\.md#([a-z0-9-]+)`)
	n := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
			return filepath.SkipDir // another module (a patched copy under third_party), not the project's code
		}
		pkgs, err := parser.ParseDir(token.NewFileSet(), path, func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil || len(pkgs) == 0 {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		n++
		if !strings.Contains(string(page), "`"+rel+"`") {
			t.Errorf("package %s is not named in docs/architecture.md; add it to the table of the section it belongs to", rel)
		}
		var doc string
		for _, p := range pkgs {
			for _, f := range p.Files {
				if f.Doc != nil {
					doc += f.Doc.Text()
				}
			}
		}
		m := pointer.FindStringSubmatch(doc)
		switch {
		case m == nil:
			t.Errorf("package %s: its doc comment does not point into docs/architecture.md (add \"Where it fits: docs/architecture.md#SECTION.\")", rel)
		case !anchors[m[1]]:
			t.Errorf("package %s points to docs/architecture.md#%s, which is no heading there", rel, m[1])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 30 {
		t.Fatalf("found only %d packages: the walk is broken", n)
	}
}

// headingAnchors returns the anchors GitHub gives a page's headings:
// lower case, punctuation dropped, spaces as hyphens.
func headingAnchors(md string) map[string]bool {
	out := map[string]bool{}
	drop := regexp.MustCompile(`[^a-z0-9 \-]`)
	for _, l := range strings.Split(md, "\n") {
		if !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(l, "#"))
		out[strings.ReplaceAll(drop.ReplaceAllString(strings.ToLower(h), ""), " ", "-")] = true
	}
	return out
}

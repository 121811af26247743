// Package doccheck keeps docs/diagnostics.md complete: every diagnostic
// and error code that agentlab can print must have an entry there with a
// bad example and a fix. Codes are stable names users and CI match on
// (docs/cli.md), so a code that reaches a user without documentation is a
// bug; this package finds the codes in the Go sources and the entries in
// the page so that a test can compare the two.
//
// Where it fits: docs/architecture.md#supporting-packages.
package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/agentlab/agentlab/internal/lazyre"
)

// CodePattern is the form of a code: a severity letter (E error, W
// warning, H hint), then upper-case words joined by hyphens, such as
// E-SCHEMA-UNKNOWN-KEY or W-AGENT-CITE.
var CodePattern = lazyre.New(`^[EWH]-[A-Z][A-Z0-9]*(-[A-Z0-9]+)*$`)

// fragmentPattern matches a piece of a code built at run time: "E-" in
// "E-" + family + "-" + code, or the format "E-GATE-G%d". Such a code
// cannot be found by reading literals, so each place that builds one is
// reported.
var fragmentPattern = lazyre.New(`^[EWH]-(?:[A-Z0-9]+-)*(?:(?:[A-Z0-9-]*%[-+# 0-9.]*[a-zA-Z])+[A-Z0-9-]*)?$`)

// Use is one place a code appears in the sources.
type Use struct {
	File string // slash-separated, relative to the scanned root
	Line int
}

// Scan is what SourceCodes found.
type Scan struct {
	// Codes maps each code to the places its literal appears.
	Codes map[string][]Use
	// Fragments are literals that start a code assembled at run time.
	Fragments []Use
}

// SourceCodes parses every non-test Go file under root and collects the
// string literals that are codes. Directories named testdata or vendor,
// and those starting with "." or "_", are skipped below root, as the go
// tool skips them; _test.go files are skipped because tests use made-up
// codes.
func SourceCodes(root string) (Scan, error) {
	s := Scan{Codes: map[string][]Use{}}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			v, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			use := Use{File: rel, Line: fset.Position(lit.Pos()).Line}
			switch {
			case CodePattern.MatchString(v):
				s.Codes[v] = append(s.Codes[v], use)
			case fragmentPattern.MatchString(v):
				s.Fragments = append(s.Fragments, use)
			}
			return true
		})
		return nil
	})
	return s, err
}

// Sorted returns the codes in order.
func (s Scan) Sorted() []string {
	out := make([]string, 0, len(s.Codes))
	for c := range s.Codes {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

package lazyre

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestPatternsCompile compiles every pattern the repository's packages
// give to New, since a lazy pattern is otherwise first compiled by the
// run that uses it: a typo must fail here, not in a user's run.
func TestPatternsCompile(t *testing.T) {
	root := filepath.Join("..", "..")
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "third_party" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && p != root) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(x ast.Node) bool {
			call, ok := x.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "New" {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); !ok || id.Name != "lazyre" {
				return true
			}
			pat, ok := constString(call.Args[0])
			if !ok {
				t.Errorf("%s: lazyre.New needs string literals, so that this test can compile the pattern", p)
				return true
			}
			if _, err := regexp.Compile(pat); err != nil {
				t.Errorf("%s: pattern %q does not compile: %v", p, pat, err)
			}
			n++
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 30 {
		t.Fatalf("found only %d patterns; is the walk looking at the repository?", n)
	}
}

// constString evaluates a string literal or a sum of them.
func constString(e ast.Expr) (string, bool) {
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(x.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		if x.Op != token.ADD {
			return "", false
		}
		a, ok1 := constString(x.X)
		b, ok2 := constString(x.Y)
		return a + b, ok1 && ok2
	case *ast.ParenExpr:
		return constString(x.X)
	}
	return "", false
}

// TestCompiledOnceOnFirstUse: nothing is compiled before the first use,
// concurrent first uses share one compilation, and a bad pattern panics
// at its first use, as regexp.MustCompile would have at start-up.
func TestCompiledOnceOnFirstUse(t *testing.T) {
	r := New(`^a+b$`)
	if r.re != nil {
		t.Fatal("compiled before use")
	}
	var wg sync.WaitGroup
	res := make([]*regexp.Regexp, 8)
	for i := range res {
		wg.Add(1)
		go func() { defer wg.Done(); res[i] = r.Re() }()
	}
	wg.Wait()
	for _, x := range res {
		if x != res[0] {
			t.Fatal("two compilations")
		}
	}
	if !r.MatchString("aab") || r.MatchString("ba") || r.String() != `^a+b$` {
		t.Fatal("wrong matches")
	}
	bad := New(`(`)
	defer func() {
		if recover() == nil {
			t.Fatal("a bad pattern did not panic at first use")
		}
	}()
	bad.MatchString("x")
}

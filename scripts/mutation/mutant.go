package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// mutant is one small source change: the bytes [off, end) of file become
// repl. It is applied to a copy of the file handed to the go command through
// -overlay, never to the file itself.
type mutant struct {
	file string // absolute path
	line int
	col  int
	off  int
	end  int
	repl string
	op   string // the mutator's name
	was  string // the source text replaced
}

// where is "rel/path.go:line:col", relative to the module root.
func (m mutant) where(root string) string {
	rel, err := filepath.Rel(root, m.file)
	if err != nil {
		rel = m.file
	}
	return fmt.Sprintf("%s:%d:%d", filepath.ToSlash(rel), m.line, m.col)
}

// describe is "op: was → repl", shortened for one line of output.
func (m mutant) describe() string {
	return fmt.Sprintf("%s: %s → %s", m.op, short(m.was), short(m.repl))
}

func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 48 {
		s = s[:45] + "..."
	}
	if s == "" {
		return "(nothing)"
	}
	return s
}

// apply returns src with the mutant's change made.
func (m mutant) apply(src []byte) []byte {
	out := make([]byte, 0, len(src)+len(m.repl))
	out = append(out, src[:m.off]...)
	out = append(out, m.repl...)
	return append(out, src[m.end:]...)
}

// swaps are the operator replacements: comparison boundaries, negated
// comparisons, the other logical operator, the opposite arithmetic.
var swaps = map[token.Token][]struct {
	op   string
	with token.Token
}{
	token.LSS:  {{"boundary", token.LEQ}, {"negate", token.GEQ}},
	token.LEQ:  {{"boundary", token.LSS}, {"negate", token.GTR}},
	token.GTR:  {{"boundary", token.GEQ}, {"negate", token.LEQ}},
	token.GEQ:  {{"boundary", token.GTR}, {"negate", token.LSS}},
	token.EQL:  {{"negate", token.NEQ}},
	token.NEQ:  {{"negate", token.EQL}},
	token.LAND: {{"logical", token.LOR}},
	token.LOR:  {{"logical", token.LAND}},
	token.ADD:  {{"arith", token.SUB}},
	token.SUB:  {{"arith", token.ADD}},
	token.MUL:  {{"arith", token.QUO}},
	token.QUO:  {{"arith", token.MUL}},
	token.REM:  {{"arith", token.MUL}},
	token.SHL:  {{"arith", token.SHR}},
	token.SHR:  {{"arith", token.SHL}},
	token.AND:  {{"bitwise", token.OR}},
	token.OR:   {{"bitwise", token.AND}},
}

// mutantsOf lists every mutant of one Go source file.
func mutantsOf(path string, src []byte) ([]mutant, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []mutant
	add := func(from, to token.Pos, repl, op string) {
		p := fset.Position(from)
		end := fset.Position(to).Offset
		out = append(out, mutant{file: path, line: p.Line, col: p.Column, off: p.Offset, end: end,
			repl: repl, op: op, was: string(src[p.Offset:end])})
	}
	text := func(n ast.Node) string {
		return string(src[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset])
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GenDecl:
			// Types are not logic: a changed array length only fails to compile.
			if n.Tok == token.TYPE || n.Tok == token.IMPORT {
				return false
			}
		case *ast.ArrayType:
			return false
		case *ast.BinaryExpr:
			if isString(n.X) || isString(n.Y) {
				return true // "a" + b: only + is valid
			}
			for _, s := range swaps[n.Op] {
				add(n.OpPos, n.OpPos+token.Pos(len(n.Op.String())), s.with.String(), s.op)
			}
		case *ast.UnaryExpr:
			if n.Op == token.NOT {
				add(n.Pos(), n.X.Pos(), "", "drop-not")
			}
		case *ast.IncDecStmt:
			with := token.DEC
			if n.Tok == token.DEC {
				with = token.INC
			}
			add(n.TokPos, n.TokPos+2, with.String(), "incdec")
		case *ast.IfStmt:
			add(n.Cond.Pos(), n.Cond.End(), "false", "if-false")
			if b, ok := n.Cond.(*ast.BinaryExpr); !ok || len(swaps[b.Op]) == 0 || b.Op == token.LAND || b.Op == token.LOR {
				// A comparison is negated by the operator swap already.
				add(n.Cond.Pos(), n.Cond.End(), "!("+text(n.Cond)+")", "if-negate")
			}
		case *ast.ReturnStmt:
			for _, r := range n.Results {
				if isErrorValue(r) {
					add(r.Pos(), r.End(), "nil", "return-nil")
				}
			}
		case *ast.ExprStmt:
			if _, ok := n.X.(*ast.CallExpr); ok && !isPanic(n.X) {
				add(n.Pos(), n.End(), "_ = 0", "drop-call")
			}
		case *ast.Ident:
			switch n.Name {
			case "true":
				add(n.Pos(), n.End(), "false", "bool")
			case "false":
				add(n.Pos(), n.End(), "true", "bool")
			}
		case *ast.BasicLit:
			if n.Kind == token.INT {
				if v, err := strconv.ParseInt(n.Value, 0, 64); err == nil {
					repl := strconv.FormatInt(v+1, 10)
					if v == 1 {
						repl = "0"
					}
					add(n.Pos(), n.End(), repl, "const")
				}
			}
		}
		return true
	})
	sort.Slice(out, func(i, j int) bool {
		if out[i].off != out[j].off {
			return out[i].off < out[j].off
		}
		return out[i].op < out[j].op
	})
	return out, nil
}

func isString(e ast.Expr) bool {
	l, ok := e.(*ast.BasicLit)
	return ok && (l.Kind == token.STRING || l.Kind == token.CHAR)
}

// isErrorValue reports whether a returned expression looks like an error:
// err, somethingErr, or a call that builds one. The compiler rejects the
// mutants where the guess is wrong.
func isErrorValue(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name == "err" || strings.HasSuffix(e.Name, "Err")
	case *ast.CallExpr:
		var name string
		switch fn := e.Fun.(type) {
		case *ast.SelectorExpr:
			name = fn.Sel.Name
			if x, ok := fn.X.(*ast.Ident); ok && x.Name == "errors" {
				return true
			}
		case *ast.Ident:
			name = fn.Name
		}
		return strings.HasSuffix(name, "Errorf") || strings.HasSuffix(name, "errorf") || name == "Wrap"
	}
	return false
}

func isPanic(e ast.Expr) bool {
	c := e.(*ast.CallExpr)
	id, ok := c.Fun.(*ast.Ident)
	return ok && id.Name == "panic"
}

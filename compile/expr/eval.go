package expr

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/expr-lang/expr/ast"
)

// evaluator walks a checked tree for one evaluation. It is created per
// call, so a Program shares nothing mutable between goroutines.
type evaluator struct {
	p       *Program
	env     map[string]any
	metrics map[string]float64
	trace   func(Cell)
}

// errChainNil ends an optional chain (a?.b.c) whose base is nil; the
// enclosing chain turns it into nil.
var errChainNil = errors.New("optional chain reached nil")

// fail builds a RuntimeError located at n.
func (e *evaluator) fail(n ast.Node, format string, args ...any) error {
	from, to := e.p.s.nodeSpan(n)
	return &RuntimeError{Offset: from, End: to, Message: fmt.Sprintf(format, args...)}
}

func (e *evaluator) eval(n ast.Node) (any, error) {
	switch n := n.(type) {
	case *ast.NilNode:
		return nil, nil
	case *ast.BoolNode:
		return n.Value, nil
	case *ast.IntegerNode:
		return n.Value, nil
	case *ast.FloatNode:
		return n.Value, nil
	case *ast.StringNode:
		return n.Value, nil
	case *ast.IdentifierNode:
		return e.ident(n)
	case *ast.MemberNode:
		return e.member(n)
	case *ast.ChainNode:
		v, err := e.eval(n.Node)
		if errors.Is(err, errChainNil) {
			return nil, nil
		}
		return v, err
	case *ast.SliceNode:
		return e.slice(n)
	case *ast.UnaryNode:
		return e.unary(n)
	case *ast.BinaryNode:
		return e.binary(n)
	case *ast.CallNode:
		id, ok := n.Callee.(*ast.IdentifierNode)
		if !ok {
			return nil, e.fail(n, "only named functions can be called")
		}
		return e.call(id.Value, n.Arguments, id)
	case *ast.BuiltinNode:
		return e.call(n.Name, n.Arguments, n)
	case *ast.ConditionalNode:
		c, err := e.eval(n.Cond)
		if err != nil {
			return nil, err
		}
		b, ok := c.(bool)
		if !ok {
			return nil, e.fail(n.Cond, "the part before ? is %s, not true or false", typeName(c))
		}
		if b {
			return e.eval(n.Exp1)
		}
		return e.eval(n.Exp2)
	case *ast.ArrayNode:
		out := make([]any, len(n.Nodes))
		for i, x := range n.Nodes {
			v, err := e.eval(x)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case *ast.MapNode:
		out := make(map[string]any, len(n.Pairs))
		for _, p := range n.Pairs {
			pair, ok := p.(*ast.PairNode)
			if !ok {
				return nil, e.fail(p, "malformed map entry")
			}
			k, err := e.eval(pair.Key)
			if err != nil {
				return nil, err
			}
			ks, ok := k.(string)
			if !ok {
				return nil, e.fail(pair.Key, "a map key must be a string, not %s", typeName(k))
			}
			v, err := e.eval(pair.Value)
			if err != nil {
				return nil, err
			}
			out[ks] = v
		}
		return out, nil
	case nil:
		return nil, &RuntimeError{Message: "empty expression"}
	}
	return nil, e.fail(n, "this construct is not supported in expressions")
}

// ident reads a root name or, in a metric expression, another metric.
func (e *evaluator) ident(n *ast.IdentifierNode) (any, error) {
	switch n.Value {
	case "input", "nodes", "vars":
		if v, ok := e.env[n.Value]; ok && v != nil {
			return v, nil
		}
		return map[string]any{}, nil
	case "item", "index":
		v, ok := e.env[n.Value]
		if !ok {
			return nil, e.fail(n, "%s is only defined inside a loop body", n.Value)
		}
		return v, nil
	}
	if e.p.ctx == Metric {
		v, ok := e.metrics[n.Value]
		if !ok {
			return nil, e.fail(n, "metric %s has no value here (is it defined and computed before this one?)", quote(n.Value))
		}
		return v, nil
	}
	return nil, e.fail(n, "unknown name %s", quote(n.Value))
}

// member reads a field of a map, an item of a list or a character of a
// string. A missing map key reads as nil; a missing list index is an error.
func (e *evaluator) member(n *ast.MemberNode) (any, error) {
	obj, err := e.eval(n.Node)
	if err != nil {
		return nil, err
	}
	key, err := e.eval(n.Property)
	if err != nil {
		return nil, err
	}
	if obj == nil {
		if n.Optional {
			return nil, errChainNil
		}
		return nil, e.fail(n, "%s is nil, so %s cannot be read (use ?. to allow nil)", n.Node.String(), describeKey(key))
	}
	if ks, ok := key.(string); ok {
		if v, _, isM := mapGet(obj, ks); isM {
			return v, nil
		}
		return nil, e.fail(n, "%s is %s, not a map, so field %s cannot be read", n.Node.String(), typeName(obj), quote(ks))
	}
	kn, ok := asNumber(key)
	if !ok {
		return nil, e.fail(n.Property, "an index must be a number or a string, not %s", typeName(key))
	}
	if isMap(obj) {
		ks, _ := Stringify(key)
		v, _, _ := mapGet(obj, ks)
		return v, nil
	}
	idx, err := e.toIndex(n.Property, kn)
	if err != nil {
		return nil, err
	}
	if s, ok := obj.(string); ok {
		r := []rune(s)
		i, ok := normIndex(idx, len(r))
		if !ok {
			return nil, e.fail(n, "%s: index %d is out of range (the string has %d characters)", n.String(), idx, len(r))
		}
		return string(r[i]), nil
	}
	list, ok := asList(obj)
	if !ok {
		return nil, e.fail(n, "%s is %s, which cannot be indexed", n.Node.String(), typeName(obj))
	}
	i, ok := normIndex(idx, len(list))
	if !ok {
		return nil, e.fail(n, "%s: index %d is out of range (the list has %d items)", n.String(), idx, len(list))
	}
	return list[i], nil
}

func describeKey(k any) string {
	if s, ok := k.(string); ok {
		return "field " + quote(s)
	}
	s, _ := Stringify(k)
	return "index " + s
}

// toIndex converts a number to an integer index.
func (e *evaluator) toIndex(at ast.Node, n number) (int, error) {
	if n.isInt {
		return n.i, nil
	}
	if n.f != math.Trunc(n.f) || math.Abs(n.f) > 1<<53 {
		return 0, e.fail(at, "an index must be a whole number, not %v", n.f)
	}
	return int(n.f), nil
}

// normIndex maps a negative index to one counted from the end.
func normIndex(i, n int) (int, bool) {
	if i < 0 {
		i += n
	}
	return i, i >= 0 && i < n
}

func (e *evaluator) slice(n *ast.SliceNode) (any, error) {
	obj, err := e.eval(n.Node)
	if err != nil {
		return nil, err
	}
	var length int
	var runes []rune
	list, isList := asList(obj)
	s, isStr := obj.(string)
	switch {
	case isStr:
		runes = []rune(s)
		length = len(runes)
	case isList:
		length = len(list)
	default:
		return nil, e.fail(n, "%s is %s, which cannot be sliced", n.Node.String(), typeName(obj))
	}
	bound := func(b ast.Node, def int) (int, error) {
		if b == nil {
			return def, nil
		}
		v, err := e.eval(b)
		if err != nil {
			return 0, err
		}
		num, ok := asNumber(v)
		if !ok {
			return 0, e.fail(b, "a slice bound must be a number, not %s", typeName(v))
		}
		i, err := e.toIndex(b, num)
		if err != nil {
			return 0, err
		}
		if i < 0 {
			i += length
		}
		return max(0, min(i, length)), nil
	}
	from, err := bound(n.From, 0)
	if err != nil {
		return nil, err
	}
	to, err := bound(n.To, length)
	if err != nil {
		return nil, err
	}
	to = max(from, to)
	if isStr {
		return string(runes[from:to]), nil
	}
	return append(make([]any, 0, to-from), list[from:to]...), nil
}

func (e *evaluator) unary(n *ast.UnaryNode) (any, error) {
	v, err := e.eval(n.Node)
	if err != nil {
		return nil, err
	}
	switch n.Operator {
	case "!", "not":
		b, ok := v.(bool)
		if !ok {
			return nil, e.fail(n, "not needs true or false, but %s is %s", n.Node.String(), typeName(v))
		}
		return !b, nil
	case "-", "+":
		num, ok := asNumber(v)
		if !ok {
			return nil, e.fail(n, "%s needs a number, but %s is %s", quote(n.Operator), n.Node.String(), typeName(v))
		}
		if n.Operator == "+" {
			return num.value(), nil
		}
		if num.isInt && num.i != math.MinInt {
			return -num.i, nil
		}
		return -num.float(), nil
	}
	return nil, e.fail(n, "the operator %s is not supported", quote(n.Operator))
}

func (e *evaluator) binary(n *ast.BinaryNode) (any, error) {
	op := n.Operator
	l, err := e.eval(n.Left)
	if err != nil {
		return nil, err
	}
	switch op {
	case "and", "&&", "or", "||":
		lb, ok := l.(bool)
		if !ok {
			return nil, e.fail(n.Left, "%s needs true or false, but %s is %s", quote(op), n.Left.String(), typeName(l))
		}
		if (op == "and" || op == "&&") != lb {
			return lb, nil // short-circuit: false and …, true or …
		}
		r, err := e.eval(n.Right)
		if err != nil {
			return nil, err
		}
		rb, ok := r.(bool)
		if !ok {
			return nil, e.fail(n.Right, "%s needs true or false, but %s is %s", quote(op), n.Right.String(), typeName(r))
		}
		return rb, nil
	case "??":
		if l != nil {
			return l, nil
		}
		return e.eval(n.Right)
	}
	r, err := e.eval(n.Right)
	if err != nil {
		return nil, err
	}
	switch op {
	case "==":
		return Equal(l, r), nil
	case "!=":
		return !Equal(l, r), nil
	case "<", ">", "<=", ">=":
		c, err := e.order(n, l, r)
		if err != nil {
			return nil, err
		}
		switch op {
		case "<":
			return c < 0, nil
		case ">":
			return c > 0, nil
		case "<=":
			return c <= 0, nil
		}
		return c >= 0, nil
	case "+":
		if ls, ok := l.(string); ok {
			if rs, ok := r.(string); ok {
				return ls + rs, nil
			}
		}
		if ll, ok := asList(l); ok {
			if rl, ok := asList(r); ok {
				return append(append(make([]any, 0, len(ll)+len(rl)), ll...), rl...), nil
			}
		}
		return e.arith(n, l, r)
	case "-", "*", "/", "%", "**", "^":
		return e.arith(n, l, r)
	case "in":
		return e.in(n, l, r)
	case "contains", "startsWith", "endsWith":
		return e.apply(op, n, []any{l, r}, []ast.Node{n.Left, n.Right})
	}
	return nil, e.fail(n, "the operator %s is not supported", quote(op))
}

// order compares two numbers or two strings.
func (e *evaluator) order(n *ast.BinaryNode, l, r any) (int, error) {
	if a, ok := asNumber(l); ok {
		if b, ok := asNumber(r); ok {
			if a.isInt && b.isInt {
				return cmp3(a.i, b.i), nil
			}
			return cmp3(a.float(), b.float()), nil
		}
	}
	if a, ok := l.(string); ok {
		if b, ok := r.(string); ok {
			return strings.Compare(a, b), nil
		}
	}
	return 0, e.fail(n, "cannot order %s and %s with %s", typeName(l), typeName(r), quote(n.Operator))
}

func cmp3[T int | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// arith applies an arithmetic operator. Integer results stay integers
// until they would overflow; / always divides exactly (as floats).
func (e *evaluator) arith(n *ast.BinaryNode, l, r any) (any, error) {
	a, okA := asNumber(l)
	b, okB := asNumber(r)
	if !okA || !okB {
		return nil, e.fail(n, "%s needs numbers, but got %s and %s", quote(n.Operator), typeName(l), typeName(r))
	}
	if a.isInt && b.isInt {
		x, y := a.i, b.i
		switch n.Operator {
		case "+":
			if s := x + y; !((x > 0 && y > 0 && s < 0) || (x < 0 && y < 0 && s >= 0)) {
				return s, nil
			}
		case "-":
			if s := x - y; !((x >= 0 && y < 0 && s < 0) || (x < 0 && y > 0 && s >= 0)) {
				return s, nil
			}
		case "*":
			if x == 0 || y == 0 {
				return 0, nil
			}
			if p := x * y; p/y == x && !(x == -1 && y == math.MinInt) && !(y == -1 && x == math.MinInt) {
				return p, nil
			}
		case "%":
			if y == 0 {
				return nil, e.fail(n, "%s: remainder of division by zero", n.String())
			}
			if y == -1 {
				return 0, nil
			}
			return x % y, nil
		}
	}
	x, y := a.float(), b.float()
	var f float64
	switch n.Operator {
	case "+":
		f = x + y
	case "-":
		f = x - y
	case "*":
		f = x * y
	case "/":
		if y == 0 {
			return nil, e.fail(n, "%s: division by zero", n.String())
		}
		f = x / y
	case "%":
		if y == 0 {
			return nil, e.fail(n, "%s: remainder of division by zero", n.String())
		}
		f = math.Mod(x, y)
	case "**", "^":
		f = math.Pow(x, y)
	default:
		return nil, e.fail(n, "the operator %s is not supported", quote(n.Operator))
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, e.fail(n, "%s does not give a finite number", n.String())
	}
	return f, nil
}

// in tests membership in a list or a key in a map.
func (e *evaluator) in(n *ast.BinaryNode, l, r any) (any, error) {
	if isMap(r) {
		k, ok := l.(string)
		if !ok {
			return false, nil
		}
		_, found, _ := mapGet(r, k)
		return found, nil
	}
	if list, ok := asList(r); ok {
		for _, x := range list {
			if Equal(l, x) {
				return true, nil
			}
		}
		return false, nil
	}
	if r == nil {
		return false, nil
	}
	return nil, e.fail(n, "in needs a list or a map on the right, but %s is %s", n.Right.String(), typeName(r))
}

// runeLen counts characters, not bytes.
func runeLen(s string) int { return utf8.RuneCountInString(s) }
